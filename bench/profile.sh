#!/usr/bin/env bash
# Where rccrawler's CPU goes (issue 5): one crawl of the generated site under `perf record`
# (frame-pointer call graphs), each sample attributed to the innermost component on its stack —
# parse (HTML tokenizing, link extraction, charset), normalize (URL resolution and
# normalization), DataManager (graph, indexes, journal), HTTP (client, sockets, kernel
# network stack), output (result files) — and printed as shares of all samples.
# Environment: PAGES (50000), THREADS (8), FREQ (sampling Hz, 400).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
THREADS=${THREADS:-8}
FREQ=${FREQ:-400}
command -v perf >/dev/null || { echo "perf is needed (Debian: linux-perf)" >&2; exit 1; }
# Frame pointers make call graphs cheap enough to record every sample (DWARF unwinding loses
# most of them); a separate target directory keeps the normal build untouched.
PROF_TARGET=$WORK/target-fp
(cd "$ROOT" && RUSTFLAGS="-C force-frame-pointers=yes" CARGO_TARGET_DIR="$PROF_TARGET" cargo build --release --locked -q)
BIN=$PROF_TARGET/release/rccrawler
start_nginx
dir=$WORK/rc-profile
rm -rf "$dir" && mkdir -p "$dir"
printf 'ProgressSeconds = 3600\nDownloadingThreadsCount = %s\nParsingThreadsCount = %s\n' "$THREADS" "$(nproc)" > "$dir/settings.ini"
echo "http://127.0.0.1:$PORT;$THREADS;1000;0" > "$dir/hosts.txt"
(cd "$dir" && perf record -q -F "$FREQ" --call-graph fp -o "$dir/perf.data" "$BIN" > out 2> err)
perf script -i "$dir/perf.data" -F comm,period,ip,sym 2>/dev/null | python3 "$BENCH_DIR/profile_split.py"
