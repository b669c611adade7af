#!/usr/bin/env python3
"""A third generator of reward sequences for the budget rules (issue 20's protocol), unlike
bench/yield_families.py (a reward series) and bench/yield_heldout.py (a section tree): here a
site is a stream of pages that *draw link identities* from pools, and a page's reward is the
number of links its site's crawl had not seen before (`BanditReward = NewExternal`), so rot,
repeats and bursts come from the draws, not from a shape written by hand.

usage: yield_pools.py OUT_DIR SEEDS [FIRST_SEED]

Writes OUT_DIR/p-<family>-<seed>.csv (`Site,Page,Reward,Level`) for seeds FIRST_SEED ..
FIRST_SEED + SEEDS - 1 of the families p-institutes, p-universities and p-sample (the BeeBot
paper's Table 1: its academy institutes, its universities, its ten-site sample). The protocol
tunes on seeds 0.. and tests on seeds 1000.. (a different seed range, never tuned on).

A site of P pages and about L distinct external links (Table 1, jittered log-normally) has
- navigation: a header/footer of h links on every page from the home page on (new once);
- sections: the pages come in sections (runs of pages in breadth-first order, as a
  directory's pages do), each with a pool of links drawn with Zipf popularity by the pages
  of that section, so a section pays well at first and less as its pool is used up; a new
  section starts fresh;
- link lists: pages listing many links of their own (sizes Pareto, alpha 1.2, 20 to 800)
  at a rate that differs between sites by a factor of up to 100 and, per site, sits near
  the root, uniformly, or in one band of the site (a "links" directory), so some sites keep
  their links deep;
- institutes put most of their links into lists (the paper: "many pages with no external
  links and a few with very many"); universities put them into the sections' pools and the
  navigation ("a small number of links made from many pages").
"""
import math
import os
import random
import sys

INSTITUTES = [(1298, 29), (1100, 69), (2411, 48), (39292, 3192), (3523, 129)]
UNIVERSITIES = [(431, 19), (1766, 409), (1471, 214), (12935, 903), (7253, 1048)]
CAP = 10000  # the largest budget replayed: no rule takes more of one site


def pareto(rng, alpha, lo, hi):
    return min(hi, int(lo / rng.random() ** (1.0 / alpha)))


def zipf_pick(rng, n, s=1.1):
    """An index in [0, n) with Zipf(s) popularity (inverse transform on a continuous
    approximation)."""
    u = rng.random()
    if s == 1.0:
        return min(n - 1, int(math.exp(u * math.log(n + 1))) - 1)
    a = 1.0 - s
    x = ((n + 1) ** a - 1) * u + 1
    return min(n - 1, max(0, int(x ** (1.0 / a)) - 1))


def site(rng, pages, links, list_share, nav_share, site_pool_share, runs=(1,)):
    pages = min(pages, CAP)
    rewards = [0] * pages
    nav = max(1, round(links * nav_share))
    rewards[0] += nav
    in_lists = round(links * list_share)
    in_pools = max(0, links - nav - in_lists)
    # A site-wide pool (links every part of the site repeats: partners, social media, the
    # university's own services), drawn by every page: the site as a whole rots.
    site_pool = round(in_pools * site_pool_share)
    in_pools -= site_pool
    seen = set()
    next_id = site_pool
    site_draws = rng.uniform(0.3, 3.0)
    if site_pool:
        for j in range(1, pages):
            for _ in range(int(rng.expovariate(1.0 / site_draws))):
                link = zipf_pick(rng, site_pool, 1.0)
                if link not in seen:
                    seen.add(link)
                    rewards[j] += 1
    # Sections: runs of pages, sizes log-uniform 5..400.
    bounds, at = [], 1
    while at < pages:
        size = int(math.exp(rng.uniform(math.log(5), math.log(400))))
        bounds.append((at, min(pages, at + size)))
        at += size
    # Pool links split between sections unevenly (Dirichlet-like).
    weights = [rng.expovariate(1.0) ** 2 for _ in bounds]
    total_w = sum(weights) or 1.0
    draws = rng.uniform(0.5, 4.0)  # link draws per page from its section's pool
    for (lo, hi), w in zip(bounds, weights):
        pool = max(0, round(in_pools * w / total_w))
        if pool == 0:
            continue
        ids = list(range(next_id, next_id + pool))
        next_id += pool
        for j in range(lo, hi):
            k = int(rng.expovariate(1.0 / draws))
            for _ in range(k):
                link = ids[zipf_pick(rng, pool)]
                if link not in seen:
                    seen.add(link)
                    rewards[j] += 1
    # Link lists.
    where = rng.choice(["root", "uniform", "band"])
    tau = rng.uniform(0.02, 0.3) * pages
    band_lo = rng.uniform(0.1, 0.8) * pages
    band_w = rng.uniform(0.02, 0.15) * pages
    while in_lists > 0:
        size = min(in_lists, pareto(rng, 1.2, 20, 800))
        if where == "root":
            j = 1 + int(rng.expovariate(1.0 / tau))
        elif where == "uniform":
            j = rng.randrange(1, max(2, pages))
        else:
            j = int(band_lo + rng.random() * band_w)
        run = rng.choice(runs)
        for r in range(run):
            rewards[min(pages - 1, max(1, j + r))] += size // run + (1 if r < size % run else 0)
        in_lists -= size
    return rewards


