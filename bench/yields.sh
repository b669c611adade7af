#!/usr/bin/env bash
# The budget rules (SPEC §5) on real and synthetic reward sequences: builds the data sets,
# replays every rule on each with `rccrawler replay --budget 500,2000,10000`, and prints each
# rule's mean fraction of the exact oracle per data set and budget (Markdown tables).
#
# Real sequences are crawled by rccrawler from sites nginx serves on 127.0.0.1:
#   rustdoc      the Rust documentation installed with the toolchain (about 31,000 pages),
#                one crawl split into its top-level sections (std, core, book, cargo, ...)
#   rustdoc-all  the same, every external link counted (the paper's X(i, j))
#   localdocs    every HTML documentation tree on this machine served as a site of its own
#                (each Rust book and crate, node, valgrind, libxslt, ..., this crate's
#                `cargo doc`): a real multi-site crawl
#   gensite      bench/gen_site.py's site with skewed external links, split into sections
#   docmix       40 problems of 10 or 20 sites drawn from the real sequences (second-level
#                sections of the Rust documentation and the localdocs sites)
#   realmix      the same with the gensite sections in the pool
# Synthetic families (bench/yield_families.py, SEEDS seeds each): institutes, universities,
# sample (the BeeBot paper's Table 1), heavytail and testweb (footers, deep lists, late starters).
#
# usage: bash bench/yields.sh            (RULES=R1,R2 to replay some rules only)
# Figures go to stdout; the data sets and replay CSVs stay in bench/work/yields/.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SEEDS=${SEEDS:-20}
BUDGETS=${BUDGETS:-500,2000,10000}
YPORT=${YPORT:-18490}
Y=$WORK/yields
RUSTDOC=${RUSTDOC:-$(rustc --print sysroot)/share/doc/rust/html}
mkdir -p "$Y/data" "$Y/out" "$Y/roots"

build
ensure_nginx

# The documentation trees of this machine, one site each: name -> folder, home path.
declare -A HOME_OF
add_root() { # name folder home
    [ -f "$2/${3#/}" ] || return 0
    ln -sfn "$2" "$Y/roots/$1"
    HOME_OF[$1]=$3
}
if [ -d "$RUSTDOC" ]; then
    for d in "$RUSTDOC"/*/; do
        n=$(basename "$d")
        add_root "rust-${n//_/-}" "$d" /index.html
    done
fi
add_root node /usr/share/doc/nodejs/api /index.html
add_root valgrind /usr/share/doc/valgrind/html /index.html
add_root libxslt /usr/share/doc/libxslt1-dev/html /index.html
add_root libffi /usr/share/doc/libffi8/html /index.html
if [ ! -f "$ROOT/target/doc/rccrawler/index.html" ]; then
    (cd "$ROOT" && cargo doc -q 2>/dev/null) || true
fi
add_root cargo-doc "$ROOT/target/doc" /rccrawler/index.html

if [ ! -f "$Y/gensite/index.html" ]; then
    python3 "$BENCH_DIR/gen_site.py" "$Y/gensite" 20000 11 skewed
fi

user_line=""
if [ "$(id -u)" = 0 ]; then user_line="user root;"; fi
# A tree whose home page is not /index.html: / redirects there.
home_map=""
for n in "${!HOME_OF[@]}"; do
    [ "${HOME_OF[$n]}" = /index.html ] || home_map="$home_map $n.docs.test ${HOME_OF[$n]};"
done
cat > "$Y/nginx.conf" <<CONF
$user_line
worker_processes 2;
pid $Y/nginx.pid;
error_log $Y/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  types { text/html html htm; }
  default_type application/octet-stream;
  server { listen 127.0.0.1:$YPORT default_server; server_name rustdoc.test; root $RUSTDOC; absolute_redirect off; }
  server { listen 127.0.0.1:$YPORT; server_name gensite.test; root $Y/gensite; absolute_redirect off; }
  map \$host \$yhome { default ""; $home_map }
  server {
    listen 127.0.0.1:$YPORT; server_name ~^(?<d>[a-z0-9-]+)\.docs\.test\$; root $Y/roots/\$d; absolute_redirect off;
    location = / { if (\$yhome != "") { return 302 \$yhome; } try_files /index.html =404; }
  }
}
CONF
stop_yields_nginx() {
    if [ -f "$Y/nginx.pid" ]; then kill "$(cat "$Y/nginx.pid")" 2>/dev/null || true; rm -f "$Y/nginx.pid"; sleep 0.2; fi
}
stop_yields_nginx
/usr/sbin/nginx -c "$Y/nginx.conf"
trap stop_yields_nginx EXIT

# ycrawl NAME RESOLVE HOSTS_LINES...: an unbudgeted crawl into $Y/crawl-NAME.
ycrawl() {
    local name=$1 resolve=$2; shift 2
    local dir=$Y/crawl-$name
    rm -rf "$dir" && mkdir -p "$dir"
    printf 'ProgressSeconds = 3600\nResolve = %s\n' "$resolve" > "$dir/settings.ini"
    printf '%s\n' "$@" > "$dir/hosts.txt"
    (cd "$dir" && "$BIN" > out 2> err) || { echo "crawl $name failed:" >&2; cat "$dir/err" >&2; exit 1; }
    echo "crawled $name: $(awk -F, 'NR>1 {p+=$3; r+=$14} END {print p " pages, " r " new external links"}' "$dir/results/summary.csv")" >&2
}

sets=()
replay() { # SET INPUT [replay options]
    local set=$1 input=$2; shift 2
    local out
    out=$Y/out/$set-$(basename "$input" .csv).csv
    [ "$set" = "$(basename "$input" .csv)" ] && out=$Y/out/$set.csv
    "$BIN" replay "$input" --budget "$BUDGETS" --csv "$out" ${RULES:+--rules "$RULES"} "$@" > "${out%.csv}.txt"
    sets+=("$set=$out")
}

if [ -d "$RUSTDOC" ]; then
    ycrawl rustdoc rustdoc.test:127.0.0.1 "http://rustdoc.test:$YPORT/;8;1000;0"
    site=$(dirname "$(ls "$Y/crawl-rustdoc/results/"*/yield.csv | head -1)")
    python3 "$BENCH_DIR/yield_sections.py" "$site" "$Y/data/rustdoc.csv" Reward
    python3 "$BENCH_DIR/yield_sections.py" "$site" "$Y/data/rustdoc-all.csv" ExternalLinks
    python3 "$BENCH_DIR/yield_sections.py" "$site" "$Y/data/rustdoc-2.csv" Reward 2
    replay rustdoc "$Y/data/rustdoc.csv"
    replay rustdoc-all "$Y/data/rustdoc-all.csv"
