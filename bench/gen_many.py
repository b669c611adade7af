#!/usr/bin/env python3
"""Generates the site templates of the many-site benchmark (bench/many_sites.sh).

usage: gen_many.py OUT_DIR TEMPLATES [SEED] [small]

Writes OUT_DIR/tpl<T>/ for T in 0..TEMPLATES: small sites of different shapes, each served by
nginx for every host `s<K>-t<T>.test` (so thousands of sites need only a few templates on
disk). The shapes are not the documentation site of gen_site.py (the benchmarks were tuned
on that one): a university department (people, courses, news by year), a shop-like catalogue
(categories, products), a blog (year/month archives, posts) and a flat wiki, 30 to 300 pages,
levels 2 to 6, with links to other sites of the benchmark and to hosts outside it.

With `small`, every template is a site of 5 to 15 pages (about 10: bench/million.sh's million
sites), levels 1 to 3: a home page, sections, pages linking each other and outside.
"""
import os
import random
import sys

out, templates = sys.argv[1], int(sys.argv[2])
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 11
small_sites = len(sys.argv) > 4 and sys.argv[4] == "small"


def page(title, body):
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


def write(root, path, html):
    full = os.path.join(root, path.lstrip("/"))
    if path.endswith("/"):
        full = os.path.join(full, "index.html")
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(html)


def external(rng, n):
    links = []
    for _ in range(n):
        k = rng.randrange(20000)
        t = k % templates
        if rng.random() < 0.5:
            links.append(f'<a href="http://s{k}-t{t}.test/">partner {k}</a>')
        else:
            links.append(f'<a href="https://www.org{rng.randrange(5000)}.example/p{rng.randrange(50)}">ref</a>')
    return " ".join(links)


def text(rng, words):
    vocab = "research teaching students faculty course seminar lab project paper data model network system theory".split()
    return " ".join(rng.choice(vocab) for _ in range(words))


def department(root, rng):
    people = [f"/people/{i}.html" for i in range(rng.randint(10, 60))]
    courses = [f"/courses/c{i}/" for i in range(rng.randint(5, 30))]
    years = list(range(2015, 2015 + rng.randint(3, 9)))
    news = {y: [f"/news/{y}/item{i}.html" for i in range(rng.randint(3, 15))] for y in years}
    nav = '<a href="/">Home</a> <a href="/people/">People</a> <a href="/courses/">Courses</a> <a href="/news/">News</a>'
    write(root, "/", page("Department", nav + text(rng, 80) + external(rng, 5)))
    write(root, "/people/", page("People", nav + " ".join(f'<a href="{p}">person</a>' for p in people)))
    for p in people:
        write(root, p, page("Person", nav + text(rng, 60) + external(rng, rng.randint(0, 4))
                            + " ".join(f'<a href="{c}">course</a>' for c in rng.sample(courses, min(3, len(courses))))))
    write(root, "/courses/", page("Courses", nav + " ".join(f'<a href="{c}">c</a>' for c in courses)))
    for c in courses:
        write(root, c, page("Course", nav + text(rng, 100) + f'<a href="{c}syllabus.html">syllabus</a>'))
        write(root, c + "syllabus.html", page("Syllabus", nav + text(rng, 200) + external(rng, 2)))
    write(root, "/news/", page("News", nav + " ".join(f'<a href="/news/{y}/">{y}</a>' for y in years)))
    for y in years:
        write(root, f"/news/{y}/", page(f"News {y}", nav + " ".join(f'<a href="{n}">item</a>' for n in news[y])))
        for n in news[y]:
            write(root, n, page("Item", nav + text(rng, 120) + external(rng, rng.randint(0, 6))))


def catalogue(root, rng):
    cats = [f"/c/{w}/" for w in rng.sample("books music tools garden toys games food home sport art".split(), rng.randint(3, 10))]
    nav = '<a href="/">Shop</a> ' + " ".join(f'<a href="{c}">cat</a>' for c in cats)
    write(root, "/", page("Shop", nav + text(rng, 40)))
    for c in cats:
        items = [f"{c}item-{rng.randrange(10**6)}.html" for _ in range(rng.randint(5, 30))]
        write(root, c, page("Category", nav + " ".join(f'<a href="{i}">item</a>' for i in items)))
        for i in items:
            related = " ".join(f'<a href="{j}">related</a>' for j in rng.sample(items, min(4, len(items))))
            write(root, i, page("Item", nav + text(rng, 50) + related + external(rng, rng.randint(0, 2))))


def blog(root, rng):
    posts = []
    for y in range(2010, 2010 + rng.randint(2, 8)):
        for m in range(1, 13):
            if rng.random() < 0.5:
                posts.append((y, m, f"/{y}/{m:02d}/post-{rng.randrange(10**4)}.html"))
    nav = '<a href="/">Blog</a> <a href="/archive/">Archive</a>'
    write(root, "/", page("Blog", nav + " ".join(f'<a href="{p}">post</a>' for _, _, p in posts[-10:])))
    months = sorted({(y, m) for y, m, _ in posts})
    write(root, "/archive/", page("Archive", nav + " ".join(f'<a href="/{y}/{m:02d}/">{y}-{m}</a>' for y, m in months)))
    for y, m in months:
        here = [p for yy, mm, p in posts if (yy, mm) == (y, m)]
        write(root, f"/{y}/{m:02d}/", page("Month", nav + " ".join(f'<a href="{p}">post</a>' for p in here)))
    for i, (_, _, p) in enumerate(posts):
        prev = f'<a href="{posts[i - 1][2]}">previous</a>' if i else ""
        write(root, p, page("Post", nav + prev + text(rng, 150) + external(rng, rng.randint(0, 8))))


def wiki(root, rng):
    n = rng.randint(30, 200)
    names = [f"/wiki/Page_{i}" for i in range(n)]
    write(root, "/", page("Wiki", '<a href="/wiki/Page_0">start</a>' + text(rng, 30)))
    for i, p in enumerate(names):
        links = " ".join(f'<a href="{q}">see</a>' for q in rng.sample(names, min(8, n)))
        write(root, p + ".html" if False else p, page(p, links + text(rng, 90) + external(rng, rng.randint(0, 3))))


def small(root, rng):
    sections = [f"/{w}/" for w in rng.sample("about news people research contact events".split(), rng.randint(1, 3))]
    pages = [f"{rng.choice(sections)}p{i}.html" for i in range(rng.randint(2, 11))]
    nav = '<a href="/">Home</a> ' + " ".join(f'<a href="{s}">section</a>' for s in sections)
    write(root, "/", page("Home", nav + text(rng, 60) + external(rng, rng.randint(1, 4))))
    for s in sections:
        here = [p for p in pages if p.startswith(s)]
        write(root, s, page("Section", nav + " ".join(f'<a href="{p}">page</a>' for p in here)))
    for p in pages:
        see = " ".join(f'<a href="{q}">see</a>' for q in rng.sample(pages, min(2, len(pages))))
        write(root, p, page("Page", nav + see + text(rng, 80) + external(rng, rng.randint(0, 3))))


kinds = [small] if small_sites else [department, catalogue, blog, wiki]
for t in range(templates):
    rng = random.Random(seed * 1000 + t)
    root = os.path.join(out, f"tpl{t}")
    os.makedirs(root, exist_ok=True)
    kinds[t % len(kinds)](root, rng)
