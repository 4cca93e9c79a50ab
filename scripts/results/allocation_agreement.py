#!/usr/bin/env python3
"""How stable and how alike the per-layer budget allocations of RULER / LongBench runs are.

Every compressed run writes, per sample, the tokens each layer kept (`<variant>/<length>/kept/
<task>*.jsonl` for RULER, `<variant>/kept/<task>*.jsonl` for LongBench: {"_id", "kept": [L
ints]}). For each variant folder given, this prints
  - between prompts: the median Spearman correlation of two prompts' allocations, over all
    pairs of its samples (1: the same allocation for every prompt; a per-prompt measurement
    that is mostly noise gives values near 0);
  - against a reference variant (--reference, e.g. CAKE at the same budget): the median over
    the shared samples of the Spearman correlation between the two allocations of a sample;
  - the mean over samples of the largest over the smallest layer budget (how unequal).

    .venv/bin/python scripts/results/allocation_agreement.py --reference RUNS/cake_b1024 RUNS/ripple_prompt_b1024 ...

Only samples whose kept record is "compressed" count. Spearman is SciPy's (`.venv`).
"""
import argparse
import glob
import itertools
import json
import os
import statistics
import sys

from scipy.stats import spearmanr


def spearman(a, b):
    """SciPy's Spearman correlation (ties get average ranks); NaN for a constant allocation."""
    if len(set(a)) < 2 or len(set(b)) < 2:
        return float("nan")
    return float(spearmanr(a, b).statistic)


def allocations(folder):
    """{(task file stem without shard, _id): kept} of a variant folder."""
    files = glob.glob(os.path.join(folder, "*", "kept", "*.jsonl")) + glob.glob(os.path.join(folder, "kept", "*.jsonl"))
    if not files:
        sys.exit(f"allocation_agreement.py: {folder}: no kept/*.jsonl (a compressed run folder of ripplekv ruler or "
                 "longbench is expected)")
    out = {}
    for path in files:
        parts = os.path.relpath(path, folder).split(os.sep)
        task = os.path.basename(path).split(".")[0]
        key_prefix = "/".join(parts[:-2] + [task])
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a torn last line of an interrupted run
                if r.get("compressed") and "kept" in r:
                    out[(key_prefix, str(r["_id"]))] = r["kept"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("variants", nargs="+", help="variant folders of one run tree")
    ap.add_argument("--reference", help="a variant folder to compare each sample's allocation with")
    args = ap.parse_args()
    ref = allocations(args.reference) if args.reference else None
    print("| variant | samples | between prompts (median Spearman) | "
          + (f"with {os.path.basename(args.reference.rstrip('/'))} (median) | " if ref else "")
          + "max/min layer budget (mean) |")
    print("|---|---|---|" + ("---|" if ref else "") + "---|")
    for v in args.variants:
        a = allocations(v)
        keys = sorted(a)
        # A uniform allocation has no ranking: its correlations are NaN and print as "-".
        between = [c for c in (spearman(a[x], a[y]) for x, y in itertools.combinations(keys, 2)) if c == c]
        spread = statistics.fmean(max(k) / max(min(k), 1) for k in a.values())
        row = [os.path.basename(v.rstrip("/")), str(len(keys)), f"{statistics.median(between):.2f}" if between else "-"]
        if ref is not None:
            shared = [k for k in keys if k in ref]
            with_ref = [c for c in (spearman(a[k], ref[k]) for k in shared) if c == c]
            row.append(f"{statistics.median(with_ref):.2f} ({len(with_ref)})" if with_ref else "-")
        row.append(f"{spread:.1f}")
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
