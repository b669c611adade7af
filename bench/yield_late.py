#!/usr/bin/env python3
"""Reward sequences with late starters, for `rccrawler replay` (issue 20's held-out protocol).

usage: yield_late.py OUT_DIR [SEEDS] [FIRST_SEED]

Writes OUT_DIR/<family>-<seed>.csv (`Site,Page,Reward`) for SEEDS seeds (default 20) from
FIRST_SEED (default 0) of two families of ten sites, 1,500 to 12,000 pages each:

- late-soon: five sites pay early and rot (a burst of 20-200 links on the home page, then
  link pages ever rarer over their first 30-150 pages); five pay nothing until 2-10 % of their
  pages, then steadily (a page in two to ten with 1-6 links).
- late-deep: the same, the quiet sites starting at 5-30 % of their pages.

Why: the research note's table of properties lists it ("some sites keep their external links
deep ... greedy rules starve late starters"), and the issue's worst figure is of that kind (on
the mixed sample at N = 10,000 PooledUcb got 0.569 of the oracle where R1 got 0.711). None of
the other generators has sites that pay nothing for hundreds of pages and then steadily, next
to sites whose early burst makes them look rich. bench/yield_protocol.sh uses seeds 0-19 as
test data (late-soon, late-deep; nothing was tuned on them) and seeds 1000-1019 as tuning data
(lt-soon, lt-deep; GuardedUcb's "a rule ahead that stopped paying gives way" was chosen on
them). Deterministic for a seed.
"""
import math
import os
import random
import sys


def early(rng, pages):
    """A burst on the home page, then link pages ever rarer."""
    r = [0] * pages
    r[0] = rng.randint(20, 200)
    tau = rng.uniform(30, 150)
    for j in range(1, pages):
        if rng.random() < 0.3 * math.exp(-j / tau):
            r[j] = rng.randint(1, 20)
    return r


def late(rng, pages, start, rate):
    """Nothing (bar a few links on the home page) until `start`, then steadily."""
    r = [0] * pages
    r[0] = rng.randint(0, 5)
    for j in range(start, pages):
        if rng.random() < rate:
            r[j] = rng.randint(1, 6)
    return r


STARTS = {"late-soon": (0.02, 0.1), "late-deep": (0.05, 0.3)}
CAP = 10000  # the largest budget replayed


def main():
    out = sys.argv[1]
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    first = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    os.makedirs(out, exist_ok=True)
    for family, (lo, hi) in STARTS.items():
        for seed in range(first, first + seeds):
            rng = random.Random(f"{family}-{seed}")
            sites = []
            for k in range(10):
                pages = int(math.exp(rng.uniform(math.log(1500), math.log(12000))))
                if k % 2 == 0:
                    sites.append(early(rng, pages))
                else:
                    start = int(pages * rng.uniform(lo, hi))
                    sites.append(late(rng, pages, start, rng.uniform(0.1, 0.5)))
            with open(os.path.join(out, f"{family}-{seed}.csv"), "w") as f:
                f.write("Site,Page,Reward\n")
                for k, rewards in enumerate(sites):
                    for i, x in enumerate(rewards[:CAP]):
                        f.write(f"s{k},/s{k}/{i},{x}\n")


if __name__ == "__main__":
    main()
