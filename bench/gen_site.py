#!/usr/bin/env python3
"""Generates a large synthetic documentation-like site for the benchmarks.

usage: gen_site.py OUT_DIR PAGES [SEED] [skewed]

Pages /secNN/pageNNN.html in up to 100 sections plus section indexes and a home page, each with a
top navigation (25 links), a sidebar of ~30 neighbouring pages, ~10 in-text links to random
pages (with fragments), external links, and aliases (`./`, `index.html`, `/index.html`).
On average about 70 internal links a page (the RCCrawler paper measured 67); page sizes
from 5 KB to ~1 MB, most of them small, like real documentation. Deterministic for a seed.

With `skewed`, each section also links out in its own way, for the budget-rule data sets of
bench/yields.sh (SPEC section 5): a reference whose every page cites one to three sources, a
changelog whose newest pages carry dozens of issue links, a link list deep in the section,
a section that starts paying halfway, a barren one, and one with only the shared footer.
The default site (the throughput benchmarks') is unchanged: skew draws from its own
generator.
"""
import os
import random
import sys

out, pages = sys.argv[1], int(sys.argv[2])
random.seed(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
skewed = len(sys.argv) > 4 and sys.argv[4] == "skewed"
skew = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
SECTIONS = min(100, max(1, pages // 50))
per = max(1, pages // SECTIONS)
filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. " * 40


def own_links(s, p):
    """The section's own external links on page p (skewed sites only), unique to the page."""
    kind = s % 6
    count = 0
    if kind == 1:
        count = skew.randint(1, 3)
    elif kind == 2 and p < per // 5:
        count = skew.randint(20, 80)
    elif kind == 3 and p > per // 2 and skew.random() < 0.02:
        count = skew.randint(100, 500)
    elif kind == 5 and p >= per // 2:
        count = skew.randint(2, 5)
    return "".join(f'<a href="https://ext{s}.example/{p}/{n}">source {n}</a> ' for n in range(count))


def path(i):
    s, p = divmod(i, per)
    return f"/sec{s:02d}/page{p:03d}.html"


nav = "".join(f'<li><a href="/sec{s:02d}/">Section {s}</a></li>' for s in range(0, SECTIONS, max(1, SECTIONS // 25)))
os.makedirs(out, exist_ok=True)
for s in range(SECTIONS):
    d = f"{out}/sec{s:02d}"
    os.makedirs(d, exist_ok=True)
    links = "".join(f'<a href="page{p:03d}.html">p{p}</a> ' for p in range(per))
    with open(f"{d}/index.html", "w") as f:
        f.write(f"<html><head><title>Section {s}</title></head><body><ul>{nav}</ul>{links}<a href=\"/\">home</a></body></html>")
for i in range(SECTIONS * per):
    s, p = divmod(i, per)
    side = "".join(f'<li><a href="page{q:03d}.html">Page {q}</a></li>' for q in range(max(0, p - 15), min(per, p + 15)))
    content = "".join(
        f'<p>{filler[:random.randint(100, 2000)]} <a href="{path(random.randrange(SECTIONS * per))}#sec">see {j}</a></p>'
        for j in range(10)
    )
    ext = '<a href="https://github.com/example/repo">GitHub</a> <a href="https://example.org/">Example</a>'
    if skewed:
        ext += own_links(s, p)
    size = random.choices([5, 8, 12, 16, 24, 40, 100, 200, 1000], [30, 25, 20, 10, 7, 5, 2, 1, 0.05])[0]
    pad = "<p>" + filler * (size * 1000 // len(filler)) + "</p>" if size > 8 else ""
    html = (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>Page {i}</title></head><body>'
        f"<nav><ul>{nav}</ul></nav><aside><ul>{side}</ul></aside><main>{content}{pad}</main>"
        f'<footer>{ext} <a href="./">index</a> <a href="index.html">index2</a> <a href="/index.html">top</a></footer></body></html>'
    )
    with open(f"{out}{path(i)}", "w") as f:
        f.write(html)
with open(f"{out}/index.html", "w") as f:
    f.write(f"<html><head><title>Docs</title></head><body><ul>{nav}</ul>" + "".join(f'<a href="sec{s:02d}/">S{s}</a>' for s in range(SECTIONS)) + "</body></html>")
