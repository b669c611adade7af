#!/usr/bin/env bash
# A shared crawl against a solo one on many slow sites (issue 48): SITES sites of the many-site
# web (bench/many_sites.sh's templates, every answer after LATENCY seconds), `;2;LEVEL;0`,
# default settings apart from the DataManager, against a private PostgreSQL server this script
# starts (default settings: fsync on) in bench/work/pg-many. Each round, in an order that
# rotates from round to round:
#   memory      DataManager = BMICDM, one process
#   pgdm_1      DataManager = PgDM, one process
#   pgdm_2      DataManager = PgDM, two processes on this machine, ScopesPerProcess = SITES/2
# Wall time is start to exit (of the last process), results written; pages are summary.csv's;
# cpu_s is the crawler processes' CPU seconds (user + system) and pg_cpu_s the PostgreSQL
# server's over the run (its processes, ended ones included): on one machine both share it;
# wal_mb the write-ahead log the server wrote.
# Prints every run, then medians and the ratios issue 48 sets targets for: pgdm_1 pages/s
# >= 0.8 x memory's, pgdm_2 not slower than pgdm_1. Then, once, SCALE_SITES (default "500
# 4000") sites of the fast server, whole (maxCrawlLevel 100), with PgDM and in memory: peak RSS
# and its growth per site between the two counts (SPEC §11: within 2 KB a site). PG_STATS=1 also prints the statements
# where the server spent its time (pg_stat_statements) for the last PgDM run.
# With BASE_BIN, every row is also run with that binary (labels ending in _base; its PgDM runs
# in a database of their own, since the two binaries may know different schema versions), in
# the same rounds, and the ratios to it are printed.
# Environment: SITES (1000), LEVEL (3), LATENCY (0.1), RUNS (3), BIN, BASE_BIN, ROWS (which rows:
# "memory pgdm_1 pgdm_2"), PG_OPTS (more server -c options), WRAP (a command each crawl runs
# under, such as "perf record -g -o perf.data --").
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SITES=${SITES:-1000}
LEVEL=${LEVEL:-3}
RUNS=${RUNS:-3}
ROWS=${ROWS:-memory pgdm_1 pgdm_2}
PGPORT=${PGPORT:-18471}
OUT=$WORK/pg-many-results.txt
: > "$OUT"
note() { echo "$*" | tee -a "$OUT"; }

build
start_many_nginx
if [ "${PG_STATS:-0}" = 1 ]; then
    PG_OPTS="${PG_OPTS:-} -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"
fi
start_private_pg "$PGPORT" "$WORK/pg-many"
trap 'stop_pg; stop_many' EXIT
if [ "${PG_STATS:-0}" = 1 ]; then
    "$PGBIN/psql" -q "$DB" -c "CREATE EXTENSION pg_stat_statements" >/dev/null
fi
many_hosts "$SITES" "$SLOW_PORT" "$LEVEL" 0
HOSTS=$WORK/many-hosts-$SITES-$SLOW_PORT.txt
RESOLVE=$(cat "$WORK/many-resolve-$SITES.txt")
note "== $(nproc) cores; $SITES sites, ;2;$LEVEL;0, answers after ${LATENCY}s; PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') (fsync on); $RUNS rounds"

