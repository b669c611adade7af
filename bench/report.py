#!/usr/bin/env python3
"""Summarises bench/run.sh's raw lines (medians of the repeated runs)."""
import os
import statistics
import sys
from collections import defaultdict

rows = defaultdict(list)
# Per round (rccrawler, wrk, ours, parse, parse_cached): ratios are taken within a round.
rounds = []
for line in open(sys.argv[1]):
    parts = line.split()
    if not parts or parts[0].startswith("=="):
        continue
    key = parts[0]
    if key == "round":
        rounds.append({})
        continue
    if key in ("threads", "sites"):
        key = " ".join(parts[:2] if key == "sites" else parts[:3])
        parts = [key] + parts[(2 if key.startswith("sites") else 3):]
    values = [float(x) for x in parts[1:] if x.replace(".", "", 1).isdigit()]
    if not values:
        # A measurement that failed ("fetch_evented failed"): nothing to take a median of.
        continue
    rows[key].append(values)
    if rounds and key in ("rccrawler", "rccrawler_base", "fetch_ureq", "fetch_wrk", "parse", "parse_cached"):
        rounds[-1][key] = values


def med(key, col):
    return statistics.median(r[col] for r in rows[key])


rc_s, pages, rc_rss = med("rccrawler", 0), med("rccrawler", 1), med("rccrawler", 2) * 1024
requests, arcs = rows["requests"][0][0], rows["requests"][0][1]
fu_s = med("fetch_ureq", 0)
fw_s = requests / med("fetch_wrk", 0)
parse_s, links, mb = med("parse", 0), med("parse", 2), med("parse", 3) / 1e6
parse_c = med("parse_cached", 0)
print(f"pages {pages:.0f}, requests {requests:.0f}, arcs {arcs:.0f}, links found {links:.0f}, {mb:.0f} MB of HTML")
print(f"{'':24}{'seconds':>9}{'pages/s':>10}{'MB/s':>8}{'peak RSS':>12}")
print(f"{'rccrawler':24}{rc_s:9.2f}{pages / rc_s:10.0f}{mb / rc_s:8.0f}{rc_rss / 2**20:9.0f} MB")
if rows["rccrawler_base"]:
    b_s, b_rss = med("rccrawler_base", 0), med("rccrawler_base", 2) * 1024
    print(f"{'rccrawler (BASE_BIN)':24}{b_s:9.2f}{pages / b_s:10.0f}{mb / b_s:8.0f}{b_rss / 2**20:9.0f} MB")
print(f"{'fetch-only (wrk)':24}{fw_s:9.2f}{pages / fw_s:10.0f}{mb / fw_s:8.0f}")
print(f"{'fetch-only (our client)':24}{fu_s:9.2f}{pages / fu_s:10.0f}{mb / fu_s:8.0f}")
if rows["fetch_evented"]:
    fe_s = med("fetch_evented", 0)
    print(f"{'fetch-only (evented)':24}{fe_s:9.2f}{pages / fe_s:10.0f}{mb / fe_s:8.0f}")
print(f"{'parse-only':24}{parse_s:9.2f}{pages / parse_s:10.0f}{mb / parse_s:8.0f}")
print(f"{'parse-only, href cache':24}{parse_c:9.2f}{pages / parse_c:10.0f}{mb / parse_c:8.0f}")
if rows["wget"]:
    wg_s, wg_rss = med("wget", 0), med("wget", 1) * 1024
    print(f"{'wget --spider':24}{wg_s:9.2f}{pages / wg_s:10.0f}{mb / wg_s:8.0f}{wg_rss / 2**20:9.0f} MB")
if rows["fetch_evented"] and all(len(r) > 3 for r in rows["fetch_ureq"] + rows["fetch_evented"]):
    crawl_cpu = (f"rccrawler {med('rccrawler', 3):.2f}; "
                 if all(len(r) > 3 for r in rows["rccrawler"]) else "")
    print(f"CPU seconds (medians): {crawl_cpu}its HTTP client alone, a blocking thread per connection"
          f" {med('fetch_ureq', 3):.2f}; one event-driven thread {med('fetch_evented', 3):.2f}")
print()


def round_ratio(fetch_key, parse_key):
    """Median over rounds of rccrawler / (fetch-only + parse-only) within each round."""
    ratios = []
    for r in rounds:
        if {"rccrawler", fetch_key, parse_key} <= r.keys():
            fetch = requests / r[fetch_key][0] if fetch_key == "fetch_wrk" else r[fetch_key][0]
            ratios.append(r["rccrawler"][0] / (fetch + r[parse_key][0]))
    if not ratios:
        # No rounds recorded (an older results file): medians of each figure.
        fetch = fw_s if fetch_key == "fetch_wrk" else fu_s
        ratios = [rc_s / (fetch + med(parse_key, 0))]
    return statistics.median(ratios), ratios


for label, f, p in [
    ("fetch-only wrk + parse-only with href cache", "fetch_wrk", "parse_cached"),
    ("fetch-only wrk + parse-only", "fetch_wrk", "parse"),
    ("fetch-only ours + parse-only with href cache", "fetch_ureq", "parse_cached"),
]:
    m, each = round_ratio(f, p)
    target = "   (target <= 1.5)" if p == "parse_cached" and f == "fetch_wrk" else ""
    print(f"rccrawler / ({label:44}) = {m:.2f}  rounds {', '.join(f'{x:.2f}' for x in each)}{target}")
if rows["wget"]:
    print(f"rccrawler / wget (medians){'':34} = {rc_s / med('wget', 0):.3f}")
if rows["rccrawler_base"]:
    each = [r["rccrawler"][0] / r["rccrawler_base"][0] for r in rounds if {"rccrawler", "rccrawler_base"} <= r.keys()]
    same = all(v[0] == 1 for v in rows["identical_results"])
    print(f"rccrawler / BASE_BIN (same rounds){'':26} = {statistics.median(each):.3f}  rounds {', '.join(f'{x:.2f}' for x in each)};"
          f" result files {'byte-identical in every round' if same else 'DIFFER'}")
budget = 400 * pages + 16 * links
print(f"peak RSS per page {rc_rss / pages:.0f} B, per link found {rc_rss / links:.1f} B, per arc {rc_rss / arcs:.1f} B;"
      f" budget 400 B/page + 16 B/link = {budget / 2**20:.0f} MB -> RSS / budget = {rc_rss / budget:.2f} (target <= 1)")
if os.environ.get("RSS_TARGET_MB"):
    # A site with a target of its own (issue 19: the Rust documentation, 64 MB).
    print(f"peak RSS {rc_rss / 2**20:.0f} MB, rounds {', '.join(f'{r[2] / 1024:.0f}' for r in rows['rccrawler'])} MB"
          f" (target for this site <= {os.environ['RSS_TARGET_MB']} MB)")


def curve(prefix, title):
    """Median pages/s of each row whose key starts with prefix."""
    points = [(k, v) for k, v in rows.items() if k.startswith(prefix)]
    if points:
        print(f"\n{title}:")
    for k, v in points:
        s = statistics.median(r[0] for r in v)
        p = statistics.median(r[1] for r in v)
        print(f"  {k:34} {p / s:8.0f} pages/s   ({p:.0f} pages in {s:.2f} s)")


curve("threads", "throughput by threads")
curve("sites", "throughput by number of sites, same total pages")
