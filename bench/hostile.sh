#!/usr/bin/env bash
# Peak memory against the hostile inputs of issue 63 item 5, each run of the release binary
# measured with /usr/bin/time (maximum resident set size), sites served by nginx on 127.0.0.1:
#   (a) a sitemap index of 10,000 indexes, each listing 10,000 more (1,000 files are read)
#   (b) sitemaps listing 60,000 URLs of 8 KB (12 files of 5,000)
#   (c) `rebuild` of an archive whose one record inflates to 1.5 GiB
#   (d) `status --serve` serving a 500 MB file under results/ (its growth while serving)
# With BASE_BIN=path/to/an/older/rccrawler, the same runs of that binary beside ours.
# Targets: (a)-(c) ≤ 300 MB, (d) ≤ +50 MB.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
H=$WORK/hostile
PORT=${PORT:-18490}
ORIGIN=http://127.0.0.1:$PORT
build
ensure_nginx
mkdir -p "$H/www"
python3 - "$H/www" "$ORIGIN" <<'PY'
import os, sys
root, origin = sys.argv[1], sys.argv[2]
os.makedirs(f"{root}/idx", exist_ok=True)
os.makedirs(f"{root}/big", exist_ok=True)
with open(f"{root}/index.html", "w") as f:
    f.write('<a href="/p1">p1</a>')
with open(f"{root}/p1", "w") as f:
    f.write("<p>one</p>")
def index(locs):
    return "<sitemapindex>" + "".join(f"<sitemap><loc>{l}</loc></sitemap>" for l in locs) + "</sitemapindex>"
if not os.path.exists(f"{root}/idx/998.xml"):
    with open(f"{root}/idx.xml", "w") as f:
        f.write(index(f"{origin}/idx/{i}.xml" for i in range(10000)))
    for i in range(999):
        with open(f"{root}/idx/{i}.xml", "w") as f:
            f.write(index(f"{origin}/idx/{i}-{j}.xml" for j in range(10000)))
if not os.path.exists(f"{root}/big/11.xml"):
    with open(f"{root}/big.xml", "w") as f:
        f.write(index(f"{origin}/big/{i}.xml" for i in range(12)))
    pad = "x" * 8000
    for i in range(12):
        with open(f"{root}/big/{i}.xml", "w") as f:
            f.write("<urlset>")
            for j in range(5000):
                f.write(f"<url><loc>{origin}/page/{i}/{j}/{pad}</loc></url>")
            f.write("</urlset>")
PY
cat > "$H/nginx.conf" <<CONF
$( [ "$(id -u)" = 0 ] && echo "user root;" )
worker_processes 1;
pid $H/nginx.pid;
error_log $H/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  types { text/html html; application/xml xml; }
  default_type text/html;
  server { listen 127.0.0.1:$PORT; root $H/www; }
}
CONF
[ -f "$H/nginx.pid" ] && kill "$(cat "$H/nginx.pid")" 2>/dev/null || true
/usr/sbin/nginx -c "$H/nginx.conf"
trap 'kill $(cat "$H/nginx.pid") 2>/dev/null || true' EXIT

# peak BIN DIR ARGS...: the run's peak RSS in MB (its exit code ignored).
peak() {
    local bin=$1 dir=$2
    shift 2
    (cd "$dir" && /usr/bin/time -f "%M" -o "$dir/peak.txt" "$bin" "$@" >/dev/null 2>"$dir/stderr.txt" || true)
    awk '{printf "%.0f", $1 / 1024}' "$dir/peak.txt"
}

# crawl_dir NAME SITEMAP: a folder with settings.ini naming robots-less sitemaps.
crawl_dir() {
    local d=$H/$1
    rm -rf "$d" && mkdir -p "$d"
    printf '%s\n' "$ORIGIN" > "$d/hosts.txt"
    cat > "$d/settings.ini" <<INI
Sitemaps = yes
DefaultCrawlDelay = 0
StatusAddress =
INI
    echo "$d"
}