def jitter(rng, row):
    pages, links = row
    f = math.exp(rng.gauss(0, 0.5))
    g = math.exp(rng.gauss(0, 0.5))
    return max(50, int(pages * f)), max(3, int(links * f * g))


def institute(rng, row):
    p, l = jitter(rng, row)
    return site(rng, p, l, rng.uniform(0.6, 0.95), rng.uniform(0.01, 0.1), rng.uniform(0.0, 0.4))


def university(rng, row):
    p, l = jitter(rng, row)
    return site(rng, p, l, rng.uniform(0.0, 0.3), rng.uniform(0.02, 0.15), rng.uniform(0.5, 1.0))


def directory_site(rng, row):
    """Paginated link directories (runs of 2-12 list pages) somewhere in the site, a big
    navigation that says nothing about the rest, sections that rot."""
    p, l = jitter(rng, row)
    return site(rng, p, l, rng.uniform(0.3, 0.9), rng.uniform(0.05, 0.4), rng.uniform(0.0, 1.0), (2, 3, 5, 8, 12))


def rotting_site(rng, row):
    """A navigation whose size says nothing of the rest (drawn on its own), links every page
    repeats (the site rots as a whole), and lists deep in the site for some."""
    p, l = jitter(rng, row)
    r = site(rng, p, l, rng.uniform(0.0, 0.6), 0.0, rng.uniform(0.6, 1.0), (1, 2, 4))
    r[0] += int(math.exp(rng.uniform(math.log(5), math.log(400))))
    return r


FAMILIES = {
    "p-rotting": lambda rng: [rotting_site(rng, rng.choice(INSTITUTES + UNIVERSITIES)) for _ in range(10)],
    "p-directories": lambda rng: [directory_site(rng, rng.choice(INSTITUTES + UNIVERSITIES)) for _ in range(10)],
    "p-institutes": lambda rng: [institute(rng, rng.choice(INSTITUTES)) for _ in range(10)],
    "p-universities": lambda rng: [university(rng, rng.choice(UNIVERSITIES)) for _ in range(10)],
    "p-sample": lambda rng: [institute(rng, r) for r in INSTITUTES]
    + [university(rng, r) for r in UNIVERSITIES],
}


def main():
    out = sys.argv[1]
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    first = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    os.makedirs(out, exist_ok=True)
    for name, make in FAMILIES.items():
        for seed in range(first, first + seeds):
            rng = random.Random(f"{name}-{seed}")
            with open(os.path.join(out, f"{name}-{seed}.csv"), "w") as f:
                f.write("Site,Page,Reward,Level\n")
                for k, rewards in enumerate(make(rng)):
                    for i, x in enumerate(rewards):
                        level = 0 if i == 0 else 1 + int(math.log(i, 12))
                        f.write(f"s{k},/s{k}/{i},{x},{level}\n")


if __name__ == "__main__":
    main()
