#!/usr/bin/env bash
# PgDM benchmarks (issue 11), against a private PostgreSQL server this script starts (default
# settings: fsync on) in bench/work/pg, and nginx serving generated sites on 127.0.0.1:
#   1. the generated site (PAGES pages, as bench/run.sh) crawled with DataManager = BMICDM
#      and PgDM, alternately, RUNS times: wall time and peak RSS, medians, and whether both
#      wrote byte-identical result files;
#   2. SITES sites of SITE_PAGES pages each shared by 1, 2 and 3 processes on this machine
#      (wall time until the last process ends; the crawl is bound by this machine's cores,
#      which all processes share);
#   3. the same with 3 processes each in its own network namespace (ip netns + veth), reaching
#      PostgreSQL and nginx over its veth link as separate machines would (root only).
# Environment: PAGES (50000), RUNS (3), SITES (24), SITE_PAGES (1000), NETNS (1), PARTS (123:
# which of the three to run).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-3}
SITES=${SITES:-24}
SITE_PAGES=${SITE_PAGES:-1000}
NETNS=${NETNS:-1}
PARTS=${PARTS:-123}
PGPORT=${PGPORT:-18470}
PG=$WORK/pg
OUT=$WORK/pg-results.txt
: > "$OUT"
note() { echo "$*" | tee -a "$OUT"; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# --- PostgreSQL ---------------------------------------------------------------------------
cleanup() { stop_pg; stop_nginx; netns_down; }
netns_down() { for i in 1 2 3; do ip netns del "rcbench$i" 2>/dev/null || true; ip link del "rcb$i" 2>/dev/null || true; done; }
start_private_pg "$PGPORT" "$WORK/pg"

build
start_nginx
trap cleanup EXIT
note "== $(nproc) cores; PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') (fsync on) on 127.0.0.1:$PGPORT"

# --- 1. one site: BMICDM vs PgDM ------------------------------------------------------------
SET=("DownloadingThreadsCount = 8" "ParsingThreadsCount = $(nproc)")
if [[ $PARTS == *1* ]]; then
find "$SITE" -type f -exec cat {} + > /dev/null
crawl "$WORK/pg-mem" "${SET[@]}" > /dev/null
note "== 1. the generated site, $PAGES pages: BMICDM vs PgDM, $RUNS alternating rounds"
for i in $(seq "$RUNS"); do
    mem() { note "bmicdm $(crawl "$WORK/pg-mem" "${SET[@]}")"; }
    pgdm() { note "pgdm $(crawl "$WORK/pg-pg" "${SET[@]}" "DataManager = PgDM" "DatabaseUrl = $DB" "CrawlName = site-$i-$$")"; }
    if [ $((i % 2)) = 1 ]; then mem; pgdm; else pgdm; mem; fi
    if diff -r -q -x summary.csv -x yield.csv "$WORK/pg-mem/results" "$WORK/pg-pg/results" >&2; then
        note "identical_results 1"
    else
        note "identical_results 0"
    fi
done
for k in bmicdm pgdm; do
    t=$(awk -v k=$k '$1==k {print $2}' "$OUT" | median)
    m=$(awk -v k=$k '$1==k {print $4}' "$OUT" | median)
    note "median $k seconds $t peak_rss_mb $(awk "BEGIN {printf \"%.0f\", $m / 1024}")"
done
tm=$(awk '$1=="median" && $2=="bmicdm" {print $4}' "$OUT")
tp=$(awk '$1=="median" && $2=="pgdm" {print $4}' "$OUT")
note "ratio pgdm/bmicdm $(awk "BEGIN {printf \"%.3f\", $tp / $tm}")"
fi

# --- 2. many sites, 1 / 2 / 3 processes -----------------------------------------------------
generate_multisite "$SITES" $((SITES * SITE_PAGES)) > "$WORK/pg-hosts.txt"
RESOLVE=$(cat "$WORK/resolve-$SITES.ini")
# shared N NAME: N processes crawl one crawl; prints seconds until the last ends, then each
# process's pages and peak RSS. With NS=1, process i runs in network namespace rcbench<i> and
# reaches nginx and PostgreSQL at 10.77.<i>.1, the root namespace's end of its veth link.
shared() {
    local n=$1 name=$2
    local start end pids=() i dir addr
    for i in $(seq "$n"); do
        dir=$WORK/pg-p$i && rm -rf "$dir" && mkdir -p "$dir"
        addr=127.0.0.1
        if [ "${NS:-0}" = 1 ]; then addr=10.77.$i.1; fi
        cp "$WORK/pg-hosts.txt" "$dir/hosts.txt"
        printf '%s\n' "ProgressSeconds = 3600" "${RESOLVE//127.0.0.1/$addr}" "DataManager = PgDM" \
            "DatabaseUrl = ${DB/127.0.0.1/$addr}" "CrawlName = $name" "DownloadingThreadsCount = 8" \
            "ParsingThreadsCount = $(nproc)" > "$dir/settings.ini"
    done
    start=$(date +%s%N)
    for i in $(seq "$n"); do
        dir=$WORK/pg-p$i
        if [ "${NS:-0}" = 1 ]; then
            (cd "$dir" && ip netns exec "rcbench$i" /usr/bin/time -f "%M" -o rss "$BIN" > out 2> err) &
        else
            (cd "$dir" && /usr/bin/time -f "%M" -o rss "$BIN" > out 2> err) &
        fi
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    end=$(date +%s%N)
    local per=""
    for i in $(seq "$n"); do
        dir=$WORK/pg-p$i
        per="$per p$i:$(awk -F, 'NR>1 {s+=$3} END {print s+0}' "$dir/results/summary.csv")pages/$(($(cat "$dir/rss") / 1024))MB"
    done
    echo "$(awk "BEGIN {printf \"%.3f\", ($end - $start) / 1e9}")$per"
}
if [[ $PARTS == *2* ]]; then
note "== 2. $SITES sites of $SITE_PAGES pages shared by 1, 2, 3 processes (seconds to the end of the last; pages and peak RSS per process), $RUNS rounds"
for i in $(seq "$RUNS"); do
    note "one_bmicdm $(HOSTS_FILE=$WORK/pg-hosts.txt crawl "$WORK/pg-many" "$RESOLVE" "DownloadingThreadsCount = 8" "ParsingThreadsCount = $(nproc)")"
    for n in 1 2 3; do
        note "processes_$n $(shared "$n" "many-$n-$i-$$")"
    done
done
for k in one_bmicdm processes_1 processes_2 processes_3; do
    note "median $k seconds $(awk -v k=$k '$1==k {print $2}' "$OUT" | median)"
done
fi

# --- 3. three processes in three network namespaces ------------------------------------------
if [[ $PARTS == *3* ]] && [ "$NETNS" = 1 ] && [ "$(id -u)" = 0 ]; then
    netns_down
    for i in 1 2 3; do
        ip netns add "rcbench$i"
        ip link add "rcb$i" type veth peer name eth0 netns "rcbench$i"
        ip addr add "10.77.$i.1/24" dev "rcb$i" && ip link set "rcb$i" up
        ip netns exec "rcbench$i" ip addr add "10.77.$i.2/24" dev eth0
        ip netns exec "rcbench$i" ip link set eth0 up
        ip netns exec "rcbench$i" ip link set lo up
        ip netns exec "rcbench$i" ip route add default via "10.77.$i.1"
    done
    # nginx answers on every address, for the namespaces (restarted: a reload cannot move
    # a socket bound to 127.0.0.1 to the wildcard address).
    sed -i "s/listen 127.0.0.1:$PORT/listen $PORT/" "$WORK/nginx.conf"
    stop_nginx
    /usr/sbin/nginx -c "$WORK/nginx.conf"
    note "== 3. 3 processes in 3 network namespaces over veth (each reaches nginx and PostgreSQL at 10.77.N.1), $RUNS rounds"
    for i in $(seq "$RUNS"); do
        note "netns_3 $(NS=1 shared 3 "netns-$i-$$")"
    done
    note "median netns_3 seconds $(awk '$1=="netns_3" {print $2}' "$OUT" | median)"
fi
