#!/usr/bin/env bash
# The cost of durability (issue 3): the same crawl of the generated site with SaveState = 1
# (journal flushed every 100 ms, fsynced every second, snapshot on stop) and SaveState = 0,
# alternating, RUNS times each. Prints pages/s medians and their ratio.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
build
start_nginx
: > "$WORK/durability.txt"
for i in $(seq "$RUNS"); do
    for save in 1 0; do
        r=$(crawl "$WORK/dur-$save" "SaveState = $save")
        echo "$save $r" | tee -a "$WORK/durability.txt"
    done
done
python3 - "$WORK/durability.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def med(save, col): return statistics.median(float(r[col]) for r in rows if r[0] == save)
on, off = med("1", 1), med("0", 1)
pages = rows[0][2]
print(f"pages: {pages}; median seconds: SaveState=1 {on:.2f}, SaveState=0 {off:.2f}")
print(f"median pages/s: on {int(pages)/on:.0f}, off {int(pages)/off:.0f}; throughput cost of durability {100*(on/off-1):.1f}%")
print(f"median peak RSS: on {med('1', 3)/1024:.0f} MB, off {med('0', 3)/1024:.0f} MB")
PY
