#!/usr/bin/env python3
"""Mean fraction of the oracle per data set, budget and rule, from `rccrawler replay --csv`
files.

usage: replay_report.py SET=FILE.csv [SET=FILE.csv ...]

Several files may share a SET (the seeds of a synthetic family); a set's figure is the mean
of its files' ratios. Prints a Markdown table per budget: rows are rules, columns sets.
"""
import collections
import csv
import sys

ratios = collections.defaultdict(list)  # (budget, rule, set) -> [ratio]
sets, rules, budgets = [], [], []
for arg in sys.argv[1:]:
    name, path = arg.split("=", 1)
    if name not in sets:
        sets.append(name)
    for row in csv.DictReader(open(path)):
        b, r = int(row["Budget"]), row["Rule"]
        if b not in budgets:
            budgets.append(b)
        if r not in rules:
            rules.append(r)
        ratios[(b, r, name)].append(float(row["Ratio"]))

for b in sorted(budgets):
    print(f"\nN = {b}: mean fraction of the oracle\n")
    print("| rule | " + " | ".join(sets) + " | mean |")
    print("|---|" + "---|" * (len(sets) + 1))
    for r in rules:
        cells = []
        for s in sets:
            v = ratios.get((b, r, s))
            cells.append(sum(v) / len(v) if v else None)
        known = [c for c in cells if c is not None]
        mean = sum(known) / len(known) if known else 0
        print(f"| {r} | " + " | ".join("" if c is None else f"{c:.3f}" for c in cells) + f" | {mean:.3f} |")
