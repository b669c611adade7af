#!/usr/bin/env python3
"""Real multi-site problems drawn from real sequences, for `rccrawler replay`: one real
crawl is one problem, and a rule can be lucky or unlucky on it (a link list one page beyond
where it stopped); many draws of sites from a pool of real sequences average that out.

usage: yield_mix.py OUT_DIR SEEDS SOURCE [SOURCE ...]

A SOURCE is a CSV `Site,Page,Reward[,Level]` or a results folder (each site's yield.csv).
Sequences of fewer than 10 pages are left out. Seed s draws 10 sites (even s) or 20 sites
(odd s) without replacement and writes OUT_DIR/realmix-<s>.csv. Deterministic for a seed.
"""
import csv
import glob
import os
import random
import sys


def load(source):
    seqs = {}
    label = os.path.basename(os.path.normpath(source))
    if label == "results":
        label = os.path.basename(os.path.dirname(os.path.normpath(source)))
    files = [source] if os.path.isfile(source) else sorted(glob.glob(f"{source}/*/yield.csv"))
    for path in files:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                site = row.get("Site") or os.path.basename(os.path.dirname(path))
                seqs.setdefault(f"{label}:{site}", []).append((row["Reward"], row.get("Level", "0")))
    return seqs


def main():
    out, seeds, sources = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    pool = {}
    for s in sources:
        pool.update(load(s))
    names = sorted(n for n, seq in pool.items() if len(seq) >= 10)
    os.makedirs(out, exist_ok=True)
    for seed in range(seeds):
        rng = random.Random(f"realmix-{seed}")
        chosen = rng.sample(names, min(len(names), 10 if seed % 2 == 0 else 20))
        with open(os.path.join(out, f"realmix-{seed}.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["Site", "Page", "Reward", "Level"])
            for name in chosen:
                for i, (reward, level) in enumerate(pool[name]):
                    w.writerow([name, i, reward, level])


if __name__ == "__main__":
    main()
