#!/usr/bin/env python3
"""Reads `perf script -F comm,period,ip,sym` (call graphs) on stdin and prints the share of CPU
cycles (sample periods, since the sampling rate adapts per thread) per component: the innermost frame (leaf first) that names a known component decides; samples in
the allocator or the kernel count for the component that called them."""
import re
import sys
from collections import Counter

# Checked in order against each frame, leaf first; the first hit decides.
COMPONENTS = [
    ("normalize", re.compile(r"url_norm|url_rules|url::parser|url::Url|idna|percent_encoding|parse::worker::classify|resolve_href")),
    ("parse", re.compile(r"html5gum|parse::links|parse::charset|encoding_rs|chardetng|parse::worker")),
    ("DataManager", re.compile(r"rccrawler::data::|dashmap|hashbrown|rccrawler::state::")),
    ("HTTP", re.compile(r"ureq|rustls|flate2|miniz|brotli|rccrawler::fetch::")),
    ("output", re.compile(r"rccrawler::unload::|csv::")),
    ("scheduling", re.compile(r"rccrawler::schedule::|crossbeam_channel")),
]

counts = Counter()
by_thread = Counter()
# (component, leaf symbol) -> cycles: what to look at first inside each component.
leaves = Counter()
frames, comm, period = [], None, 0


def flush():
    global frames, comm, period
    if comm is None:
        return
    who = "other"
    for f in frames:
        for name, pat in COMPONENTS:
            if pat.search(f):
                who = name
                break
        else:
            continue
        break
    counts[who] += period
    if frames:
        leaves[(who, re.sub(r"^[0-9a-f]+ ", "", frames[0])[:90])] += period
    by_thread[comm] += period
    frames, comm, period = [], None, 0


for line in sys.stdin:
    if not line.strip():
        flush()
    elif line.startswith("\t"):
        frames.append(line.strip())
    else:
        flush()
        fields = line.split()
        comm, period = fields[0], int(fields[-1])
flush()

total = sum(counts.values()) or 1
print(f"CPU cycles sampled: {total / 1e9:.1f} G")
for name, n in counts.most_common():
    print(f"  {name:12} {100 * n / total:5.1f} %")
print("by thread:")
for name, n in by_thread.most_common(12):
    print(f"  {name:16} {100 * n / total:5.1f} %")
print("top leaf functions per component:")
for name, _ in counts.most_common():
    top = [(leaf, n) for (w, leaf), n in leaves.most_common() if w == name][:5]
    print(f"  {name}:")
    for leaf, n in top:
        print(f"    {100 * n / total:5.1f} %  {leaf}")