# run LABEL N [settings...]: N processes (in folders of their own) crawl one crawl; prints
# "LABEL seconds=S pages=P pages_per_s=R rss_mb=M cpu_s=C pg_cpu_s=G wal_mb=W" (M: the
# largest process's peak RSS).
# Each run crawls into folders never used before, kept until the next start of this script:
# deleting thousands of result files just before creating as many made ext4 (no journal, as
# on these machines) spend a fifth of the crawler's CPU time looking past recently deleted
# inodes (perf: ext4_create -> recently_deleted), a cost of the benchmark, not the crawler.
# The last start's folders are deleted when this one ends.
RUNS_DIR=$WORK/pg-many-runs
rm -rf "$RUNS_DIR.old"
[ -d "$RUNS_DIR" ] && mv "$RUNS_DIR" "$RUNS_DIR.old"
trap 'stop_pg; stop_many; rm -rf "$RUNS_DIR.old"' EXIT
RUN_NO=0
run() {
    local label=$1 n=$2; shift 2
    local i dir start end pids=() base
    RUN_NO=$((RUN_NO + 1))
    base=$RUNS_DIR/$RUN_NO-$label
    for i in $(seq "$n"); do
        dir=$base-p$i && mkdir -p "$dir"
        cp "$HOSTS" "$dir/hosts.txt"
        printf '%s\n' "ProgressSeconds = 1" "$RESOLVE" "$@" > "$dir/settings.ini"
    done
    local pg0 wal0
    pg0=$(pg_cpu)
    wal0=$(pg_wal)
    start=$(date +%s%N)
    for i in $(seq "$n"); do
        (cd "$base-p$i" && /usr/bin/time -f "%M %U %S" -o rss ${WRAP:-} "$BIN" > out 2> err) &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    end=$(date +%s%N)
    local pages=0 rss=0 cpu=0 p r
    for i in $(seq "$n"); do
        dir=$base-p$i
        p=$(awk -F, 'NR>1 {s+=$3} END {print s+0}' "$dir/results/summary.csv")
        # A shared crawl's processes each list the sites they crawled (and the others' as
        # crawled elsewhere, with no pages): the sum is the crawl's.
        pages=$((pages + p))
        r=$(awk '{print $1}' "$dir/rss"); [ "$r" -gt "$rss" ] && rss=$r
        cpu=$(awk -v c="$cpu" '{printf "%.2f", c + $2 + $3}' "$dir/rss")
    done
    note "$label seconds=$(awk "BEGIN {printf \"%.3f\", ($end - $start) / 1e9}") pages=$pages pages_per_s=$(awk "BEGIN {printf \"%.0f\", $pages / (($end - $start) / 1e9)}") rss_mb=$(awk "BEGIN {printf \"%.1f\", $rss / 1024}") cpu_s=$cpu pg_cpu_s=$(awk -v a="$pg0" -v b="$(pg_cpu)" 'BEGIN {printf "%.2f", b - a}') wal_mb=$(awk -v a="$wal0" -v b="$(pg_wal)" 'BEGIN {printf "%.1f", (b - a) / 1048576}')"
}
# Bytes of write-ahead log the server wrote so far (what it syncs to disk).
pg_wal() { "$PGBIN/psql" -At "$DB" -c "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn"; }
# The server's CPU seconds so far: the postmaster's and its ended children's (backends).
pg_cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15 + $16 + $17) / hz}' "/proc/$(head -1 "$PG/data/postmaster.pid")/stat"; }
if [ -n "${BASE_BIN:-}" ]; then
    "$PGBIN/psql" -q "$DB" -c "CREATE DATABASE base" >/dev/null
