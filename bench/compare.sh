#!/usr/bin/env bash
# `rccrawler compare` at scale (issue 52: two crawls of the 4,000-site web in under 10 s and
# 200 MB). Crawls the many-site web (bench/many_sites.sh's) of SITES sites, then a changed copy
# of it (bench/change_many.py: pages edited, removed, added, a new partner per template), and
# compares the two results folders RUNS times: wall seconds and peak RSS of each run, then the
# medians. Also compares the first crawl with itself (nothing changed).
# Environment: SITES (4000), RUNS (3), TEMPLATES (12), SEED (11), BIN.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SITES=${SITES:-4000}
RUNS=${RUNS:-3}
build
OUT=$WORK/compare-results.txt
: > "$OUT"
note() { echo "$*" | tee -a "$OUT"; }
crawl_web() { # dir
    many_hosts "$SITES" "$PORT" 100 0
    HOSTS_FILE="$WORK/many-hosts-$SITES-$PORT.txt" crawl "$1" "$(cat "$WORK/many-resolve-$SITES.txt")" > /dev/null
}
start_many_nginx
trap stop_many EXIT
crawl_web "$WORK/cmp-a"
stop_many
python3 "$BENCH_DIR/change_many.py" "$MANY" "$WORK/many-changed"
MANY_DIR=$WORK/many-changed start_many_nginx
crawl_web "$WORK/cmp-b"
stop_many
note "crawl a: $(awk -F, 'NR>1 {s+=$3} END {print s}' "$WORK/cmp-a/results/summary.csv") pages; crawl b: $(awk -F, 'NR>1 {s+=$3} END {print s}' "$WORK/cmp-b/results/summary.csv") pages"
run_compare() { # label a b
    rm -rf "$WORK/cmp-out"
    /usr/bin/time -f "%e %M" -o "$WORK/cmp-time" "$BIN" compare "$2" "$3" --out "$WORK/cmp-out" > "$WORK/cmp-stdout" 2> "$WORK/cmp-stderr"
    read -r secs rss < "$WORK/cmp-time"
    note "$1 seconds=$secs rss_mb=$(awk "BEGIN {printf \"%.1f\", $rss / 1024}") | $(head -1 "$WORK/cmp-stdout")"
}
for i in $(seq "$RUNS"); do
    run_compare changed "$WORK/cmp-a/results" "$WORK/cmp-b/results"
    run_compare same "$WORK/cmp-a/results" "$WORK/cmp-a/results"
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for label in changed same; do
    secs=$(awk -v l="$label" '$1 == l { split($2, kv, "="); print kv[2] }' "$OUT" | median)
    rss=$(awk -v l="$label" '$1 == l { split($3, kv, "="); print kv[2] }' "$OUT" | median)
    note "median $label: seconds=$secs rss_mb=$rss ($RUNS runs)"
done
du -sh "$WORK/cmp-out" | sed 's/^/output of the last run: /' | tee -a "$OUT"
