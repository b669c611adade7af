#!/usr/bin/env bash
# A single-page application of APP_PAGES routes (10,000) crawled with Render = auto (issue 66):
# memory stays bounded as the rendered pages grow. Every route is the same shell
# (/p/N.html); its script builds links to routes 10N..10N+9 and home, so the graph is a tree
# of depth 4 only a browser sees. Each size in SIZES is crawled once, side by side: the
# crawler's peak proportional set size alone and with its browser, and rendered pages a second.
# Environment: SIZES ("2000 10000"), TABS (2), IDLE (RenderIdleMillis, 100).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SIZES=${SIZES:-2000 10000}
TABS=${TABS:-2}
IDLE=${IDLE:-100}
build
ensure_nginx
OUT=$WORK/render_app.txt
: > "$OUT"
note() { echo "$*" | tee -a "$OUT"; }
for n in $SIZES; do
    APP=$WORK/app-$n
    if [ ! -f "$APP/p/$((n - 1)).html" ]; then
        rm -rf "$APP" && mkdir -p "$APP/p"
        shell='<!doctype html><html><head><title>App</title><script src="/app.js" defer></script></head><body><div id="root"></div></body></html>'
        echo "$shell" > "$APP/index.html"
        for k in $(seq 0 $((n - 1))); do echo "$shell" > "$APP/p/$k.html"; done
        cat > "$APP/app.js" <<JS
const root = document.getElementById('root');
const m = location.pathname.match(/^\/p\/(\d+)\.html$/);
const me = m ? Number(m[1]) : 0;
document.title = 'Route ' + me;
const add = (href, text) => { const a = document.createElement('a'); a.href = href; a.textContent = text; root.appendChild(a); };
for (let k = 10 * me + (m ? 0 : 1); k < 10 * me + 10 && k < $n; k++) add('/p/' + k + '.html', 'Route ' + k);
add('/', 'Home');
const p = document.createElement('p'); p.textContent = 'Route ' + me + ' of $n'; root.appendChild(p);
JS
    fi
    cat > "$WORK/nginx-app.conf" <<CONF
worker_processes 2;
pid $WORK/nginx-app.pid;
error_log $WORK/nginx-app-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  types { text/html html; application/javascript js; }
  server { listen 127.0.0.1:$PORT; root $APP; }
}
CONF
    [ -f "$WORK/nginx-app.pid" ] && kill "$(cat "$WORK/nginx-app.pid")" 2>/dev/null && sleep 0.3
    /usr/sbin/nginx -c "$WORK/nginx-app.conf"
    sample_render_pss "$WORK/app-pss" &
    sampler=$!
    r=$(SITE_LINE="http://127.0.0.1:$PORT;4;10;0" crawl "$WORK/render-app-$n" \
        "Render = auto" "RenderTabs = $TABS" "RenderIdleMillis = $IDLE" "TimeoutSeconds = 14400")
    wait "$sampler"
    kill "$(cat "$WORK/nginx-app.pid")" 2>/dev/null || true
    rm -f "$WORK/nginx-app.pid"
    summary=$WORK/render-app-$n/results/summary.csv
    rendered=$(python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[0]; print(r['Pages'], r['Rendered'], r['Arcs'], r['ScriptOnlyArcs'])" "$summary")
    note "app $n seconds_pages_rss $r crawler_and_total_pss_kb $(cat "$WORK/app-pss") pages_rendered_arcs_scriptonly $rendered"
done
