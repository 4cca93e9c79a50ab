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
  - the mean over samples of the largest over the smallest layer budget (how unequal);
  - with --layers, a second table: the mean tokens each layer kept, per variant (the reference
    first), which shows where two allocations part.
--tasks keeps only the samples of the named tasks (e.g. vt, where one allocation loses most).

    .venv/bin/python scripts/results/allocation_agreement.py --reference RUNS/cake_b1024 RUNS/ripple_prompt_b1024 ...
    .venv/bin/python scripts/results/allocation_agreement.py --tasks vt --layers --reference RUNS/cake_b256 RUNS/ripple@..._b256

Only samples whose kept record is "compressed" count. Spearman is SciPy's (`.venv`).
"""
import argparse
import glob
import itertools
import json
import os
import statistics
import sys


def spearman(a, b):
    """SciPy's Spearman correlation (ties get average ranks); NaN for a constant allocation."""
    from scipy.stats import spearmanr  # here, so that readers of allocations() need no SciPy
    if len(set(a)) < 2 or len(set(b)) < 2:
        return float("nan")
    return float(spearmanr(a, b).statistic)


def allocations(folder, tasks=None, required=True):
    """{(task file stem without shard, _id): kept} of a variant folder (only `tasks`' where given);
    the stem is `<length>/<task>` for RULER, `<task>` for LongBench. Without kept logs or a
    compressed sample: an error, or {} where not `required`."""
    files = glob.glob(os.path.join(folder, "*", "kept", "*.jsonl")) + glob.glob(os.path.join(folder, "kept", "*.jsonl"))
    if not files and not required:
        return {}
    if not files:
        sys.exit(f"allocation_agreement.py: {folder}: no kept/*.jsonl (a compressed run folder of ripplekv ruler or "
                 "longbench is expected)")
    out = {}
    for path in files:
        parts = os.path.relpath(path, folder).split(os.sep)
        task = os.path.basename(path).split(".")[0]
        if tasks is not None and task not in tasks:
            continue
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
    if not out and required:
        sys.exit(f"allocation_agreement.py: {folder}: no compressed sample"
                 + (f" of the tasks {', '.join(sorted(tasks))} (--tasks)" if tasks is not None else ""))
    return out


def layer_means(alloc):
    """The mean tokens kept by each layer over the samples of one allocation map."""
    rows = list(alloc.values())
    if len({len(k) for k in rows}) != 1:
        sys.exit("allocation_agreement.py: --layers: samples with different layer counts in one variant")
    return [statistics.fmean(k[i] for k in rows) for i in range(len(rows[0]))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("variants", nargs="+", help="variant folders of one run tree")
    ap.add_argument("--reference", help="a variant folder to compare each sample's allocation with")
    ap.add_argument("--tasks", help="comma-separated tasks whose samples alone count (default: all)")
    ap.add_argument("--layers", action="store_true", help="also print the mean tokens kept per layer")
    args = ap.parse_args()
    tasks = set(args.tasks.split(",")) if args.tasks else None
    ref = allocations(args.reference, tasks) if args.reference else None
    per_layer = [(os.path.basename(args.reference.rstrip("/")), layer_means(ref))] if ref else []
    print("| variant | samples | between prompts (median Spearman) | "
          + (f"with {os.path.basename(args.reference.rstrip('/'))} (median) | " if ref else "")
          + "max/min layer budget (mean) |")
    print("|---|---|---|" + ("---|" if ref else "") + "---|")
    for v in args.variants:
        a = allocations(v, tasks)
        if args.layers:
            per_layer.append((os.path.basename(v.rstrip("/")), layer_means(a)))
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
    if args.layers:
        if len({len(m) for _, m in per_layer}) != 1:
            sys.exit("allocation_agreement.py: --layers: the variants have different layer counts")
        print("\nMean tokens kept per layer:\n")
        print("| layer | " + " | ".join(name for name, _ in per_layer) + " |")
        print("|---|" + "---|" * len(per_layer))
        for i in range(len(per_layer[0][1])):
            print(f"| {i} | " + " | ".join(f"{m[i]:.1f}" for _, m in per_layer) + " |")


if __name__ == "__main__":
    main()
