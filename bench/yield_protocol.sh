#!/usr/bin/env bash
# The budget rules' held-out protocol (SPEC §5, issue 20): rule parameters may be tuned on the
# TUNING sets only; the figures that decide whether the default rule is good enough come from
# the TEST sets, which no parameter was chosen on. Prints, per (set, budget) cell, every rule's
# mean fraction of the exact oracle, for both sets side by side, then checks the test set:
# exit 1 when the default rule falls below the best of the paper's rules R1-R3 by more than
# 0.01 in any test cell (the figures are printed either way).
#
#   TUNING (may be used to choose parameters)
#     institutes, universities, sample, heavytail, testweb   bench/yield_families.py, seeds 0..
#     p-institutes, p-universities, p-sample, p-directories, p-rotting
#                  bench/yield_pools.py (pages draw link identities from pools), seeds 0..
#     lt-soon, lt-deep
#                  bench/yield_late.py (late starters) with seeds 1000..
#     rustdoc      the Rust documentation (rustup's rust-docs), split into top-level sections
#     rustdoc16    its 16 largest sections (no root pages), links new to the whole crawl
#     rustdoc-all  the 20 sections, every external link counted (AllExternal)
#     gensite      bench/gen_site.py's site, split into sections
#     scipy16s     SciPy's manual (python-scipy-doc) split by module (16 largest), each counted
#                  as a site crawled on its own, as rustdoc16s is (added on 2026-11-27: the
#                  tuning split had no sections counted on their own)
#   TEST (never used for tuning)
#     h-institutes, h-universities, h-sample                 bench/yield_heldout.py: another
#                  generator (a link graph, not a reward series) and other seeds
#     t-institutes, t-universities, t-sample, t-directories, t-rotting
#                  bench/yield_pools.py with seeds 1000.. (never tuned on)
#     late-soon, late-deep
#                  bench/yield_late.py: sites that pay early and rot beside sites that pay
#                  nothing for hundreds of pages, then steadily (late starters), seeds 0..
#     rustdoc16s   the 16 largest sections of the Rust documentation, each counted as a site
#                  crawled on its own (a link is new once per section): another split, and
#                  other rewards, than the tuning set's
#     django       Django's manual (Debian's python-django-doc) split into top-level sections
#     pgdoc        the PostgreSQL 15 manual (postgresql-doc-15), split by file-name prefix
#     testdocs     one multi-site crawl of every held-out manual (Django, PostgreSQL, Python,
#                  Sphinx, Git, Ruby), each a site of its own
# Real manuals are installed from Debian's packages when missing; a cell whose sequences hold
# no more pages than its budget is left out (every rule would take everything).
#
# usage: bash bench/yield_protocol.sh     (SEEDS=20, BUDGETS=500,2000,10000, RULES=...,
#        IN_FLIGHT=1: choices made that many pages ahead of their rewards, as a crawl with
#        that many downloaders makes them; the check still applies)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SEEDS=${SEEDS:-20}
BUDGETS=${BUDGETS:-500,2000,10000}
YPORT=${YPORT:-18491}
P=$WORK/protocol
RUSTDOC=${RUSTDOC:-$(rustc --print sysroot)/share/doc/rust/html}
IN_FLIGHT=${IN_FLIGHT:-1}
OUT=$P/out
[ "$IN_FLIGHT" = 1 ] || OUT=$P/out-$IN_FLIGHT
mkdir -p "$P/data" "$OUT" "$P/roots"

build
ensure_nginx
PACKAGES="python-django-doc postgresql-doc-15 python3-doc sphinx-doc git-doc ruby3.1-doc python-scipy-doc python-pandas-doc"
missing=""
for p in $PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
    echo "installing$missing (Debian's manuals for the test set)..." >&2
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 \
        || (apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $missing >/dev/null)
fi

declare -A HOME_OF
add_root() { # name folder
    [ -f "$2/index.html" ] || { echo "no $2/index.html: $1 left out" >&2; return 0; }
    ln -sfn "$2" "$P/roots/$1"
    HOME_OF[$1]=1
}
add_root django /usr/share/doc/python-django-doc/html
add_root pgdoc /usr/share/doc/postgresql-doc-15/html
add_root python /usr/share/doc/python3/html
add_root sphinx /usr/share/doc/sphinx-doc/html
add_root git /usr/share/doc/git-doc
add_root ruby /usr/share/doc/ruby3.1-doc/html
# A tuning manual: served like the others, never part of the test set's crawl of them.
SCIPY=/usr/share/doc/python-scipy-doc/html
[ -f "$SCIPY/index.html" ] && ln -sfn "$SCIPY" "$P/roots/scipy"
PANDAS=/usr/share/doc/python-pandas-doc/html
[ -f "$PANDAS/index.html" ] && ln -sfn "$PANDAS" "$P/roots/pandas"
[ -f "$P/gensite/index.html" ] || python3 "$BENCH_DIR/gen_site.py" "$P/gensite" 20000 11 skewed

