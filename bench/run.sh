#!/usr/bin/env bash
# Speed and memory benchmark (issue 5). On one generated site served by nginx on 127.0.0.1,
# side by side and RUNS times each (medians):
#   rccrawler         the crawler (release build), DownloadingThreadsCount = THREADS
#   fetch-only        the URLs rccrawler requested, fetched by a minimal client at the same
#                     concurrency: our HTTP client (examples/fetch_only.rs, a blocking thread
#                     per connection, as the crawler's downloaders), the same connections driven
#                     by one event-driven thread (examples/fetch_evented.rs: mio + ureq-proto,
#                     what a fetch layer without a thread per connection would cost), and wrk
#   parse-only        the same pages in memory (the files the crawl's URLs name, not every file
#                     of SITE), decoded, links extracted and normalized on
#                     all cores (examples/parse_only.rs), each link from scratch, and through
#                     the parser threads' href cache as the crawler does
#   wget              wget --recursive --spider, the common baseline
# then the ratios, memory per page and per link, and the scaling curves.
# and, with perf installed, where rccrawler's CPU goes (bench/profile.sh).
# With BASE_BIN=path/to/an/older/rccrawler, each round also crawls with that binary (right
# before or after ours, alternately, same settings) and checks that both wrote byte-identical result files: the
# before/after comparison of a change, measured side by side. OURS_EXTRA="Key = value" adds
# a setting to our crawls only (OURS_EXTRA="Archive = warc" with BASE_BIN a copy of the same
# binary measures what the archive costs; the archive's size is noted), BASE_EXTRA to the base
# binary's (both set: two archives side by side).
# Environment: PAGES (50000), RUNS (3), THREADS (8), WGET_RUNS (RUNS), CURVES (1: also the
# thread and site-count curves, CURVE_PAGES (10000) pages over 1, 10, 50, 200 sites, each
# point CURVE_RUNS (3) times), PROFILE (1), SITE (a folder to serve instead of the generated
# site: SITE=$(rustc --print sysroot)/share/doc/rust/html THREADS=16 measures the real Rust
# documentation, as issue 19 does).
# The site is read once and crawled once before anything is timed: on a VM whose host
# reclaims cold page cache, the first crawl of the day otherwise measures the disk.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-3}
THREADS=${THREADS:-8}
WGET_RUNS=${WGET_RUNS:-$RUNS}
CURVES=${CURVES:-1}
ORIGIN=http://127.0.0.1:$PORT
build
start_nginx
command -v wget >/dev/null || apt-get install -y -q wget >/dev/null
command -v wrk >/dev/null || apt-get install -y -q wrk >/dev/null
OUT=$WORK/results.txt
: > "$OUT"
note() { echo "$*" | tee -a "$OUT"; }
# with_cpu COMMAND...: COMMAND's output followed by its CPU seconds (user + system).
with_cpu() {
    local out
    if out=$(/usr/bin/time -f "%U %S" -o "$WORK/cpu.txt" "$@"); then
        echo "$out $(awk '{printf "%.3f", $1 + $2}' "$WORK/cpu.txt")"
    else
        # fetch_evented speaks plain keep-alive HTTP only: a site that needs more is not measured.
        echo "failed"
    fi
}
CRAWL_SETTINGS=("DownloadingThreadsCount = $THREADS" "ParsingThreadsCount = $(nproc)")

