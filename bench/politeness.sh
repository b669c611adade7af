#!/usr/bin/env bash
# Politeness against its bound (issue 4): SITES local sites of different sizes (site k has
# 5(k+1) generated pages plus its index pages and aliases), each allowing one download at a
# time with a delay of DELAY_MS between request starts, crawled at once by rccrawler with the
# default downloader pool. The bound on wall time is the largest per-site number of requests
# (robots.txt included, as nginx logged them) times the delay: no crawler that keeps the
# delay can finish sooner. (SPEC's delay is between any two request starts of a site, so
# allowing c > 1 downloads does not divide it by c; the sites allow c = 1, where both readings
# agree.) Prints the ratio wall / bound, the smallest server-side gap between two request
# starts of a site, and the peak thread count (sampled from /proc every 20 ms).
# Environment: SITES (20), DELAY_MS (250), RUNS (3).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SITES=${SITES:-20}
DELAY_MS=${DELAY_MS:-250}
RUNS=${RUNS:-3}
build
start_nginx
if [ ! -f "$WORK/polite/$((SITES - 1))/index.html" ]; then
    for k in $(seq 0 $((SITES - 1))); do
        python3 "$BENCH_DIR/gen_site.py" "$WORK/polite/$k" $((5 * (k + 1))) "$k" > /dev/null
    done
fi
hosts=$WORK/polite-hosts.txt
resolve=""
: > "$hosts"
for k in $(seq 0 $((SITES - 1))); do
    echo "http://polite$k.test:$PORT;1;1000;$DELAY_MS" >> "$hosts"
    resolve="$resolve${resolve:+,}polite$k.test:127.0.0.1"
done
dir=$WORK/rc-polite
for run in $(seq "$RUNS"); do
    rm -rf "$dir" && mkdir -p "$dir"
    : > "$WORK/polite-access.log"
    cp "$hosts" "$dir/hosts.txt"
    printf 'ProgressSeconds = 3600\nResolve = %s\n' "$resolve" > "$dir/settings.ini"
    start=$(date +%s%N)
    (cd "$dir" && exec "$BIN" > out 2> err) &
    pid=$!
    peak=0
    while kill -0 "$pid" 2>/dev/null; do
        t=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
        [ "${t:-0}" -gt "$peak" ] && peak=$t
        sleep 0.02
    done
    wait "$pid"
    end=$(date +%s%N)
    # nginx's access log: host, end of request (s, ms resolution), request time (s).
    python3 - "$WORK/polite-access.log" "$DELAY_MS" "$(( (end - start) / 1000000 ))" "$peak" <<'PY'
import sys
from collections import defaultdict
log, delay_ms, wall_ms, peak = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
starts = defaultdict(list)
for line in open(log):
    host, end, took = line.split()
    starts[host].append(float(end) - float(took))
requests = {s: len(v) for s, v in starts.items()}
gaps = [min(b - a for a, b in zip(sorted(v), sorted(v)[1:])) for v in starts.values() if len(v) > 1]
bound_ms = max(requests.values()) * delay_ms
print(f"sites {len(requests)}  requests {sum(requests.values())} (largest site {max(requests.values())})"
      f"  wall {wall_ms / 1000:.2f} s  bound {bound_ms / 1000:.2f} s  ratio {wall_ms / bound_ms:.3f}"
      f"  smallest gap {min(gaps) * 1000:.0f} ms (server side, 1 ms resolution)  peak threads {peak}")
PY
done
