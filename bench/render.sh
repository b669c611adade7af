#!/usr/bin/env bash
# Rendering (issue 66, SPEC §18) on a site served by nginx — by default the Rust documentation,
# whose sidebars (rustdoc's sidebar-items.js) and books' tables of contents (mdBook's toc.js)
# are built by scripts: the same crawl to LEVEL with Render = no, auto and all (MODES), each
# RUNS times, and
#   - what each finds of the browser's graph (all's): pages and arcs in common, and any page
#     or arc the browser's graph lacks;
#   - the share of arcs only scripts make (summary.csv's ScriptOnlyArcs of Arcs);
#   - pages rendered, and rendered pages a second with RenderTabs = TABS;
#   - peak memory, sampled every 200 ms as proportional set sizes: the crawler's alone, and
#     the crawler's plus every Chromium process it started. (/usr/bin/time's peak RSS is the
#     largest of the crawler and the browser process it waited for, not the crawler's own.)
# Environment: SITE, LEVEL (2), THREADS (16 downloads), TABS (2), MODES ("no auto all"), RUNS (1).
set -euo pipefail
SITE=${SITE:-$(rustc --print sysroot)/share/doc/rust/html}
source "$(dirname "$0")/lib.sh"
LEVEL=${LEVEL:-2}
THREADS=${THREADS:-16}
TABS=${TABS:-2}
MODES=${MODES:-no auto all}
RUNS=${RUNS:-1}
ORIGIN=http://127.0.0.1:$PORT
build
start_nginx
OUT=$WORK/render.txt
: > "$OUT"
note() { echo "$*" | tee -a "$OUT"; }
note "== $SITE to level $LEVEL, $THREADS downloads, RenderTabs = $TABS, $(nproc) cores"

for i in $(seq "$RUNS"); do
    for mode in $MODES; do
        sample_render_pss "$WORK/render-pss" &
        sampler=$!
        r=$(SITE_LINE="$ORIGIN;$THREADS;$LEVEL;0" crawl "$WORK/render-$mode" \
            "DownloadingThreadsCount = $THREADS" "ParsingThreadsCount = $(nproc)" \
            "Render = $mode" "RenderTabs = $TABS" "TimeoutSeconds = 7200")
        wait "$sampler"
        summary=$WORK/render-$mode/results/summary.csv
        rendered=$(python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[0]; print(r.get('Rendered') or 0, r['Arcs'], r.get('ScriptOnlyArcs') or 0, r['Fetched'])" "$summary")
        note "render $mode seconds_pages_rss $r crawler_and_total_pss_kb $(cat "$WORK/render-pss") rendered_arcs_scriptonly_fetched $rendered"
    done
done
python3 - "$WORK" "$PORT" "$OUT" $MODES <<'PY'
import csv, sys, os
work, port, out, modes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def graph(mode):
    d = os.path.join(work, f"render-{mode}", "results", f"127.0.0.1_{port}")
    label = {}
    with open(os.path.join(d, "nodes.csv"), newline="") as f:
        for r in csv.DictReader(f):
            label[r["Id"]] = r["Label"]
    arcs = set()
    with open(os.path.join(d, "edges.csv"), newline="") as f:
        for r in csv.DictReader(f):
            arcs.add((label[r["Source"]], label[r["Target"]]))
    return set(label.values()), arcs
lines = []
if "all" in modes:
    ref_nodes, ref_arcs = graph("all")
    for m in modes:
        n, a = graph(m)
        lines.append(f"{m}: {len(n & ref_nodes)} of the browser's {len(ref_nodes)} pages "
                     f"({100 * len(n & ref_nodes) / len(ref_nodes):.2f} %), {len(a & ref_arcs)} of its "
                     f"{len(ref_arcs)} arcs ({100 * len(a & ref_arcs) / max(1, len(ref_arcs)):.2f} %); "
                     f"{len(n - ref_nodes)} pages and {len(a - ref_arcs)} arcs the browser's graph lacks")
for l in lines:
    print(l)
with open(out, "a") as f:
    f.write("\n".join(lines) + "\n")
PY
