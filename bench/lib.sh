# Shared by the benchmark scripts: a release build, nginx on 127.0.0.1 serving a generated
# site, and a crawl helper. Sourced, not run.
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
WORK=${WORK:-$BENCH_DIR/work}
PAGES=${PAGES:-50000}
PORT=${PORT:-18480}
# The site served (SITE=$(rustc --print sysroot)/share/doc/rust/html: the real documentation).
SITE=${SITE:-$WORK/site-$PAGES}
BIN=${BIN:-$ROOT/target/release/rccrawler}
mkdir -p "$WORK"

build() {
    (cd "$ROOT" && cargo build --release --locked -q && cargo build --release --locked -q --examples)
}

ensure_nginx() {
    if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
        echo "installing nginx (Debian package nginx-light)..." >&2
        (apt-get install -y -q nginx-light >/dev/null 2>&1 || (apt-get update -q >/dev/null && apt-get install -y -q nginx-light >/dev/null))
    fi
}

generate_site() {
    if [ ! -f "$SITE/index.html" ]; then
        echo "generating a $PAGES-page site in $SITE..." >&2
        rm -rf "$SITE.tmp" && python3 "$BENCH_DIR/gen_site.py" "$SITE.tmp" "$PAGES" && mv "$SITE.tmp" "$SITE"
    fi
}

start_nginx() {
    ensure_nginx
    generate_site
    # Workers as root when run as root: a SITE under /root (the toolchain's documentation) is
    # not readable by nginx's default user.
    local user_line=""
    if [ "$(id -u)" = 0 ]; then user_line="user root;"; fi
    cat > "$WORK/nginx.conf" <<CONF
$user_line
worker_processes 2;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  keepalive_requests 1000000;
  types { text/html html; }
  default_type application/octet-stream;
  server { listen 127.0.0.1:$PORT default_server; server_name docs.test; root $SITE; absolute_redirect off; }
  # siteK-N.test: site K of N (generate_multisite).
  server { listen 127.0.0.1:$PORT; server_name ~^site(?<k>[0-9]+)-(?<n>[0-9]+)\.test$; root $WORK/multi/\$n/\$k; absolute_redirect off; }
  # politeK.test: the sites of bench/politeness.sh.
  log_format polite '\$host \$msec \$request_time';
  server { listen 127.0.0.1:$PORT; server_name ~^polite(?<k>[0-9]+)\.test$; root $WORK/polite/\$k; absolute_redirect off; access_log $WORK/polite-access.log polite; }
}
CONF
    stop_nginx
    /usr/sbin/nginx -c "$WORK/nginx.conf"
    trap stop_nginx EXIT
}

# generate_multisite N TOTAL: N sites of TOTAL/N pages each, served as siteK-N.test; prints
# the hosts.txt lines and writes the matching Resolve line to $WORK/resolve-N.ini.
generate_multisite() {
    local n=$1 total=$2 per
    per=$((total / n))
    if [ ! -f "$WORK/multi/$n/$((n - 1))/index.html" ]; then
        for k in $(seq 0 $((n - 1))); do
            python3 "$BENCH_DIR/gen_site.py" "$WORK/multi/$n/$k" "$per" "$k" >/dev/null
        done
    fi
    local resolve=""
    for k in $(seq 0 $((n - 1))); do
        echo "http://site$k-$n.test:$PORT;8;1000;0"
        resolve="$resolve${resolve:+,}site$k-$n.test:127.0.0.1"
    done
    echo "Resolve = $resolve" > "$WORK/resolve-$n.ini"
}

stop_nginx() {
    if [ -f "$WORK/nginx.pid" ]; then
        kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
        rm -f "$WORK/nginx.pid"
        sleep 0.2
    fi
}

# The site line of hosts.txt for crawl(); override HOSTS_FILE to crawl other sites.
SITE_LINE=${SITE_LINE:-http://127.0.0.1:$PORT;8;1000;0}

# crawl DIR [settings lines...]: a fresh crawl in DIR of SITE_LINE (or of the lines in
# $HOSTS_FILE); prints "seconds pages peak_rss_kb" (its CPU seconds are left in DIR/cpu).
crawl() {
    local dir=$1; shift
    rm -rf "$dir" && mkdir -p "$dir"
    {
        echo "ProgressSeconds = 3600"
        for line in "$@"; do echo "$line"; done
    } > "$dir/settings.ini"
    if [ -n "${HOSTS_FILE:-}" ]; then cp "$HOSTS_FILE" "$dir/hosts.txt"; else echo "$SITE_LINE" > "$dir/hosts.txt"; fi
    local start end pages
    start=$(date +%s%N)
    (cd "$dir" && /usr/bin/time -f "%M %U %S" -o "$dir/time" "$BIN" > "$dir/out" 2> "$dir/err")
    end=$(date +%s%N)
    # Peak RSS in $dir/rss; CPU seconds (user + system) in $dir/cpu.
    awk '{print $1}' "$dir/time" > "$dir/rss"
    awk '{printf "%.3f\n", $2 + $3}' "$dir/time" > "$dir/cpu"
    pages=$(awk -F, 'NR>1 {s+=$3} END {print s}' "$dir/results/summary.csv")
    echo "$(awk "BEGIN {printf \"%.3f\", ($end - $start) / 1e9}") $pages $(cat "$dir/rss")"
}
