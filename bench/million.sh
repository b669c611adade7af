#!/usr/bin/env bash
# A million sites on one machine (issue 69, item 5): SITES generated sites of about 10 pages
# (gen_many.py's `small` templates, each host s<K>-t<T>.test served from template T by one
# loopback nginx), hosts.txt of SITES lines, resolution through one `Resolve = *.test` entry,
# default settings but no crawl delay. Prints:
#   start-up     seconds from the launch to the first request (the common log's first line)
#   crawl        seconds, pages, pages/s, peak RSS (the whole run: summary.csv, the network of
#                sites, the report)
#   memory       RSS sampled every SAMPLE seconds beside the sites written so far
#                ($WORK/million-rss.txt): the slope is the memory a listed site keeps
#   exact        every site's summary.csv row against its template's (the first TEMPLATES sites
#                are the templates' own crawls): figures equal, or the sites that differ
# Environment: SITES (1000000), TEMPLATES (12), SEED (11), SAMPLE (5), BIN, EXTRA (more
# settings.ini lines, '|'-separated).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SITES=${SITES:-1000000}
TEMPLATES=${TEMPLATES:-12}
SEED=${SEED:-11}
SAMPLE=${SAMPLE:-5}
build
SMALL=$WORK/many-small-$TEMPLATES-s$SEED
[ -f "$SMALL/tpl$((TEMPLATES - 1))/index.html" ] || python3 "$BENCH_DIR/gen_many.py" "$SMALL" "$TEMPLATES" "$SEED" small
MANY_DIR=$SMALL start_many_nginx
trap stop_many EXIT
DIR=$WORK/million-rc
rm -rf "$DIR" && mkdir -p "$DIR"
python3 - "$SITES" "$TEMPLATES" "$PORT" "$DIR/hosts.txt" <<'PY'
import sys
n, t, port, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
with open(out, "w") as f:
    f.writelines(f"http://s{k}-t{k % t}.test:{port};2;100;0\n" for k in range(n))
PY
IFS='|' read -r -a EXTRA_LINES <<< "${EXTRA:-}"
{
    echo "Resolve = *.test:127.0.0.1"
    echo "DefaultCrawlDelay = 0"
    for line in "${EXTRA_LINES[@]}"; do echo "$line"; done
} > "$DIR/settings.ini"
RSS=$WORK/million-rss.txt
: > "$RSS"
start=$(date +%s%N)
(cd "$DIR" && exec /usr/bin/time -f "%M %U %S" -o "$DIR/time" "$BIN" > "$DIR/out" 2> "$DIR/err") &
runner=$!
# The crawler is the time's child: sample its RSS and the sites written (summary.csv's rows).
sleep 0.5
pid=$(pgrep -n -f "^$BIN" || true)
while kill -0 "$runner" 2>/dev/null; do
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    written=$( [ -f "$DIR/results/summary.csv" ] && wc -l < "$DIR/results/summary.csv" || echo 1)
    echo "$(( ($(date +%s%N) - start) / 1000000000 )) ${rss:-0} $((written - 1))" >> "$RSS"
    sleep "$SAMPLE"
done
wait "$runner" || { echo "the crawl failed:"; tail -5 "$DIR/err"; exit 1; }
end=$(date +%s%N)
python3 - "$DIR" "$start" "$end" "$TEMPLATES" "$RSS" <<'PY'
import csv, datetime, re, statistics, sys
d, start, end, t, rss_file = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
secs = (end - start) / 1e9
peak_kb = int(open(f"{d}/time").read().split()[0])
# Start-up: the common log's first request (its Time, ISO 8601 UTC) after the launch.
first = None
try:
    with open(f"{d}/logs/common_log.csv") as f:
        f.readline()
        stamp = f.readline().split(",")[0]
    first = datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp()
except (OSError, ValueError):
    pass
startup = f"{first - start / 1e9:.1f}" if first else "?"
rows = list(csv.DictReader(open(f"{d}/results/summary.csv")))
pages = sum(int(r["Pages"]) for r in rows)
print(f"start-up {startup} s (to the first request)")
print(f"crawl sites={len(rows)} seconds={secs:.1f} pages={pages} pages_per_s={pages / secs:.0f} peak_rss_mb={peak_kb / 1024:.1f}")
# Memory against sites written while the crawl ran (before the end's tables).
samples = [tuple(map(int, l.split())) for l in open(rss_file) if len(l.split()) == 3]
during = [(w, kb) for _, kb, w in samples if w > 0]
if len(during) > 4:
    lo, hi = during[len(during) // 5], during[-2]
    if hi[0] > lo[0]:
        print(f"memory {lo[1] / 1024:.0f} MB at {lo[0]} sites written, {hi[1] / 1024:.0f} MB at {hi[0]}: "
              f"{(hi[1] - lo[1]) * 1024 / (hi[0] - lo[0]):.0f} bytes a site written")
# Exact: every site's figures equal its template's (the first t rows are s0..s<t-1>).
# Seconds and TLP (seconds × fetches) are times, not figures of the graph.
skip = {"Site", "Folder", "Seconds", "Home", "TLP"}
key = [k for k in rows[0] if k not in skip]
ref = {}
bad = []
for r in rows:
    k = int(re.match(r"https?://s(\d+)-", r["Site"])[1])
    fig = tuple(r[c] for c in key)
    if k < t:
        ref[k] = fig
    elif fig != ref.get(k % t):
        bad.append(r["Site"])
print(f"exact {len(rows) - len(bad)} of {len(rows)} rows equal their template's ({', '.join(key)})"
      + (f"; differ: {bad[:5]}" if bad else ""))
PY
