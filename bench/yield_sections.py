#!/usr/bin/env python3
"""Splits one crawled site's yield.csv into its sections, one "site" per section, for
`rccrawler replay`: a large site's sections are sites of their own kind (an API reference,
a book, a changelog), so one real crawl gives a real multi-arm problem.

usage: yield_sections.py SITE_RESULTS_DIR OUT.csv [Reward|ExternalLinks] [DEPTH]

Each page goes to the first DEPTH segments of its path (DEPTH 1 by default: /std/... ->
"std"; DEPTH 2: /std/io/... -> "std/io"); pages with fewer segments go to "(root)" or to
their parent section. A section's pages keep the crawl's breadth-first order. Writes
`Site,Page,Reward,Level`.
"""
import csv
import sys
from urllib.parse import urlsplit

src, out = sys.argv[1], sys.argv[2]
column = sys.argv[3] if len(sys.argv) > 3 else "Reward"
depth = int(sys.argv[4]) if len(sys.argv) > 4 else 1
with open(f"{src}/yield.csv", newline="") as f, open(out, "w", newline="") as g:
    w = csv.writer(g)
    w.writerow(["Site", "Page", "Reward", "Level"])
    for row in csv.DictReader(f):
        folders = urlsplit(row["Page"]).path.split("/")[1:-1]
        section = "/".join(folders[:depth]) or "(root)"
        w.writerow([section, row["Page"], row[column], row["Level"]])