note "== site: $PAGES generated pages, $(du -sh "$SITE" | cut -f1) on disk, nginx on $ORIGIN; $(nproc) cores"
warm() { find "$1" -type f -exec cat {} + > /dev/null; }
warm "$SITE"
SITE_LINE="$ORIGIN;$THREADS;1000;0" crawl "$WORK/rc" "${CRAWL_SETTINGS[@]}" > /dev/null
arcs=$(($(wc -l < "$WORK/rc/results/127.0.0.1_$PORT/edges.csv") - 1))
awk -F, 'NR>1 {print $3}' "$WORK/rc/logs/common_log.csv" | tr -d '"' > "$WORK/urls.txt"
note "requests $(wc -l < "$WORK/urls.txt") arcs $arcs"
# Rounds: each measures everything once, back to back, so that a ratio compares figures
# taken under the same conditions (this VM's speed drifts by a fifth from minute to minute).
for i in $(seq "$RUNS"); do
    note "round $i"
    ours() {
        note "rccrawler $(SITE_LINE="$ORIGIN;$THREADS;1000;0" crawl "$WORK/rc" "${CRAWL_SETTINGS[@]}" ${OURS_EXTRA:+"$OURS_EXTRA"}) $(cat "$WORK/rc/cpu")"
        if [ -d "$WORK/rc/results/archive" ]; then
            note "archive_bytes $(du -sb "$WORK/rc/results/archive" | cut -f1)"
        fi
    }
    base() {
        note "rccrawler_base $(BIN=$BASE_BIN SITE_LINE="$ORIGIN;$THREADS;1000;0" crawl "$WORK/rc-base" "${CRAWL_SETTINGS[@]}" ${BASE_EXTRA:+"$BASE_EXTRA"})"
        if [ -d "$WORK/rc-base/results/archive" ]; then
            note "base_archive_bytes $(du -sb "$WORK/rc-base/results/archive" | cut -f1)"
        fi
    }
    if [ -z "${BASE_BIN:-}" ]; then
        ours
    else
        # Which goes first alternates: the first crawl of a round finds a warmer or colder
        # machine than the second.
        if [ $((i % 2)) = 1 ]; then ours; base; else base; ours; fi
        if diff -r -q "$WORK/rc/results/127.0.0.1_$PORT" "$WORK/rc-base/results/127.0.0.1_$PORT" >&2; then
            note "identical_results 1"
        else
            note "identical_results 0"
        fi
    fi
    # The fetch-only bounds with our crates print "seconds requests bytes"; the CPU seconds
    # (user + system) of the client process are added as a fourth figure.
    note "fetch_ureq $(with_cpu "$ROOT/target/release/examples/fetch_only" "$WORK/urls.txt" "$THREADS")"
    note "fetch_evented $(with_cpu "$ROOT/target/release/examples/fetch_evented" "$WORK/urls.txt" "$THREADS" 1)"
    rate=$(URLS="$WORK/urls.txt" wrk -t2 -c"$THREADS" -d3s -s "$BENCH_DIR/wrk_urls.lua" "$ORIGIN/" | awk '/Requests\/sec/ {print $2}')
    note "fetch_wrk $rate"
    # The pages the crawl requested, not every file of the folder (SITE may hold pages no link
    # reaches).
    note "parse $("$ROOT/target/release/examples/parse_only" "$SITE" "$ORIGIN/" "$(nproc)" fresh "$WORK/urls.txt" 2>/dev/null)"
    note "parse_cached $("$ROOT/target/release/examples/parse_only" "$SITE" "$ORIGIN/" "$(nproc)" cached "$WORK/urls.txt" 2>/dev/null)"
done
for i in $(seq "$WGET_RUNS"); do
    rm -rf "$WORK/wget" && mkdir -p "$WORK/wget"
    s=$(date +%s%N)
    (cd "$WORK/wget" && /usr/bin/time -f "%M" -o rss wget --recursive --level=inf --spider -q --no-directories "$ORIGIN/" || true)
    e=$(date +%s%N)
    note "wget $(awk "BEGIN {printf \"%.3f\", ($e - $s) / 1e9}") $(cat "$WORK/wget/rss")"
done
if [ "$CURVES" = 1 ]; then
    warm "$SITE"
    for i in $(seq "${CURVE_RUNS:-3}"); do
        for p in 1 2; do
            for t in 1 2 4 8; do
                r=$(SITE_LINE="$ORIGIN;$t;1000;0" crawl "$WORK/rc-curve" "DownloadingThreadsCount = $t" "ParsingThreadsCount = $p")
                note "threads parsers=$p downloaders=$t $r"
            done
        done
    done
    total=${CURVE_PAGES:-10000}
    for n in 1 10 50 200; do
        generate_multisite "$n" "$total" > "$WORK/hosts-$n.txt"
        warm "$WORK/multi/$n"
    done
    for i in $(seq "${CURVE_RUNS:-3}"); do
        for n in 1 10 50 200; do
            r=$(HOSTS_FILE="$WORK/hosts-$n.txt" crawl "$WORK/rc-sites" "${CRAWL_SETTINGS[@]}" "$(cat "$WORK/resolve-$n.ini")")
            note "sites $n $r"
        done
    done
fi
# Issue 19's memory target is for the Rust documentation itself.
case "$SITE" in
    */share/doc/rust/html) export RSS_TARGET_MB=64 ;;
esac
python3 "$BENCH_DIR/report.py" "$OUT"
if [ "${PROFILE:-1}" = 1 ] && command -v perf >/dev/null; then
    echo
    echo "where rccrawler's CPU goes (one crawl under perf):"
    bash "$BENCH_DIR/profile.sh" | tee -a "$OUT.profile"
fi
