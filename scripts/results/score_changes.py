#!/usr/bin/env python3
"""How many samples two run folders score differently: for runs of the same samples that differ in
one setting (e.g. the same RippleKV allocation with two profiles), the count of samples whose score
changed, per folder pair and in all.

    .venv/bin/python scripts/results/score_changes.py A_DIR B_DIR [A_DIR B_DIR ...]

Reads each folder's sample_scores.json (`ripplekv longbench`, `ruler` and `needle` write it when
every sample is done). Both folders of a pair must hold the same tasks and sample ids.
"""
import json
import os
import sys


def columns(run_dir):
    path = os.path.join(run_dir, "sample_scores.json")
    try:
        with open(path) as f:
            return json.load(f)["columns"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"{path}: cannot read its 'columns' ({e}); give a scored run folder")


def main():
    dirs = sys.argv[1:]
    if not dirs or len(dirs) % 2:
        sys.exit("usage: score_changes.py A_DIR B_DIR [A_DIR B_DIR ...] (pairs of scored run folders)")
    total = changed_total = 0
    for a_dir, b_dir in zip(dirs[::2], dirs[1::2]):
        a, b = columns(a_dir), columns(b_dir)
        if sorted(a) != sorted(b):
            sys.exit(f"{a_dir} and {b_dir} hold different tasks ({sorted(a)} vs {sorted(b)})")
        n = changed = 0
        for task in sorted(a):
            if a[task]["ids"] != b[task]["ids"]:
                sys.exit(f"{a_dir} and {b_dir} hold different samples of {task}; pair runs of the same samples")
            n += len(a[task]["scores"])
            changed += sum(x != y for x, y in zip(a[task]["scores"], b[task]["scores"]))
        print(f"{changed:4d} of {n:4d} samples scored differently: {a_dir} vs {b_dir}")
        total += n
        changed_total += changed
    print(f"{changed_total:4d} of {total:4d} in all")


if __name__ == "__main__":
    main()
