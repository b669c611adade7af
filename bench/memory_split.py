#!/usr/bin/env python3
"""Reads heaptrack's peak stacks (`heaptrack_print --flamegraph-cost-type peak -F FILE`) and
prints the heap at its peak by structure: each stack is attributed to the innermost frame of
rccrawler's own source that the table below names, and the bytes are summed per structure.
Heaptrack counts allocated bytes: a vector's unused capacity above glibc's mmap threshold is
counted although the system never backs it (compare with the peak RSS)."""
import glob
import os
import re
import sys
from collections import Counter

# Frames name files by base name only: a frame is ours when its file is one of src/'s (less
# the names the standard library uses too).
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
OURS = {os.path.basename(p) for p in glob.glob(f"{SRC}/**/*.rs", recursive=True)}
OURS -= {"mod.rs", "lib.rs", "main.rs"}

# (structure, pattern on the innermost two of our frames, "function (file.rs)"), first match.
STRUCTURES = [
    ("links (packed records, about 3 B a link)", r"add_page \(commit\.rs\)|\(link_store\.rs\)"),
    ("external URLs", r"external_ref \(commit\.rs\)"),
    ("internal URLs and their records", r"url_ref \(commit\.rs\)|intern_url"),
    ("frontier, levels, traps", r"\((frontier|levels|traps)\.rs\)"),
    ("journal and saved state", r"\((frames|codec|store|journal|files|snapshot)\.rs\)"),
    # The evented fetch layer reads bodies in conn.rs (make_room_for_bodies in engine/evented.rs).
    ("page bodies in flight", r"\((client|page|robots_txt|conn|exchange)\.rs\)|make_room_for_bodies"),
    ("href cache and URL normalization", r"\((href_cache|url_norm)\.rs\)"),
    ("parsing a page (extracted text, link records)", r"\((html_parser|links|text|charset)\.rs\)"),
    ("scope graph (pages, pulls, indexes, texts interned inline)", r"\((commit|graph|memory|replay|yields)\.rs\)"),
    ("result writing and report", r"\((text_file|unload_all|gephi_site_graph|gephi_csv|gexf|summary|report|read|logs)\.rs\)"),
]

total = 0
by = Counter()
for line in open(sys.argv[1]):
    stack, _, cost = line.rstrip("\n").rpartition(" ")
    if not stack:
        continue
    cost = int(cost)
    total += cost
    who = "other (allocator, std, libraries)"
    ours = [f for f in reversed(stack.split(";"))
            if (m := re.search(r"\(([^)]*)\)$", f)) and m.group(1) in OURS]
    # The innermost two of our frames (inlining can put a caller's name first).
    near = ";".join(ours[:2])
    who = next((name for name, pat in STRUCTURES if re.search(pat, near)), who)
    by[who] += cost
print(f"heap at its peak: {total / 1e6:.1f} MB")
for name, n in by.most_common():
    print(f"  {name:58} {n / 1e6:6.1f} MB  {100 * n / max(total, 1):4.1f} %")
