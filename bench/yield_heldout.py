#!/usr/bin/env python3
"""Held-out synthetic reward sequences for the budget rules' test set (issue 20's protocol):
sites shaped like the BeeBot paper's universities, academy institutes and ten-site sample, made
by a different generator than bench/yield_families.py (which the rules may be tuned on), with
other seeds. Nothing here is used to choose a rule's parameters.

usage: yield_heldout.py OUT_DIR [SEEDS]

Writes OUT_DIR/<family>-<seed>.csv (`Site,Page,Reward,Level`), families `h-universities`,
`h-institutes` and `h-sample`, SEEDS seeds each (default 20).

The model is a link graph, not a reward series: a site is a tree of pages (random fan-out)
crawled breadth-first; every page links to external URLs drawn from
- the site's navigation (header and footer: the same links on every page, new once),
- its section's pool (a section is a subtree under the home page; its links have Zipf
  popularity, so a section's yield falls as it is crawled, each section at its own pace),
- and, on rare "directory" pages, a list of fresh links (Pareto sizes, some deep).
The reward of a page is the number of links on it the crawl of that site had not seen before,
as `BanditReward = NewExternal` counts them. Sizes are drawn around the paper's Table 1
(pages, distinct external links), log-uniform within a factor of two.
"""
import math
import os
import random
import sys

INSTITUTES = [(1298, 29), (1100, 69), (2411, 48), (39292, 3192), (3523, 129)]
UNIVERSITIES = [(431, 19), (1766, 409), (1471, 214), (12935, 903), (7253, 1048)]
CAP = 10000  # the largest budget replayed


def tree(rng, pages):
    """Breadth-first order of a random tree: (level, section) of each page; section 0 is the
    home page, sections are the home page's children."""
    out = [(0, 0)]
    frontier = [(0, 0, rng.randint(6, 25))]  # (level, section, children)
    i = 0
    while len(out) < pages and i < len(frontier):
        level, section, children = frontier[i]
        i += 1
        for c in range(children):
            if len(out) >= pages:
                break
            s = len(out) if level == 0 else section
            out.append((level + 1, s))
            fan = rng.choice([0, 0, 1, 2, 3, 5, 8, 12, 20])
            frontier.append((level + 1, s, fan))
        if i == len(frontier) and len(out) < pages:
            # The tree ran dry: give the last level more children.
            frontier.append((level + 1, section, rng.randint(5, 20)))
    return out


def site(rng, pages, links, directory_share, nav_share):
    shape = tree(rng, pages)
    sections = sorted({s for _, s in shape})
    seen = set()
    next_id = [0]

    def fresh():
        next_id[0] += 1
        return next_id[0]

    nav = [fresh() for _ in range(max(1, int(links * nav_share)))]
    left = max(1, links - len(nav))
    in_dirs = int(left * directory_share)
    # Section pools: Zipf-popular links; a section's share of the site's links is skewed.
    weights = [rng.paretovariate(1.2) for _ in sections]
    total_w = sum(weights)
    pools = {}
    for s, w in zip(sections, weights):
        size = max(1, int((left - in_dirs) * w / total_w))
        pools[s] = [fresh() for _ in range(size)]
    per_page = {s: rng.uniform(0.3, 4.0) for s in sections}
    zipf = {s: rng.uniform(0.8, 1.6) for s in sections}
    directories = set()
    budget = in_dirs
    while budget > 0 and pages > 1:
        size = min(budget, 600, int(20 / rng.random() ** (1 / 1.1)))
        depth_bias = rng.choice([0.3, 1.0, 3.0])
        at = min(pages - 1, 1 + int((pages - 1) * rng.random() ** depth_bias))
        directories.add((at, size))
        budget -= size
    dir_at = {}
    for at, size in directories:
        dir_at[at] = dir_at.get(at, 0) + size
    rewards = []
    for j, (_, s) in enumerate(shape):
        new = 0
        for link in nav if j == 0 or rng.random() < 0.02 else ():
            if link not in seen:
                seen.add(link)
                new += 1
        pool = pools.get(s, [])
        if pool:
            k = int(rng.expovariate(1 / per_page[s]))
            for _ in range(k):
                # Zipf rank by inverse transform on a truncated power law.
                u = rng.random()
                a = zipf[s]
                n = len(pool)
                if a == 1.0:
                    r = int(n ** u) - 1
                else:
                    r = int(((n ** (1 - a) - 1) * u + 1) ** (1 / (1 - a))) - 1
                link = pool[max(0, min(n - 1, r))]
                if link not in seen:
                    seen.add(link)
                    new += 1
        if j in dir_at:
            new += dir_at[j]
        rewards.append(new)
    return rewards, [lvl for lvl, _ in shape]


def draw(rng, row):
    pages, links = row
    f = math.exp(rng.uniform(-math.log(2), math.log(2)))
    g = math.exp(rng.uniform(-math.log(2), math.log(2)))
    return max(80, int(pages * f)), max(5, int(links * f * g))


def institute(rng, row):
    pages, links = draw(rng, row)
    return site(rng, pages, links, rng.uniform(0.6, 0.95), rng.uniform(0.01, 0.1))


def university(rng, row):
    pages, links = draw(rng, row)
    return site(rng, pages, links, rng.uniform(0.0, 0.3), rng.uniform(0.03, 0.25))


FAMILIES = {
    "h-institutes": lambda rng: [institute(rng, rng.choice(INSTITUTES)) for _ in range(10)],
    "h-universities": lambda rng: [university(rng, rng.choice(UNIVERSITIES)) for _ in range(10)],
    "h-sample": lambda rng: [institute(rng, r) for r in INSTITUTES]
    + [university(rng, r) for r in UNIVERSITIES],
}


def main():
    out = sys.argv[1]
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    os.makedirs(out, exist_ok=True)
    for name, make in FAMILIES.items():
        for seed in range(seeds):
            rng = random.Random(f"held-out {name} {seed + 7919}")
            with open(os.path.join(out, f"{name}-{seed}.csv"), "w") as f:
                f.write("Site,Page,Reward,Level\n")
                for k, (rewards, levels) in enumerate(make(rng)):
                    for i, (x, level) in enumerate(zip(rewards[:CAP], levels)):
                        f.write(f"h{k},/h{k}/{i},{x},{level}\n")


if __name__ == "__main__":
    main()