else
    echo "no Rust documentation at $RUSTDOC (rustup component add rust-docs): rustdoc skipped" >&2
fi

hosts=() resolve=""
for n in $(printf '%s\n' "${!HOME_OF[@]}" | sort); do
    hosts+=("http://$n.docs.test:$YPORT;8;1000;0")
    resolve="$resolve${resolve:+,}$n.docs.test:127.0.0.1"
done
ycrawl localdocs "$resolve" "${hosts[@]}"
replay localdocs "$Y/crawl-localdocs/results"
replay localdocs-all "$Y/crawl-localdocs/results" --reward all

ycrawl gensite gensite.test:127.0.0.1 "http://gensite.test:$YPORT/;8;1000;0"
python3 "$BENCH_DIR/yield_sections.py" "$(dirname "$(ls "$Y/crawl-gensite/results/"*/yield.csv | head -1)")" "$Y/data/gensite.csv" Reward
replay gensite "$Y/data/gensite.csv"

# Many real problems: 10 or 20 sites drawn from the real sequences (the documentation's
# second-level sections and every documentation site), then with the generated site's
# sections in the pool too.
if [ -f "$Y/data/rustdoc-2.csv" ]; then
    rm -rf "$Y/docmix" "$Y/realmix"
    python3 "$BENCH_DIR/yield_mix.py" "$Y/docmix" $((2 * SEEDS)) "$Y/data/rustdoc-2.csv" "$Y/crawl-localdocs/results"
    python3 "$BENCH_DIR/yield_mix.py" "$Y/realmix" $((2 * SEEDS)) "$Y/data/rustdoc-2.csv" "$Y/crawl-localdocs/results" "$Y/data/gensite.csv"
    for f in "$Y/docmix"/*.csv; do replay docmix "$f"; done
    for f in "$Y/realmix"/*.csv; do replay realmix "$f"; done
fi

python3 "$BENCH_DIR/yield_families.py" "$Y/families" "$SEEDS"
for family in institutes universities sample heavytail testweb; do
    for f in "$Y/families/$family"-*.csv; do replay "$family" "$f"; done
done

python3 "$BENCH_DIR/replay_report.py" "${sets[@]}"
