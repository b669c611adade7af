# Shared by the benchmark scripts: a release build, nginx on 127.0.0.1 serving a generated
# site, and a crawl helper. Sourced, not run.
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
WORK=${WORK:-$BENCH_DIR/work}
PAGES=${PAGES:-50000}
PORT=${PORT:-18480}
SITE=$WORK/site-$PAGES
BIN=$ROOT/target/release/rccrawler
mkdir -p "$WORK"

build() {
    (cd "$ROOT" && cargo build --release --locked -q)
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
        python3 "$BENCH_DIR/gen_site.py" "$SITE.tmp" "$PAGES" && mv "$SITE.tmp" "$SITE"
    fi
}

start_nginx() {
    ensure_nginx
    generate_site
    cat > "$WORK/nginx.conf" <<CONF
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
  server { listen 127.0.0.1:$PORT; server_name docs.test; root $SITE; absolute_redirect off; }
}
CONF
    stop_nginx
    /usr/sbin/nginx -c "$WORK/nginx.conf"
    trap stop_nginx EXIT
}

stop_nginx() {
    if [ -f "$WORK/nginx.pid" ]; then
        kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
        rm -f "$WORK/nginx.pid"
        sleep 0.2
    fi
}

# crawl DIR [settings lines...]: a fresh crawl of the site in DIR; prints "seconds pages peak_rss_kb".
crawl() {
    local dir=$1; shift
    rm -rf "$dir" && mkdir -p "$dir"
    {
        echo "Resolve = docs.test:127.0.0.1"
        echo "ProgressSeconds = 3600"
        for line in "$@"; do echo "$line"; done
    } > "$dir/settings.ini"
    echo "http://docs.test:$PORT;8;1000;0" > "$dir/hosts.txt"
    local start end pages
    start=$(date +%s%N)
    (cd "$dir" && /usr/bin/time -f "%M" -o "$dir/rss" "$BIN" > "$dir/out" 2> "$dir/err")
    end=$(date +%s%N)
    pages=$(awk -F, 'NR==2 {print $3}' "$dir/results/summary.csv")
    echo "$(awk "BEGIN {printf \"%.3f\", ($end - $start) / 1e9}") $pages $(cat "$dir/rss")"
}