fi
MAIN_BIN=$BIN
MAIN_DB=$DB
for i in $(seq "$RUNS"); do
    memory() { [[ " $ROWS " == *" memory "* ]] && run "memory$S" 1 "DataManager = BMICDM"; return 0; }
    pg1() { [[ " $ROWS " == *" pgdm_1 "* ]] || return 0; run "pgdm_1$S" 1 "DataManager = PgDM" "DatabaseUrl = $DB" "CrawlName = one-$i-$$"; }
    pg2() { [[ " $ROWS " == *" pgdm_2 "* ]] || return 0; run "pgdm_2$S" 2 "DataManager = PgDM" "DatabaseUrl = $DB" "CrawlName = two-$i-$$" "ScopesPerProcess = $((SITES / 2))"; }
    rows() {
        case $((i % 3)) in
            1) memory; pg1; pg2 ;;
            2) pg1; pg2; memory ;;
            0) pg2; memory; pg1 ;;
        esac
    }
    with_base() { S=_base BIN=$BASE_BIN DB=${MAIN_DB%/*}/base; rows; S="" BIN=$MAIN_BIN DB=$MAIN_DB; }
    S=""
    if [ -z "${BASE_BIN:-}" ]; then
        rows
    elif [ $((i % 2)) = 1 ]; then
        rows; with_base
    else
        with_base; rows
    fi
done
# SPEC §11's memory figure for PgDM: the fast server's sites, whole.
for n in ${SCALE_SITES-500 4000}; do
    many_hosts "$n" "$PORT" 100 0
    HOSTS=$WORK/many-hosts-$n-$PORT.txt
    RESOLVE=$(cat "$WORK/many-resolve-$n.txt")
    run "scale_memory_$n" 1 "DataManager = BMICDM"
    run "scale_pgdm_$n" 1 "DataManager = PgDM" "DatabaseUrl = $DB" "CrawlName = scale-$n-$$"
done
if [ "${PG_STATS:-0}" = 1 ]; then
    note "== where the server spent its time (all PgDM runs, top 15 statements by total time)"
    "$PGBIN/psql" -q "$DB" -A -F ' | ' -c "SELECT calls, round(total_exec_time::numeric, 1) AS total_ms, round(mean_exec_time::numeric, 3) AS mean_ms, left(regexp_replace(query, '\s+', ' ', 'g'), 110) AS query FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 15" | tee -a "$OUT"
fi
python3 - "$OUT" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) seconds=([\d.]+) pages=(\d+) pages_per_s=(\d+) rss_mb=([\d.]+) cpu_s=([\d.]+) pg_cpu_s=([\d.-]+)", line)
    if m:
        runs.setdefault(m[1], []).append((float(m[2]), int(m[3]), int(m[4]), float(m[5]), float(m[6]), float(m[7])))
if not runs:
    sys.exit(0)
print("\nmedians over the rounds")
med = {}
for label in ("memory", "pgdm_1", "pgdm_2", "memory_base", "pgdm_1_base", "pgdm_2_base"):
    if label in runs:
        v = runs[label]
        med[label] = statistics.median(r[2] for r in v)
        print(f"  {label:<8} {statistics.median(r[0] for r in v):>7.2f} s  {med[label]:>6.0f} pages/s  "
              f"{statistics.median(r[3] for r in v):>6.1f} MB  cpu {statistics.median(r[4] for r in v):>5.1f} s  "
              f"server cpu {statistics.median(r[5] for r in v):>5.1f} s  pages {sorted(set(r[1] for r in v))}")
        if not label.startswith("memory"):
            us = statistics.median(r[5] / r[1] * 1e6 for r in v)
            print(f"           server: {us:.0f} us of CPU a page ({1e6 / us:,.0f} pages/s a server core)")
if "memory" in med and "pgdm_1" in med:
    r = med["pgdm_1"] / med["memory"]
    print(f"  pages/s pgdm_1 / memory = {r:.2f}  (target >= 0.8: {'met' if r >= 0.8 else 'MISSED'})")
for label in ("memory", "pgdm_1", "pgdm_2"):
    if label in med and label + "_base" in med:
        print(f"  pages/s {label} / {label}_base = {med[label] / med[label + '_base']:.2f}")
if "pgdm_1_base" in med and "memory_base" in med:
    print(f"  (base: pgdm_1 / memory = {med['pgdm_1_base'] / med['memory_base']:.2f}, pgdm_2 / pgdm_1 = {med.get('pgdm_2_base', 0) / med['pgdm_1_base']:.2f})")
scale = {k: v[0] for k, v in runs.items() if k.startswith("scale_")}
for kind in ("memory", "pgdm"):
    sizes = sorted(int(k.rsplit("_", 1)[1]) for k in scale if k.startswith(f"scale_{kind}_"))
    for n in sizes:
        r = scale[f"scale_{kind}_{n}"]
        print(f"  {kind:<6} {n:>5} fast sites  {r[0]:>6.2f} s  {r[2]:>6} pages/s  peak {r[3]:>6.1f} MB")
    if len(sizes) >= 2:
        lo, hi = scale[f"scale_{kind}_{sizes[0]}"], scale[f"scale_{kind}_{sizes[-1]}"]
        per = (hi[3] - lo[3]) * 1024 / (sizes[-1] - sizes[0])
        print(f"  {kind:<6} peak RSS grows {per:.2f} KB a site from {sizes[0]} to {sizes[-1]} sites  (target <= 2: {'met' if per <= 2 else 'MISSED'})")
if "pgdm_1" in med and "pgdm_2" in med:
    r = med["pgdm_2"] / med["pgdm_1"]
    print(f"  pages/s pgdm_2 / pgdm_1 = {r:.2f}  (target >= 1.0, within noise: {'met' if r >= 0.95 else 'MISSED'})")
PY
