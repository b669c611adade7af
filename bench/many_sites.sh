#!/usr/bin/env bash
# The many-site benchmark (SPEC §11, issue 18): thousands of sites on one loopback nginx, fast
# and slow (every answer after LATENCY seconds, nginx's echo_sleep, like remote servers). The
# sites are the templates of gen_many.py (not the documentation site the other benchmarks
# were tuned on), each host s<K>-t<T>.test served from template T.
# Prints, in one run:
#   fast N sites        pages/s and peak RSS for N in FAST_SITES (default 500 4000)
#   slow N sites        pages/s with the default settings and with DownloadingThreadsCount at
#                       MAX_THREADS, for N in SLOW_SITES (default 2000), 2 downloads at a time
#                       a site, no crawl delay (DELAY, ms) unless set; each slow crawl stops
#                       after SLOW_SECONDS (60) if it has not finished: pages/s over that time
#   budget N sites      pages/s of a budgeted crawl (PageBudget = BUDGET, 20000; 0: none) of
#                       the largest FAST_SITES, the default rule choosing every page with the
#                       pages under way believed (bandit/believer.rs): what a choice costs
#                       when thousands of sites are arms
# then the medians over the rounds and the ratios the scale issue sets targets for.
# Environment: TEMPLATES (12), SEED (11: gen_many.py's; another seed and template count give
# a held-out web of the same shape), LATENCY (0.1), RUNS (1), BIN, BASE_BIN (also crawl with that
# binary, same rounds), EXTRA (more settings.ini lines, '|'-separated).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
TEMPLATES=${TEMPLATES:-12}
SEED=${SEED:-11}
LATENCY=${LATENCY:-0.1}
RUNS=${RUNS:-1}
FAST_SITES=${FAST_SITES-"500 4000"}
SLOW_SITES=${SLOW_SITES-2000}
MAX_THREADS=${MAX_THREADS:-1024}
DELAY=${DELAY:-0}
SLOW_SECONDS=${SLOW_SECONDS:-60}
BUDGET=${BUDGET:-20000}
SLOW_PORT=$((PORT + 1))
build
start_many_nginx
trap stop_many EXIT

# hosts N PORT: hosts.txt and the Resolve line of N sites.
hosts() { many_hosts "$1" "$2" 100 "$DELAY"; }

OUT=$WORK/many-results.txt
: > "$OUT"
note() { echo "$*" | tee -a "$OUT"; }
IFS='|' read -r -a EXTRA_LINES <<< "${EXTRA:-}"
run_one() { # label bin n port settings...
    local label=$1 bin=$2 n=$3 port=$4; shift 4
    hosts "$n" "$port"
    local r
    r=$(BIN=$bin HOSTS_FILE="$WORK/many-hosts-$n-$port.txt" crawl "$WORK/many-rc" "$(cat "$WORK/many-resolve-$n.txt")" "${EXTRA_LINES[@]}" "$@")
    local secs pages rss
    read -r secs pages rss <<< "$r"
    # A budgeted crawl's own time until its budget is spent (the log's, to 0.1 s): the whole
    # run's seconds also hold the 28,000 result files written at the end, the noisiest part
    # on a shared disk.
    local spent
    spent=$(grep -o "budget spent after [0-9.]* s" "$WORK/many-rc/err" | grep -o "[0-9.]*" | head -1 || true)
    note "$label sites=$n seconds=$secs pages=$pages pages_per_s=$(awk "BEGIN {printf \"%.0f\", $pages / $secs}") rss_mb=$(awk "BEGIN {printf \"%.1f\", $rss / 1024}")${spent:+ crawl_s=$spent}"
}
for i in $(seq "$RUNS"); do
    note "round $i"
    # With BASE_BIN, which binary goes first alternates from round to round: the first crawl
    # of a pair finds the machine in another state (sockets in TIME_WAIT, caches) than the
    # second, and a fixed order showed as a 6 % difference that was not the binaries'.
    crawl_with() {
        local suffix=$1 bin=$2
        for n in $FAST_SITES; do
            run_one "fast$suffix" "$bin" "$n" "$PORT"
        done
        if [ "$BUDGET" != 0 ] && [ -n "$FAST_SITES" ]; then
            run_one "budget$suffix" "$bin" "${FAST_SITES##* }" "$PORT" "PageBudget = $BUDGET" "TimeoutSeconds = $SLOW_SECONDS"
        fi
        for n in $SLOW_SITES; do
            run_one "slow_default$suffix" "$bin" "$n" "$SLOW_PORT" "TimeoutSeconds = $SLOW_SECONDS"
            run_one "slow_max$suffix" "$bin" "$n" "$SLOW_PORT" "DownloadingThreadsCount = $MAX_THREADS" "TimeoutSeconds = $SLOW_SECONDS"
        done
    }
    if [ -z "${BASE_BIN:-}" ]; then
        crawl_with "" "$BIN"
    elif [ $((i % 2)) = 1 ]; then
        crawl_with "" "$BIN"
        crawl_with _base "$BASE_BIN"
    else
        crawl_with _base "$BASE_BIN"
        crawl_with "" "$BIN"
    fi
done

# Medians over the rounds, and the ratios the scale issue sets targets for (issue 18).
python3 - "$OUT" <<'PY'
import re, statistics, sys
runs, spent = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) sites=(\d+) .* pages_per_s=(\d+) rss_mb=([\d.]+)", line)
    if m:
        runs.setdefault((m[1], int(m[2])), []).append((int(m[3]), float(m[4])))
        c = re.search(r"crawl_s=([\d.]+)", line)
        if c:
            spent.setdefault((m[1], int(m[2])), []).append(float(c[1]))
if not runs:
    sys.exit(0)
med = {k: (statistics.median(p for p, _ in v), statistics.median(r for _, r in v)) for k, v in runs.items()}
print("\nmedians over the rounds")
for (label, n), (pps, rss) in sorted(med.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    crawl = f"  budget spent after {statistics.median(spent[label, n]):.1f} s" if (label, n) in spent else ""
    print(f"  {label:<18} {n:>6} sites  {pps:>8.0f} pages/s  {rss:>6.1f} MB{crawl}")
def ratio(what, a, b, target, higher):
    if a in med and b in med:
        i = 0 if what == "pages/s" else 1
        r = med[a][i] / med[b][i]
        ok = r >= target if higher else r <= target
        print(f"  {what} {a[0]} {a[1]} / {b[0]} {b[1]} = {r:.2f}  (target {'>=' if higher else '<='} {target}: {'met' if ok else 'MISSED'})")
fast = sorted(n for l, n in med if l == "fast")
if len(fast) >= 2:
    lo, hi = ("fast", fast[0]), ("fast", fast[-1])
    ratio("peak RSS", hi, lo, 1.3, False)
    ratio("pages/s", hi, lo, 0.8, True)
for l, n in med:
    if l == "slow_default":
        ratio("pages/s", ("slow_default", n), ("slow_max", n), 0.85, True)
PY