user_line=""
if [ "$(id -u)" = 0 ]; then user_line="user root;"; fi
cat > "$P/nginx.conf" <<CONF
$user_line
worker_processes 2;
pid $P/nginx.pid;
error_log $P/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  types { text/html html htm; }
  default_type application/octet-stream;
  server { listen 127.0.0.1:$YPORT default_server; server_name rustdoc.test; root $RUSTDOC; absolute_redirect off; }
  server { listen 127.0.0.1:$YPORT; server_name gensite.test; root $P/gensite; absolute_redirect off; }
  server { listen 127.0.0.1:$YPORT; server_name ~^(?<d>[a-z0-9-]+)\.docs\.test\$; root $P/roots/\$d; absolute_redirect off; }
}
CONF
stop_protocol_nginx() {
    if [ -f "$P/nginx.pid" ]; then kill "$(cat "$P/nginx.pid")" 2>/dev/null || true; rm -f "$P/nginx.pid"; sleep 0.2; fi
}
stop_protocol_nginx
/usr/sbin/nginx -c "$P/nginx.conf"
trap stop_protocol_nginx EXIT

# pcrawl NAME RESOLVE HOSTS_LINES...: an unbudgeted crawl into $P/crawl-NAME (kept between
# runs: the manuals do not change).
pcrawl() {
    local name=$1 resolve=$2; shift 2
    local dir=$P/crawl-$name
    [ -f "$dir/results/summary.csv" ] && return 0
    rm -rf "$dir" && mkdir -p "$dir"
    printf 'ProgressSeconds = 3600\nResolve = %s\n' "$resolve" > "$dir/settings.ini"
    printf '%s\n' "$@" > "$dir/hosts.txt"
    (cd "$dir" && "$BIN" > out 2> err) || { echo "crawl $name failed:" >&2; cat "$dir/err" >&2; exit 1; }
    echo "crawled $name: $(awk -F, 'NR>1 {p+=$3} END {print p " pages"}' "$dir/results/summary.csv")" >&2
}
# The site folder of a one-site crawl (results/network/ holds no site).
one_site() { dirname "$(ls "$P/crawl-$1/results/"*/yield.csv | head -1)"; }

args=()
replay() { # SPLIT SET INPUT
    local split=$1 set=$2 input=$3 out
    out=$OUT/$set-$(basename "$input" .csv).csv
    "$BIN" replay "$input" --budget "$BUDGETS" --in-flight "$IN_FLIGHT" --csv "$out" ${RULES:+--rules "$RULES"} > "${out%.csv}.txt" 2>&1
    default=$(sed -n 's/^\([A-Za-z0-9]*\) (default).*$/\1/p' "${out%.csv}.txt" | head -1)
    args+=("$split:$set=$out")
}

# Tuning sets.
if [ -d "$RUSTDOC" ]; then
    pcrawl rustdoc rustdoc.test:127.0.0.1 "http://rustdoc.test:$YPORT/;8;1000;0"
    python3 "$BENCH_DIR/yield_sections.py" "$(one_site rustdoc)" "$P/data/rustdoc.csv" Reward
    python3 "$BENCH_DIR/yield_sections.py" "$(one_site rustdoc)" "$P/data/rustdoc16.csv" Reward 1 16
    python3 "$BENCH_DIR/yield_sections.py" "$(one_site rustdoc)" "$P/data/rustdoc-all.csv" ExternalLinks
    python3 "$BENCH_DIR/yield_sections.py" "$(one_site rustdoc)" "$P/data/rustdoc16s.csv" SectionNew 1 16
    replay tune rustdoc "$P/data/rustdoc.csv"
    replay tune rustdoc16 "$P/data/rustdoc16.csv"
    replay tune rustdoc-all "$P/data/rustdoc-all.csv"
