#!/usr/bin/env bash
# The domain-name filter paper's Tables 1-3 (Wen et al. 2014, section 3.2) on a local web:
# its four seeds' organisations on several hosts each, plus ad networks, shops and portals
# (bench/gen_multihost.py), served by nginx on 127.0.0.1. Each seed is crawled to level 4
# three times: the original crawler (AllHostsUAT: every host), the domain filter
# (KeyDomainUAT) and the domain filter with the topic stage (the paper's second experiment:
# keywords 研究生, 论文, 毕业, 体育, 篮球, weights 0.1 and 0.3, gain 0.2, threshold 0.5).
# Prints, per run, URLs fetched ("links crawled"), seconds and TLP = seconds x links.
#
# Every host keeps a crawl delay (DELAY ms, 20 by default), as a polite crawler of real sites
# would, so that time follows the requests each host must serve.
#
# usage: bash bench/scopes.sh        (HOST_PAGES=200 pages per host, DELAY=20, RUNS=3: medians)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
PAGES_PER_HOST=${HOST_PAGES:-200}
RUNS=${RUNS:-3}
DELAY=${DELAY:-20}
SPORT=${SPORT:-18495}
S=$WORK/scopes
build
ensure_nginx
rm -rf "$S/web" && mkdir -p "$S"
mapfile -t HOSTS_ALL < <(python3 "$BENCH_DIR/gen_multihost.py" "$S/web" "$PAGES_PER_HOST" "$SPORT")
user_line=""
if [ "$(id -u)" = 0 ]; then user_line="user root;"; fi
cat > "$S/nginx.conf" <<CONF
$user_line
worker_processes 2;
pid $S/nginx.pid;
error_log $S/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  types { text/html html; }
  default_type text/html;
  server { listen 127.0.0.1:$SPORT default_server; root $S/web/\$host; absolute_redirect off; }
}
CONF
stop_scopes_nginx() {
    if [ -f "$S/nginx.pid" ]; then kill "$(cat "$S/nginx.pid")" 2>/dev/null || true; rm -f "$S/nginx.pid"; sleep 0.2; fi
}
stop_scopes_nginx
/usr/sbin/nginx -c "$S/nginx.conf"
trap stop_scopes_nginx EXIT
resolve=$(printf '%s:127.0.0.1,' "${HOSTS_ALL[@]}")
resolve=${resolve%,}

# run SEED MODE: prints "fetched seconds hosts"
run() {
    local seed=$1 mode=$2 dir=$S/run
    rm -rf "$dir" && mkdir -p "$dir"
    {
        echo "ProgressSeconds = 3600"
        echo "Resolve = $resolve"
        echo "SaveState = 0"
        case $mode in
            original) echo "UrlAnalyzingThread = AllHostsUAT" ;;
            domain) echo "UrlAnalyzingThread = KeyDomainUAT" ;;
            topic)
                echo "UrlAnalyzingThread = KeyDomainUAT"
                echo "TopicFilter = 1"
                echo "TopicKeywords = 研究生,论文,毕业,体育,篮球"
                echo "TopicBodyWeight = 0.1"
                echo "TopicTitleWeight = 0.3"
                echo "TopicGain = 0.2"
                echo "TopicThreshold = 0.5"
                ;;
        esac
    } > "$dir/settings.ini"
    echo "http://$seed:$SPORT;1;4;$DELAY" > "$dir/hosts.txt"
    local start end
    start=$(date +%s%N)
    (cd "$dir" && "$BIN" > out 2> err) || { cat "$dir/err" >&2; exit 1; }
    end=$(date +%s%N)
    awk -F, -v t="$(( (end - start) / 1000000 ))" 'NR==1 {for (i=1;i<=NF;i++) c[$i]=i} NR==2 {printf "%s %.3f %s\n", $c["Fetched"], t/1000, $c["Hosts"]}' "$dir/results/summary.csv"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A LINKS SECS HOSTN
SEEDS=(www.163.com www.souhu.com www.uestc.edu.cn www.ctbu.edu.cn)
for mode in original domain topic; do
    for seed in "${SEEDS[@]}"; do
        times=()
        for _ in $(seq "$RUNS"); do
            read -r fetched secs hosts < <(run "$seed" "$mode")
            times+=("$secs")
        done
        LINKS[$mode,$seed]=$fetched
        HOSTN[$mode,$seed]=$hosts
        SECS[$mode,$seed]=$(printf '%s\n' "${times[@]}" | median)
    done
done

table() { # MODE TITLE
    echo
    echo "$2"
    echo
    echo "| seed | levels | hosts | links crawled | seconds | TLP (s x links) |"
    echo "|---|---:|---:|---:|---:|---:|"
    for seed in "${SEEDS[@]}"; do
        l=${LINKS[$1,$seed]} s=${SECS[$1,$seed]}
        printf '| %s | 4 | %s | %s | %s | %s |\n' "$seed" "${HOSTN[$1,$seed]}" "$l" "$s" "$(awk "BEGIN {printf \"%.1f\", $l * $s}")"
    done
}
echo "local web: ${#HOSTS_ALL[@]} hosts, $PAGES_PER_HOST pages each; one request at a time per host, $DELAY ms apart; medians of $RUNS runs"
table original "Table 1: the original crawler (AllHostsUAT)"
table domain "Table 2: the domain filter (KeyDomainUAT)"
table topic "Table 3: the domain filter and the topic stage (TopicFilter = 1)"
