#!/usr/bin/env python3
"""The held-out protocol's tables and check, from `rccrawler replay --csv` files.

usage: protocol_report.py DEFAULT_RULE SPLIT:SET=FILE.csv [SPLIT:SET=FILE.csv ...]

SPLIT is `tune` or `test`. Several files may share a set (the seeds of a family); a cell
(set, budget) is the mean of its files' ratios to the oracle. A file in which every rule got
the whole oracle (the budget covers its pages) is left out of that cell. Prints per split and
budget a Markdown table (rules as rows, sets as columns), then for every cell (tuning, then
test) the default rule against the best of R1, R2, R3, the mean over the synthetic test
families and the default's worst test cell. Exits 1 when the default falls below the best paper rule by more
than 0.01 in any test cell.

A cell of several files (a family's seeds) also shows how sure its margin is: the spread of
the per-file differences (default minus the best paper rule, the same files), as twice their
standard error; a margin below -0.01 by more than that is not the luck of the seeds drawn.
The check itself is the issue's: the mean margin.
"""
import collections
import csv
import sys

PAPER = ("R1", "R2", "R3")
TOLERANCE = 0.01

default = sys.argv[1]
cells = collections.defaultdict(list)  # (split, set, budget, rule) -> [ratio]
sets = {"tune": [], "test": []}
rules, budgets = [], set()
for arg in sys.argv[2:]:
    where, path = arg.split("=", 1)
    split, name = where.split(":", 1)
    if name not in sets[split]:
        sets[split].append(name)
    by_budget = collections.defaultdict(dict)
    for row in csv.DictReader(open(path)):
        by_budget[int(row["Budget"])][row["Rule"]] = float(row["Ratio"])
    for b, ratios in by_budget.items():
        if min(ratios.values()) >= 0.99995:
            continue
        budgets.add(b)
        for r, v in ratios.items():
            if r not in rules:
                rules.append(r)
            cells[(split, name, b, r)].append(v)


def mean(v):
    return sum(v) / len(v) if v else None


def fmt(x):
    return "" if x is None else f"{x:.3f}"


def paired_spread(a, b):
    """Twice the standard error of the mean of a[i] - b[i] (None for fewer than 2 pairs)."""
    if len(a) != len(b) or len(a) < 2:
        return None
    d = [x - y for x, y in zip(a, b)]
    m = sum(d) / len(d)
    var = sum((x - m) ** 2 for x in d) / (len(d) - 1)
    return 2 * (var / len(d)) ** 0.5


for split, title in (("tune", "TUNING set (parameters may be chosen here)"), ("test", "TEST set (held out)")):
    print(f"\n## {title}")
    for b in sorted(budgets):
        print(f"\nN = {b}: mean fraction of the oracle\n")
        print("| rule | " + " | ".join(sets[split]) + " |")
        print("|---|" + "---|" * len(sets[split]))
        for r in rules:
            row = [fmt(mean(cells.get((split, s, b, r), []))) for s in sets[split]]
            mark = " (default)" if r == default else ""
            print(f"| {r}{mark} | " + " | ".join(row) + " |")

failures, worst, synthetic, sure = [], None, [], []
# Both splits, tuning first: the tuning split's cells below are where a rule's design may look;
# the check is the test split's.
for split, what in (("tune", "tuning"), ("test", "test")):
    print(f"\n## The default ({default}) against the best paper rule, {what} cells\n")
    print("| set | N | default | best of R1-R3 | margin | ± 2 SE over files | files |")
    print("|---|---|---|---|---|---|---|")
    for s in sets[split]:
        for b in sorted(budgets):
            d = mean(cells.get((split, s, b, default), []))
            if d is None:
                continue
            paper = [(mean(cells.get((split, s, b, r), [])), r) for r in PAPER]
            paper = [(v, r) for v, r in paper if v is not None]
            best, best_rule = max(paper)
            margin = d - best
            n = len(cells[(split, s, b, default)])
            spread = paired_spread(cells[(split, s, b, default)], cells[(split, s, b, best_rule)])
            flag = "" if margin >= -TOLERANCE else " **below**"
            print(f"| {s} | {b} | {d:.3f} | {best:.3f} ({best_rule}) | {margin:+.3f}{flag} | {fmt(spread)} | {n} |")
            if split != "test":
                continue
            if margin < -TOLERANCE:
                failures.append((s, b, margin))
                if spread is not None and margin + spread < -TOLERANCE:
                    sure.append((s, b))
            if worst is None or margin < worst[2]:
                worst = (s, b, margin, d)
            if s.startswith(("h-", "t-", "late-")):
                synthetic.append(d)

print("\n## Every rule against the best paper rule, per split\n")
print("| split | rule | cells within 0.01 or above | worst margin (cell) | mean over synthetic cells |")
print("|---|---|---|---|---|")
for split in ("tune", "test"):
    for r in rules:
        if r in PAPER:
            continue
        margins, synth = [], []
        for s in sets[split]:
            for b in sorted(budgets):
                v = mean(cells.get((split, s, b, r), []))
                paper = [mean(cells.get((split, s, b, p), [])) for p in PAPER]
                paper = [x for x in paper if x is not None]
                if v is None or not paper:
                    continue
                margins.append((v - max(paper), f"{s} N = {b}"))
                if s.startswith(("h-", "t-", "p-", "late-", "lt-")) or s in ("institutes", "universities", "sample", "heavytail", "testweb"):
                    synth.append(v)
        if not margins:
            continue
        ok = sum(1 for m, _ in margins if m >= -TOLERANCE)
        w = min(margins)
        mark = " (default)" if r == default else ""
        print(f"| {split} | {r}{mark} | {ok} of {len(margins)} | {w[0]:+.3f} ({w[1]}) | {fmt(mean(synth))} |")
print()
if synthetic:
    print(f"default's mean over the synthetic test cells: {mean(synthetic):.3f}")
if worst:
    print(f"default's worst test cell against the paper's rules: {worst[0]} N = {worst[1]}: {worst[3]:.3f}, margin {worst[2]:+.3f}")
if failures:
    print(f"FAIL: the default is more than {TOLERANCE} below the best paper rule in {len(failures)} test cell(s)"
          f" ({len(sure)} of them by more than twice the standard error over their files:"
          f" {', '.join(f'{s} N = {b}' for s, b in sure) or 'none'})")
    sys.exit(1)
print(f"ok: the default is within {TOLERANCE} of the best paper rule or above it in every test cell")
