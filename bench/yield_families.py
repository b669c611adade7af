#!/usr/bin/env python3
"""Synthetic reward sequences for `rccrawler replay`: sites whose pages yield external links
the way the BeeBot paper's sites do, calibrated on its Table 1.

usage: yield_families.py OUT_DIR [SEEDS]

Writes OUT_DIR/<family>-<seed>.csv (`Site,Page,Reward,Level`) for SEEDS seeds (default 20)
of each family:

- institutes: the paper's five academy institutes (Table 1: pages, distinct external links),
  "many pages without external links and a few pages with very many" — link lists.
- universities: its five universities, "a small number of links made from many pages" —
  navigation and footers, then a trickle.
- sample: the paper's ten-site sample, five of each.
- heavytail: mostly empty pages and link lists of 50-600 links at a rate that differs
  widely between sites (and is higher near the root), a footer, a thin rotting trickle.
- testweb: the shapes of the test webs, larger: footers, deep link lists, late starters,
  steady sites and barren ones.

A site's sequence is its breadth-first pages: the home page's navigation links, link lists
of heavy-tailed size (hubs sit near the root but some lists are deep, and lists come in
runs, like paginated directories), and a trickle of one-to-three-link pages that thins out
with depth; some sites start late. Sizes are drawn around the Table 1 figures (log-normal,
sigma 0.4), so each seed is a different set of sites of the same kind. Deterministic for a
seed; rewards count new distinct links (the crawl's default `BanditReward`).
"""
import math
import os
import random
import sys

# Table 1 of the paper: (pages, distinct external links).
INSTITUTES = [(1298, 29), (1100, 69), (2411, 48), (39292, 3192), (3523, 129)]
UNIVERSITIES = [(431, 19), (1766, 409), (1471, 214), (12935, 903), (7253, 1048)]
FANOUT = 12  # pages per level ratio, for the Level column
CAP = 10000  # the largest budget replayed


def levels(pages):
    """The level of each breadth-first position in a tree with FANOUT children a page."""
    out, level, width, i = [], 0, 1, 0
    while i < pages:
        for _ in range(min(width, pages - i)):
            out.append(level)
        i += width
        level += 1
        width *= FANOUT
    return out


def place(rng, pages, spread):
    """A position, near the root more often than not (spread in (0, 1]: 1 = uniform)."""
    return min(pages - 1, int(pages * rng.random() ** (1.0 / spread)))


def site(rng, pages, links, lists_share, footer_share, late):
    """One site's rewards, breadth-first, with `links` distinct links in all."""
    rewards = [0] * pages
    footer = max(1, round(links * footer_share))
    rewards[0] += footer
    for j in range(1, min(4, pages)):
        extra = rng.randint(0, max(1, footer // 4))
        rewards[j] += extra
    left = max(0, links - sum(rewards))
    start = int(pages * rng.uniform(0.2, 0.6)) if late else 1
    span = max(1, pages - start)
    in_lists = round(left * lists_share)
    # Link lists: Pareto sizes (alpha 1.1, at least 15, at most 600), placed in runs.
    while in_lists > 0:
        size = min(in_lists, 600, int(15 / rng.random() ** (1 / 1.1)))
        run = rng.choice([1, 1, 1, 2, 3, 5])
        at = start + place(rng, span, rng.choice([0.25, 0.5, 1.0]))
        for k in range(run):
            part = size // run + (1 if k < size % run else 0)
            rewards[min(pages - 1, at + k)] += part
        in_lists -= size
    trickle = left - round(left * lists_share)
    tau = rng.uniform(0.1, 1.0)
    while trickle > 0:
        n = min(trickle, rng.choice([1, 1, 1, 2, 3]))
        pos = start + min(span - 1, int(-math.log(1 - rng.random()) * tau * span))
        rewards[pos] += n
        trickle -= n
    return rewards


def jitter(rng, pages, links):
    f = math.exp(rng.gauss(0, 0.4))
    g = math.exp(rng.gauss(0, 0.4))
    return max(60, int(pages * f)), max(3, int(links * f * g))


def institute(rng, row):
    pages, links = jitter(rng, *row)
    return site(rng, pages, links, rng.uniform(0.7, 0.95), rng.uniform(0.02, 0.2), rng.random() < 0.2)


def university(rng, row):
    pages, links = jitter(rng, *row)
    return site(rng, pages, links, rng.uniform(0.05, 0.4), rng.uniform(0.05, 0.3), rng.random() < 0.1)


def testweb_site(rng, kind):
    pages = int(math.exp(rng.uniform(math.log(200), math.log(20000))))
    r = [0] * pages
    if kind == "footer":
        r[0] = rng.randint(5, 30)
    elif kind == "deeplist":
        r[0] = rng.randint(0, 3)
        depth = levels(pages)
        deep = [i for i, d in enumerate(depth) if d >= 2] or [pages - 1]
        for _ in range(rng.randint(1, 6)):
            r[rng.choice(deep)] += rng.randint(40, 600)
    elif kind == "late":
        start = int(pages * rng.uniform(0.3, 0.7))
        for i in range(start, pages):
            r[i] = rng.choice([0, 1, 2, 3, 3])
    elif kind == "steady":
        for i in range(pages):
            r[i] = 1 if rng.random() < rng.uniform(0.3, 1.0) else 0
    return r


def heavy_site(rng, pages):
    """Mostly pages with nothing; link lists of 50-600 at a site-specific rate that is higher
    near the root; a footer on the home page; a thin, rotting trickle."""
    r = [0] * pages
    r[0] = rng.randint(2, 30)
    p_list = math.exp(rng.uniform(math.log(0.0005), math.log(0.08)))
    q = rng.uniform(0.0, 0.3)
    tau = rng.uniform(5, 200)
    for j in range(1, pages):
        near = 1 + 4 * math.exp(-j / tau)
        if rng.random() < p_list * near:
            r[j] = min(600, int(50 / rng.random() ** (1 / 1.2)))
        elif rng.random() < q * math.exp(-j / (10 * tau)):
            r[j] = rng.randint(1, 2)
    return r


FAMILIES = {
    "institutes": lambda rng: [institute(rng, rng.choice(INSTITUTES)) for _ in range(10)],
    "universities": lambda rng: [university(rng, rng.choice(UNIVERSITIES)) for _ in range(10)],
    "sample": lambda rng: [institute(rng, r) for r in INSTITUTES] + [university(rng, r) for r in UNIVERSITIES],
    "heavytail": lambda rng: [
        heavy_site(rng, jitter(rng, *rng.choice(INSTITUTES + UNIVERSITIES))[0]) for _ in range(10)
    ],
    "testweb": lambda rng: [
        testweb_site(rng, k)
        for k in ["footer", "deeplist", "late", "steady", "barren"] * 2
    ],
}


def main():
    out = sys.argv[1]
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    os.makedirs(out, exist_ok=True)
    for name, make in FAMILIES.items():
        for seed in range(seeds):
            rng = random.Random(f"{name}-{seed}")
            sites = make(rng)
            with open(os.path.join(out, f"{name}-{seed}.csv"), "w") as f:
                f.write("Site,Page,Reward,Level\n")
                for k, rewards in enumerate(sites):
                    # No rule or oracle with N <= CAP uses more of one site than CAP pages.
                    rewards = rewards[:CAP]
                    for i, (x, level) in enumerate(zip(rewards, levels(len(rewards)))):
                        f.write(f"s{k},/s{k}/{i},{x},{level}\n")


if __name__ == "__main__":
    main()
