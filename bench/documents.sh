#!/usr/bin/env bash
# Documents = yes (issue 67, SPEC §19) on a generated site with documents (gen_docs.py: PAGES
# HTML pages, a PDF of its own on every third page — two pages of text, a link annotation to
# the site and one to another site — a copy of a real PDF of /usr/share/doc on every tenth, a
# docx on every twentieth), served by nginx: the same crawl with Documents = no, yes, and yes
# with PageText = yes (MODES), RUNS times each, side by side in each round. Prints per mode the
# median seconds, nodes, nodes a second, documents, the crawler's peak PSS (sampled every
# 200 ms) and /usr/bin/time's peak RSS (the largest of the crawler and the PDF readers it ran).
# Environment: PAGES (3000), THREADS (8 downloads), RUNS (3), MODES ("no yes text").
set -euo pipefail
PAGES=${PAGES:-3000}
source "$(dirname "$0")/lib.sh"
SITE=$WORK/docsite-$PAGES
THREADS=${THREADS:-8}
RUNS=${RUNS:-3}
MODES=${MODES:-no yes text}
if [ ! -f "$SITE/index.html" ]; then
    real=$(ls /usr/share/doc/libtasn1-doc/libtasn1.pdf /usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf 2>/dev/null || true)
    rm -rf "$SITE.tmp" && python3 "$BENCH_DIR/gen_docs.py" "$SITE.tmp" "$PAGES" $real && mv "$SITE.tmp" "$SITE"
fi
ORIGIN=http://127.0.0.1:$PORT
build
start_nginx
OUT=$WORK/documents.txt
: > "$OUT"
note() { echo "$*" | tee -a "$OUT"; }
note "== $SITE: $(find "$SITE" -name '*.html' | wc -l) pages, $(find "$SITE" -name '*.pdf' | wc -l) PDFs ($(du -sm "$SITE/docs" | cut -f1) MB of documents), $THREADS downloads, $(nproc) cores"
for i in $(seq "$RUNS"); do
    for mode in $MODES; do
        case $mode in
            no) extra=("Documents = no") ;;
            yes) extra=("Documents = yes") ;;
            text) extra=("Documents = yes" "PageText = yes") ;;
        esac
        sample_render_pss "$WORK/documents-pss" &
        sampler=$!
        r=$(SITE_LINE="$ORIGIN;$THREADS;20;0" crawl "$WORK/documents-$mode" \
            "DownloadingThreadsCount = $THREADS" "ParsingThreadsCount = $(nproc)" "${extra[@]}")
        wait "$sampler"
        docs=$(python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[0]; print(r.get('Documents') or 0)" "$WORK/documents-$mode/results/summary.csv")
        note "documents $mode seconds_nodes_rss $r documents $docs crawler_pss_kb $(cut -d' ' -f1 "$WORK/documents-pss")"
    done
done
python3 - "$OUT" $MODES <<'PY'
import statistics, sys
out, modes = sys.argv[1], sys.argv[2:]
rows = {m: [] for m in modes}
for line in open(out):
    f = line.split()
    if f and f[0] == "documents":
        rows[f[1]].append((float(f[3]), int(f[4]), int(f[5]), int(f[7]), int(f[9])))
lines = ["", "mode   median s   nodes   nodes/s   documents   crawler PSS MB   peak RSS MB (crawler or a reader)"]
base = None
for m in modes:
    r = rows[m]
    s = statistics.median(x[0] for x in r)
    nodes = r[0][1]
    base = base or nodes / s
    lines.append(f"{m:6} {s:8.2f} {nodes:7} {nodes / s:9.0f}   {r[0][3]:9}   {statistics.median(x[4] for x in r) / 1024:14.1f}   {statistics.median(x[2] for x in r) / 1024:.1f}"
                 f"   ({nodes / s / base:.2f}x no's nodes/s)")
print("\n".join(lines))
open(out, "a").write("\n".join(lines) + "\n")
PY