run_case() {
    local label=$1 bin=$2
    # (a): robots.txt names the index of indexes.
    printf 'User-agent: *\nSitemap: %s/idx.xml\n' "$ORIGIN" > "$H/www/robots.txt"
    local a; a=$(peak "$bin" "$(crawl_dir a-$label)")
    printf 'User-agent: *\nSitemap: %s/big.xml\n' "$ORIGIN" > "$H/www/robots.txt"
    local b; b=$(peak "$bin" "$(crawl_dir b-$label)")
    rm -f "$H/www/robots.txt"
    local c; c=$(peak "$bin" "$H" rebuild "$H/bomb" --out "$H/rebuilt-$label")
    echo "$label: (a) index of 10,000 x 10,000: ${a} MB; (b) 60,000 URLs of 8 KB: ${b} MB; (c) rebuild of a 1.5 GiB record: ${c} MB"
}

# The archive for (c): a crawl of the site kept, its /p1 response replaced by one of 1.5 GiB.
arch=$(crawl_dir arch)
printf 'Archive = warc\n' >> "$arch/settings.ini"
sed -i 's/Sitemaps = yes/Sitemaps = no/' "$arch/settings.ini"
(cd "$arch" && "$BIN" >/dev/null 2>&1)
rm -rf "$H/bomb" && mkdir -p "$H/bomb"
python3 - "$arch/results/archive" "$H/bomb" <<'PY'
import gzip, json, os, sys, zlib
src, out = sys.argv[1], sys.argv[2]
name = [n for n in os.listdir(src) if n.endswith(".warc.gz")][0]
data = open(f"{src}/{name}", "rb").read()
entry = None
for line in open(f"{src}/index.cdxj"):
    j = json.loads(line[line.index("{"):])
    if j["url"].endswith("/p1"):
        entry = j
at, ln = int(entry["offset"]), int(entry["length"])
raw = gzip.decompress(data[at:at + ln])
end = raw.index(b"\r\n\r\n")
block = raw[end + 4:-4]
pad = 3 << 29
head = b"\r\n".join(
    (b"Content-Length: %d" % (len(block) + pad)) if l.startswith(b"Content-Length:") else l
    for l in raw[:end].split(b"\r\n")
    if not l.startswith(b"WARC-Block-Digest") and not l.startswith(b"WARC-Payload-Digest")
)
z = zlib.compressobj(9, zlib.DEFLATED, 31)
parts = [z.compress(head + b"\r\n\r\n" + block)]
chunk = b" " * (1 << 20)
for _ in range(pad >> 20):
    parts.append(z.compress(chunk))
parts.append(z.compress(b"\r\n\r\n"))
parts.append(z.flush())
bomb = b"".join(parts)
open(f"{out}/{name}", "wb").write(data[:at] + bomb + data[at + ln:])
print(f"bomb archive: {(len(data[:at]) + len(bomb) + len(data[at + ln:])) / 1e6:.1f} MB", file=sys.stderr)
PY

run_case ours "$BIN"
[ -n "${BASE_BIN:-}" ] && run_case base "$BASE_BIN"

# (d): a results folder with a 500 MB file, served by `status --serve`; the server's growth.
d=$H/d && rm -rf "$d" && mkdir -p "$d" && cp -r "$arch/results" "$d/" && cp "$arch/settings.ini" "$d/"
truncate -s 500M "$d/results/big.csv"
serve_d() {
    local bin=$1 port=$2
    (cd "$d" && "$bin" status --serve "127.0.0.1:$port" >/dev/null 2>&1 & echo $! > "$d/pid")
    # Until the page answers.
    for _ in $(seq 1 50); do
        curl -s -o /dev/null "http://127.0.0.1:$port/status.json" && break
        sleep 0.1
    done
    local pid; pid=$(cat "$d/pid")
    local before; before=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
    curl -s -o /dev/null "http://127.0.0.1:$port/results/big.csv" || true
    local after; after=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
    kill -TERM "$pid" 2>/dev/null || true
    echo "$(( (after - before) / 1024 ))"
}
echo "ours: (d) status page serving a 500 MB file: +$(serve_d "$BIN" 18497) MB"
[ -n "${BASE_BIN:-}" ] && echo "base: (d) status page serving a 500 MB file: +$(serve_d "$BASE_BIN" 18498) MB"
exit 0
