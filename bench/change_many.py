#!/usr/bin/env python3
"""A year later: a changed copy of the many-site web's templates (bench/compare.sh).

usage: change_many.py SRC_DIR DST_DIR [SEED]

Copies SRC_DIR (gen_many.py's templates) to DST_DIR and changes each template the way sites
change between two crawls: EDIT of its pages edited (a paragraph added), GONE removed (their
links now answer 404), NEW pages added and linked from the home page, and one more partner
link on the home page. Shares of pages, by the seed's draw.
"""
import os
import random
import shutil
import sys

EDIT, GONE, NEW = 0.10, 0.05, 0.05

src, dst = sys.argv[1], sys.argv[2]
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
if os.path.exists(dst):
    shutil.rmtree(dst)
shutil.copytree(src, dst)
for tpl in sorted(os.listdir(dst)):
    root = os.path.join(dst, tpl)
    pages = sorted(
        os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".html")
    )
    home = os.path.join(root, "index.html")
    others = [p for p in pages if p != home]
    for p in others:
        r = rng.random()
        if r < GONE:
            os.remove(p)
        elif r < GONE + EDIT:
            with open(p) as f:
                html = f.read()
            with open(p, "w") as f:
                f.write(html.replace("</body>", "<p>Updated this year.</p></body>"))
    added = []
    for i in range(max(1, int(len(pages) * NEW))):
        path = f"/new/{i}.html"
        os.makedirs(os.path.join(root, "new"), exist_ok=True)
        with open(os.path.join(root, "new", f"{i}.html"), "w") as f:
            f.write(f"<html><head><title>New {i}</title></head><body><p>New page {i} of {tpl}</p></body></html>")
        added.append(f'<a href="{path}">new {i}</a>')
    k = rng.randrange(20000)
    added.append(f'<a href="http://partner{k}.example.org/">new partner</a>')
    with open(home) as f:
        html = f.read()
    with open(home, "w") as f:
        f.write(html.replace("</body>", "".join(added) + "</body>"))
