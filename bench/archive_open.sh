#!/usr/bin/env bash
# A continued crawl's opening of its archive (issue 69 item 1): the Rust documentation (SITE)
# crawled with Archive = warc and ArchiveFileMB = 20, then its archive folder opened as a
# continued crawl opens it — by the finished files' side indexes, and with them set aside,
# every file scanned (what earlier versions did) — ROUNDS times each (examples/archive_open.rs).
# Prints each round and the medians.
# Environment: SITE (the Rust documentation), ROUNDS (3), THREADS (16).
set -euo pipefail
SITE=${SITE:-$(rustc --print sysroot)/share/doc/rust/html}
source "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-16}
build
start_nginx >/dev/null
trap stop_nginx EXIT
SITE_LINE="http://127.0.0.1:$PORT;$THREADS;1000;0" crawl "$WORK/archive-open" \
    "DownloadingThreadsCount = $THREADS" "Archive = warc" "ArchiveFileMB = 20" > /dev/null
ARCH=$WORK/archive-open/results/archive
echo "archive: $(ls "$ARCH"/*.warc.gz | wc -l) files, $(du -sm "$ARCH" | cut -f1) MB"
"$ROOT/target/release/examples/archive_open" "$ARCH" "$ROUNDS" | tee "$WORK/archive-open.txt"
for kind in sides scan; do
    echo "$kind median $(awk -v k=$kind '$1 == k {print $2}' "$WORK/archive-open.txt" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') s"
done
