#!/usr/bin/env python3
"""A local multi-host web like the domain-name filter paper's experiment (Wen et al. 2014,
section 3.2): its four seeds' organisations, each on several hosts, linking to each other and
to hosts outside every organisation (ad networks, portals, shops), some of which write about
the experiment's topic (graduate studies, theses, sport).

usage: gen_multihost.py OUT_DIR PAGES_PER_HOST PORT

Writes OUT_DIR/<host>/... for every host (nginx serves them by Host header) and prints the
host names, one per line. Deterministic.
"""
import os
import random
import sys

out, pages, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(2014)

ORGS = {
    "www.163.com": ["www.163.com", "news.163.com", "sports.163.com", "mail.163.com"],
    "www.souhu.com": ["www.souhu.com", "news.souhu.com", "it.souhu.com", "auto.souhu.com", "learning.souhu.com"],
    "www.uestc.edu.cn": ["www.uestc.edu.cn", "lib.uestc.edu.cn", "cs.uestc.edu.cn", "gr.uestc.edu.cn"],
    "www.ctbu.edu.cn": ["www.ctbu.edu.cn", "lib.ctbu.edu.cn", "jwc.ctbu.edu.cn"],
}
# Hosts in no organisation: (host, writes about the topic)
OUTSIDE = [
    ("ads.adnet.com", False),
    ("click.tracker.net", False),
    ("www.shopmall.com", False),
    ("bbs.kaoyan.com", True),  # a graduate-entrance forum: theses, graduate students
    ("www.lunwen.org", True),  # a thesis site
    ("www.nba.com", True),  # basketball
    ("www.weather.com", False),
]
TOPIC_TEXT = ["研究生招生与毕业论文答辩安排", "篮球比赛与体育新闻", "论文写作指导，研究生经验"]
OTHER_TEXT = ["今日特价商品", "广告", "天气预报", "news of the day", "click here"]


def path(i):
    return "/" if i == 0 else f"/p{i}.html"


def write(host, i, title, text, links):
    d = os.path.join(out, host)
    os.makedirs(d, exist_ok=True)
    name = "index.html" if i == 0 else f"p{i}.html"
    body = "".join(f'<a href="{u}">{a}</a> ' for u, a in links)
    with open(os.path.join(d, name), "w", encoding="utf-8") as f:
        f.write(
            f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title></head>'
            f"<body><p>{text}</p>{body}</body></html>"
        )


all_org_hosts = [h for hosts in ORGS.values() for h in hosts]
for seed, hosts in ORGS.items():
    for host in hosts:
        for i in range(pages):
            links = [(path(c), f"p{c}") for c in (3 * i + 1, 3 * i + 2, 3 * i + 3) if c < pages]
            links.append(("/", "home"))
            # Across the organisation's hosts.
            other = rng.choice([h for h in hosts if h != host] or [host])
            links.append((f"http://{other}:{port}{path(rng.randrange(pages))}", other))
            # Out of it: another organisation now and then, and the web's noise.
            if rng.random() < 0.2:
                o = rng.choice([h for h in all_org_hosts if h not in hosts])
                links.append((f"http://{o}:{port}/", o))
            for _ in range(rng.choice([1, 1, 2, 3])):
                o, _topic = rng.choice(OUTSIDE)
                links.append((f"http://{o}:{port}{path(rng.randrange(pages))}", o))
            write(host, i, f"{host} {i}", rng.choice(TOPIC_TEXT + OTHER_TEXT), links)
for host, topic in OUTSIDE:
    for i in range(pages):
        links = [(path(c), f"p{c}") for c in (3 * i + 1, 3 * i + 2, 3 * i + 3) if c < pages]
        for _ in range(2):
            o, _t = rng.choice(OUTSIDE)
            links.append((f"http://{o}:{port}{path(rng.randrange(pages))}", o))
        text = rng.choice(TOPIC_TEXT) if topic and rng.random() < 0.7 else rng.choice(OTHER_TEXT)
        title = "研究生论文" if topic and rng.random() < 0.5 else f"{host} {i}"
        write(host, i, title, text, links)
for host in all_org_hosts + [h for h, _ in OUTSIDE]:
    print(host)