fi
if [ -f "$SCIPY/index.html" ]; then
    pcrawl scipy scipy.docs.test:127.0.0.1 "http://scipy.docs.test:$YPORT/;8;1000;0"
    python3 "$BENCH_DIR/yield_sections.py" "$(one_site scipy)" "$P/data/scipy16s.csv" SectionNew module 16
    replay tune scipy16s "$P/data/scipy16s.csv"
fi
if [ -f "$PANDAS/index.html" ]; then
    pcrawl pandas pandas.docs.test:127.0.0.1 "http://pandas.docs.test:$YPORT/;8;1000;0"
    python3 "$BENCH_DIR/yield_sections.py" "$(one_site pandas)" "$P/data/pandas16s.csv" SectionNew module 16
    replay tune pandas16s "$P/data/pandas16s.csv"
fi
pcrawl gensite gensite.test:127.0.0.1 "http://gensite.test:$YPORT/;8;1000;0"
python3 "$BENCH_DIR/yield_sections.py" "$(one_site gensite)" "$P/data/gensite.csv" Reward
replay tune gensite "$P/data/gensite.csv"
[ -f "$P/families/testweb-$((SEEDS - 1)).csv" ] || python3 "$BENCH_DIR/yield_families.py" "$P/families" "$SEEDS"
for family in institutes universities sample heavytail testweb; do
    for f in "$P/families/$family"-*.csv; do replay tune "$family" "$f"; done
done
[ -f "$P/pools/p-sample-$((SEEDS - 1)).csv" ] || python3 "$BENCH_DIR/yield_pools.py" "$P/pools" "$SEEDS" 0
for family in institutes universities sample directories rotting; do
    for f in "$P/pools/p-$family"-*.csv; do replay tune "p-$family" "$f"; done
done
[ -f "$P/late-tune/late-deep-$((1000 + SEEDS - 1)).csv" ] || python3 "$BENCH_DIR/yield_late.py" "$P/late-tune" "$SEEDS" 1000
for family in soon deep; do
    for f in "$P/late-tune/late-$family"-*.csv; do replay tune "lt-$family" "$f"; done
done

# Test sets.
[ -f "$P/heldout/h-sample-$((SEEDS - 1)).csv" ] || python3 "$BENCH_DIR/yield_heldout.py" "$P/heldout" "$SEEDS"
for family in h-institutes h-universities h-sample; do
    for f in "$P/heldout/$family"-*.csv; do replay test "$family" "$f"; done
done
[ -f "$P/pools-test/p-sample-$((1000 + SEEDS - 1)).csv" ] || python3 "$BENCH_DIR/yield_pools.py" "$P/pools-test" "$SEEDS" 1000
for family in institutes universities sample directories rotting; do
    for f in "$P/pools-test/p-$family"-*.csv; do replay test "t-$family" "$f"; done
done
[ -f "$P/late/late-deep-$((SEEDS - 1)).csv" ] || python3 "$BENCH_DIR/yield_late.py" "$P/late" "$SEEDS"
for family in late-soon late-deep; do
    for f in "$P/late/$family"-*.csv; do replay test "$family" "$f"; done
done
[ -f "$P/data/rustdoc16s.csv" ] && replay test rustdoc16s "$P/data/rustdoc16s.csv"
if [ -n "${HOME_OF[django]:-}" ]; then
    pcrawl django django.docs.test:127.0.0.1 "http://django.docs.test:$YPORT/;8;1000;0"
    python3 "$BENCH_DIR/yield_sections.py" "$(one_site django)" "$P/data/django.csv" Reward
    replay test django "$P/data/django.csv"
fi
if [ -n "${HOME_OF[pgdoc]:-}" ]; then
    pcrawl pgdoc pgdoc.docs.test:127.0.0.1 "http://pgdoc.docs.test:$YPORT/;8;1000;0"
    python3 "$BENCH_DIR/yield_sections.py" "$(one_site pgdoc)" "$P/data/pgdoc.csv" Reward prefix
    replay test pgdoc "$P/data/pgdoc.csv"
fi
hosts=() resolve=""
for n in $(printf '%s\n' "${!HOME_OF[@]}" | sort); do
    hosts+=("http://$n.docs.test:$YPORT/;8;1000;0")
    resolve="$resolve${resolve:+,}$n.docs.test:127.0.0.1"
done
pcrawl testdocs "$resolve" "${hosts[@]}"
replay test testdocs "$P/crawl-testdocs/results"

python3 "$BENCH_DIR/protocol_report.py" "${default:?no rule marked (default) in the replay table}" "${args[@]}"
