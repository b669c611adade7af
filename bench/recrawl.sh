#!/usr/bin/env bash
# Archive and re-crawl (issue 51). On the site nginx serves (SITE: the generated site, or the
# Rust documentation with SITE=$(rustc --print sysroot)/share/doc/rust/html; nginx sends an
# ETag and a Last-Modified for every file and answers 304 to a matching If-None-Match), RUNS
# times: a crawl with Archive = warc, then a re-crawl of the unchanged site with Recrawl = that
# archive (Archive = warc too). Prints each crawl's seconds, pages, peak RSS, the body bytes it
# received (the common log's Bytes column: 0 for a 304) and its 304s, the archive's size, and
# the medians of the ratios re-crawl / first crawl.
# Environment: SITE, RUNS (3), THREADS (16), BIN.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-3}
THREADS=${THREADS:-16}
ORIGIN=http://127.0.0.1:$PORT
build
start_nginx
OUT=$WORK/recrawl-results.txt
: > "$OUT"
note() { echo "$*" | tee -a "$OUT"; }
SETTINGS=("DownloadingThreadsCount = $THREADS" "ParsingThreadsCount = $(nproc)" "Archive = warc")
# body_bytes DIR, not_modified DIR: from the crawl's common log.
body_bytes() { awk -F, 'NR>1 {s+=$5} END {print s+0}' "$1/logs/common_log.csv"; }
not_modified() { awk -F, 'NR>1 && $4 == 304 {n++} END {print n+0}' "$1/logs/common_log.csv"; }
find "$SITE" -type f -exec cat {} + > /dev/null
for i in $(seq "$RUNS"); do
    first=$(SITE_LINE="$ORIGIN;$THREADS;1000;0" crawl "$WORK/rc-first" "${SETTINGS[@]}")
    note "first $first bytes=$(body_bytes "$WORK/rc-first") not_modified=$(not_modified "$WORK/rc-first") archive=$(du -sb "$WORK/rc-first/results/archive" | cut -f1)"
    again=$(SITE_LINE="$ORIGIN;$THREADS;1000;0" crawl "$WORK/rc-again" "${SETTINGS[@]}" "Recrawl = $WORK/rc-first/results/archive")
    note "again $again bytes=$(body_bytes "$WORK/rc-again") not_modified=$(not_modified "$WORK/rc-again") archive=$(du -sb "$WORK/rc-again/results/archive" | cut -f1)"
    if diff -r -q "$WORK/rc-first/results/127.0.0.1_$PORT" "$WORK/rc-again/results/127.0.0.1_$PORT" >&2; then
        note "same_graph 1"
    else
        note "same_graph 0"
    fi
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratios() { # field number in "first/again SECONDS PAGES RSS ..." lines, or a key=
    paste <(awk -v f="$1" '$1 == "first" {print $f}' "$OUT") <(awk -v f="$1" '$1 == "again" {print $f}' "$OUT") |
        awk '{ gsub(/[a-z_]+=/, "", $1); gsub(/[a-z_]+=/, "", $2); if ($1 > 0) printf "%.4f\n", $2 / $1 }' | median
}
note "median re-crawl / first crawl: seconds $(ratios 2), body bytes $(ratios 5), peak RSS $(ratios 4), archive $(ratios 7) ($RUNS runs)"
