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
  # Scripts, styles and data typed as browsers expect them (Render = auto/all, bench/render.sh).
  # Documents as their servers type them (Documents = yes, bench/documents.sh).
  types { text/html html; application/javascript js; text/css css; application/json json; image/svg+xml svg; font/woff2 woff2; application/pdf pdf; application/vnd.openxmlformats-officedocument.wordprocessingml.document docx; }
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

# start_many_nginx: nginx serving the many-site web of gen_many.py (TEMPLATES templates, SEED)
# for every host s<K>-t<T>.test, on PORT at once and on PORT + 1 after LATENCY seconds
# (nginx's echo_sleep, like remote servers). Stop it with stop_many.
start_many_nginx() {
    TEMPLATES=${TEMPLATES:-12}
    SEED=${SEED:-11}
    LATENCY=${LATENCY:-0.1}
    SLOW_PORT=$((PORT + 1))
    command -v nginx >/dev/null || ensure_nginx
    if [ ! -f /usr/lib/nginx/modules/ngx_http_echo_module.so ]; then
        apt-get install -y -q libnginx-mod-http-echo >/dev/null 2>&1 || (apt-get update -q >/dev/null && apt-get install -y -q libnginx-mod-http-echo >/dev/null)
    fi
    MANY=$WORK/many-$TEMPLATES
    [ "$SEED" = 11 ] || MANY=$WORK/many-$TEMPLATES-s$SEED
    [ -f "$MANY/tpl$((TEMPLATES - 1))/index.html" ] || python3 "$BENCH_DIR/gen_many.py" "$MANY" "$TEMPLATES" "$SEED"
    # MANY_DIR: serve these templates instead (bench/compare.sh's changed web).
    MANY=${MANY_DIR:-$MANY}
    cat > "$WORK/nginx-many.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_http_echo_module.so;
worker_processes 2;
worker_rlimit_nofile 65536;
pid $WORK/nginx-many.pid;
error_log $WORK/nginx-many-error.log;
events { worker_connections 16384; }
http {
  access_log off;
  keepalive_requests 1000000;
  keepalive_timeout 300s;
  types { text/html html; }
  default_type text/html;
  server { listen 127.0.0.1:$PORT backlog=4096; server_name ~^s(?<k>[0-9]+)-t(?<t>[0-9]+)\.test\$; root $MANY/tpl\$t; absolute_redirect off; }
  server { listen 127.0.0.1:$SLOW_PORT backlog=4096; server_name ~^s(?<k>[0-9]+)-t(?<t>[0-9]+)\.test\$; root $MANY/tpl\$t; absolute_redirect off;
    location / { echo_sleep $LATENCY; echo_exec @file; }
    location @file { try_files \$uri \$uri/index.html =404; }
  }
}
CONF
    stop_many; sleep 0.2
    /usr/sbin/nginx -c "$WORK/nginx-many.conf"
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
}

stop_many() { [ -f "$WORK/nginx-many.pid" ] && kill "$(cat "$WORK/nginx-many.pid")" 2>/dev/null; rm -f "$WORK/nginx-many.pid"; }

# many_hosts N PORT LEVEL DELAY: hosts.txt ($WORK/many-hosts-N-PORT.txt: 2 downloads at a time,
# maxCrawlLevel LEVEL, crawl delay DELAY) and the Resolve line ($WORK/many-resolve-N.txt) of
# the first N sites of the many-site web.
many_hosts() {
    python3 - "$1" "$2" "$TEMPLATES" "$4" "$WORK/many-hosts-$1-$2.txt" "$WORK/many-resolve-$1.txt" "$3" <<'PY'
import sys
n, port, t, delay, hosts, resolve, level = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7]
names = [f"s{k}-t{k % t}.test" for k in range(n)]
open(hosts, "w").write("".join(f"http://{h}:{port};2;{level};{delay}\n" for h in names))
open(resolve, "w").write("Resolve = " + ",".join(f"{h}:127.0.0.1" for h in names) + "\n")
PY
}

# start_private_pg PGPORT DIR: a PostgreSQL server of its own (default settings: fsync on, plus
# PG_OPTS) in DIR, listening on PGPORT on every address (bench/pg.sh's namespaces reach it over
# veth); sets PGBIN and DB (the DatabaseUrl). Stop it with stop_pg.
start_private_pg() {
    PGPORT=$1 PG=$2
    PGBIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
    [ -x "$PGBIN/initdb" ] || { echo "PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }
    stop_pg
    rm -rf "$PG" && mkdir -p "$PG"
    [ "$(id -u)" = 0 ] && chown postgres "$PG"
    as_pg "$PGBIN/initdb" -D "$PG/data" -A trust -U rc >/dev/null
    echo "host all all 10.77.0.0/16 trust" >> "$PG/data/pg_hba.conf"
    as_pg "$PGBIN/pg_ctl" -D "$PG/data" -l "$PG/log" -w \
        -o "-p $PGPORT -k $PG -c listen_addresses=0.0.0.0 -c max_connections=200 ${PG_OPTS:-}" start >/dev/null
    DB="postgresql://rc@127.0.0.1:$PGPORT/postgres"
}
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
stop_pg() { if [ -n "${PG:-}" ] && [ -d "$PG/data" ]; then as_pg "$PGBIN/pg_ctl" -D "$PG/data" -m fast -w stop >/dev/null 2>&1 || true; fi; }

# pss_of PID...: the summed proportional set size (kB) of the processes.
pss_of() {
    local total=0 kb
    for p in "$@"; do
        kb=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
        total=$((total + ${kb:-0}))
    done
    echo "$total"
}

# sample_render_pss FILE (bench/render.sh, bench/render_app.sh): the peak PSS of rccrawler
# alone, and of rccrawler and its browser, until rccrawler exits, into FILE ("crawler
# total", kB).
sample_render_pss() {
    local file=$1 peak=0 own_peak=0 now own crawler
    while :; do
        crawler=$(pgrep -x rccrawler | head -1 || true)
        if [ -z "$crawler" ]; then
            [ "$peak" -gt 0 ] && break
            sleep 0.05; continue
        fi
        own=$(pss_of "$crawler")
        # The browser's processes (its zygotes and renderers) share its profile folder's name.
        now=$((own + $(pss_of $(pgrep -f "rccrawler-chromium-" || true))))
        [ "$own" -gt "$own_peak" ] && own_peak=$own
        [ "$now" -gt "$peak" ] && peak=$now
        sleep 0.2
    done
    echo "$own_peak $peak" > "$file"
}
