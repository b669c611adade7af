#!/usr/bin/env python3
"""Splits one crawled site's yield.csv into its sections, one "site" per section, for
`rccrawler replay`: a large site's sections are sites of their own kind (an API reference,
a book, a changelog), so one real crawl gives a real multi-arm problem.

usage: yield_sections.py SITE_RESULTS_DIR OUT.csv [Reward|ExternalLinks|SectionNew] [DEPTH|prefix|module] [TOP]

Each page goes to the first DEPTH segments of its path (DEPTH 1 by default: /std/... ->
"std"; DEPTH 2: /std/io/... -> "std/io"); pages with fewer segments go to "(root)" or to
their parent section. `prefix` splits a flat site (the PostgreSQL manual's one folder) by
the file name's first word instead (sql-select.html -> "sql", plpgsql-control.html ->
"plpgsql"), sections of fewer than 10 pages merged into "(other)". `module` splits a Sphinx
API reference by the module its file names spell (scipy.sparse.linalg.eigs.html and
sparse.linalg.html -> "sparse"; the package's own name, the most common first word, left
out); pages whose names have no dot go by their first folder. A section's pages keep the
crawl's breadth-first order. Writes `Site,Page,Reward,Level`.

The reward column: `Reward` (external links new to the whole crawl, as the crawl counted
them), `ExternalLinks` (every external link of the page), or `SectionNew` (external links
new to the page's *section*, read from nodes.csv and external_links.csv: each section
counted as a site crawled on its own would count it). TOP keeps the TOP largest sections,
"(root)" left out.
"""
import collections
import csv
import re
import sys
from urllib.parse import urlsplit

src, out = sys.argv[1], sys.argv[2]
column = sys.argv[3] if len(sys.argv) > 3 else "Reward"
mode = sys.argv[4] if len(sys.argv) > 4 else "1"
top = int(sys.argv[5]) if len(sys.argv) > 5 else 0


def stem_words(page):
    name = urlsplit(page).path.rsplit("/", 1)[-1]
    return name.removesuffix(".html").split(".")


def section_of(page, package=None):
    path = urlsplit(page).path
    words = stem_words(page)
    if mode == "module" and len(words) >= 2:
        return words[1] if words[0] == package else words[0]
    if mode == "prefix":
        name = path.rsplit("/", 1)[-1]
        return re.split(r"[-.]", name, maxsplit=1)[0] or "(root)"
    folders = path.split("/")[1:-1]
    return "/".join(folders[: 1 if mode == "module" else int(mode)]) or "(root)"


def section_new(rows):
    """Rewards counted per section: links its earlier pages had not shown."""
    with open(f"{src}/nodes.csv", newline="") as f:
        id_of = {r["Label"]: r["Id"] for r in csv.DictReader(f)}
    links = collections.defaultdict(set)
    with open(f"{src}/external_links.csv", newline="") as f:
        for r in csv.DictReader(f):
            links[r["Source"]].add(r["Url"])
    seen = collections.defaultdict(set)
    out_rows = []
    for sec, page, _, level in rows:
        page_links = links.get(id_of.get(page, ""), set())
        new = page_links - seen[sec]
        seen[sec] |= new
        out_rows.append((sec, page, str(len(new)), level))
    return out_rows


source_column = "Reward" if column == "SectionNew" else column
with open(f"{src}/yield.csv", newline="") as f:
    read = list(csv.DictReader(f))
firsts = collections.Counter(w[0] for w in map(stem_words, (r["Page"] for r in read)) if len(w) >= 3)
package = firsts.most_common(1)[0][0] if firsts else None
rows = [(section_of(r["Page"], package), r["Page"], r[source_column], r["Level"]) for r in read]
if mode == "prefix":
    sizes = collections.Counter(r[0] for r in rows)
    rows = [((r[0] if sizes[r[0]] >= 10 else "(other)"),) + r[1:] for r in rows]
if top:
    sizes = collections.Counter(r[0] for r in rows if r[0] != "(root)")
    keep = {s for s, _ in sizes.most_common(top)}
    rows = [r for r in rows if r[0] in keep]
if column == "SectionNew":
    rows = section_new(rows)
with open(out, "w", newline="") as g:
    w = csv.writer(g)
    w.writerow(["Site", "Page", "Reward", "Level"])
    w.writerows(rows)
