#!/usr/bin/env bash
# Where a crawl's memory goes (issue 19): one crawl under heaptrack, and the heap at its peak
# by structure (links, page bodies in flight, parsing, URLs, caches, journal, result
# writing; bench/memory_split.py), with heaptrack's peak heap and peak RSS. By default the
# installed Rust documentation, as issue 19 measures it; SITE=... THREADS=... for another.
# Heaptrack slows the crawl several times: the figures are the allocations', not the time's.
set -euo pipefail
SITE=${SITE:-$(rustc --print sysroot)/share/doc/rust/html}
source "$(dirname "$0")/lib.sh"
THREADS=${THREADS:-16}
command -v heaptrack >/dev/null || apt-get install -y -q heaptrack >/dev/null
build
start_nginx
dir=$WORK/rc-memory
rm -rf "$dir" && mkdir -p "$dir"
printf 'ProgressSeconds = 3600\nDownloadingThreadsCount = %s\nParsingThreadsCount = %s\n' "$THREADS" "$(nproc)" > "$dir/settings.ini"
echo "http://127.0.0.1:$PORT;$THREADS;1000;0" > "$dir/hosts.txt"
(cd "$dir" && heaptrack -o "$dir/heap" "$BIN" > out 2> err)
heaptrack_print -f "$dir/heap.zst" --print-peaks 0 --print-allocators 0 --print-temporary 0 \
    --print-leaks 0 2>/dev/null | grep -E "peak heap|peak RSS"
heaptrack_print -f "$dir/heap.zst" --flamegraph-cost-type peak -F "$dir/peak.stacks" > /dev/null 2>&1
python3 "$BENCH_DIR/memory_split.py" "$dir/peak.stacks"
