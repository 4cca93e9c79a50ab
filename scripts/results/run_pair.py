#!/usr/bin/env python3
"""Paired difference of two scored run folders (RULER, needle or LongBench), A minus B, with a 95%
percentile-bootstrap interval computed as `ripplekv table` computes its paired intervals: the
Avg is the mean of the column (task) means, and each column's samples are resampled on their own
(2000 resamples). For pairs `ripplekv table` does not print, e.g. two RippleKV variants:

    .venv/bin/python scripts/results/run_pair.py RUNS/ripple@..._b1024 RUNS/ripple_prompt@..._b1024 [...]

Give several A B pairs in a row to print one line per pair. Both folders must hold the same
columns and sample ids of the same prompts (same benchmark, model, data and seed in config.json:
checked); a pair is a "tie" when its interval holds 0.
To pool sample sets (as `ripplekv table --pool`), give A and B as colon-separated folder lists,
one folder per set in the same order on both sides (RUNS42/x:RUNS43/x RUNS42/y:RUNS43/y).
The mean equals the table's Avg difference; the interval's resamples are NumPy's (seed 0), so
its ends can differ from the table's in the second decimal.
With --common, each column is paired on the sample ids both sides hold (e.g. a LongBench run at
32k tokens against the same model's run cut to 4k, whose folder holds more samples per task);
a column the two share no sample of is refused.
With --columns, only the columns named (a task, e.g. niah_multikey_3, or a column as the
sample_scores.json files name it, e.g. niah_multikey_3@4096) are paired, so a run of some tasks
can be set beside the same tasks of a larger run.
"""
import argparse
import json
import os
import sys

import numpy as np


def columns(run_dir):
    path = os.path.join(run_dir, "sample_scores.json")
    try:
        with open(path) as f:
            data = json.load(f)
        if data.get("format") != "ripplekv-sample-scores":
            raise ValueError("not a ripplekv-sample-scores file")
        return {name: dict(zip(c["ids"], c["scores"])) for name, c in data["columns"].items()}
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"run_pair.py: {path}: cannot read it ({e}); give a scored run folder "
                 "(`ripplekv ruler`, `needle` and `longbench` write sample_scores.json when every sample is done)")


SAMPLE_KEYS = ("benchmark", "model", "data", "seed")  # what makes sample id k the same prompt in two folders


def sample_source(run_dir, common=False):
    """The config.json settings that decide which prompt each sample id is (with `common`, a
    LongBench folder's data files without their sample counts: a longer cut holds more ids of the
    same files)."""
    path = os.path.join(run_dir, "config.json")
    try:
        with open(path) as f:
            run = json.load(f)["run"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"run_pair.py: {path}: cannot read it ({e}); give run folders written by ripplekv")
    source = {k: run.get(k) for k in SAMPLE_KEYS}
    if common and isinstance(source["data"], dict):
        source["data"] = {t: d.get("file") if isinstance(d, dict) else d for t, d in source["data"].items()}
    return source


def pooled_columns(arg):
    """Columns of colon-separated folders (one or more) pooled, ids prefixed by the set's index."""
    out = {}
    for i, d in enumerate(arg.split(":")):
        for name, c in columns(d).items():
            out.setdefault(name, {}).update({f"{i}/{k}": v for k, v in c.items()})
    return out


def label(arg):
    """A folder's name; for pooled folders the first one's and how many sets."""
    dirs = arg.split(":")
    name = os.path.basename(os.path.normpath(dirs[0]))
    return name if len(dirs) == 1 else f"{name} ({len(dirs)} sets)"


def keep_columns(cols, wanted, where):
    """The columns of `cols` that `wanted` names (a column's name, or its task before the "@")."""
    if not wanted:
        return cols

    def matches(name, w):
        return name == w or name.split("@")[0] == w

    out = {name: c for name, c in cols.items() if any(matches(name, w) for w in wanted)}
    missing = [w for w in wanted if not any(matches(name, w) for name in cols)]
    if missing:
        sys.exit(f"run_pair.py: {where} has no column {missing[0]!r} (it has {sorted(cols)})")
    return out


def paired_differences(a_dir, b_dir, common=False, wanted=()):
    """Per column (task), the array of A minus B over the samples both hold, after checking that
    both sides scored the same prompts; only the columns `wanted` names, when it names any."""
    if a_dir.count(":") != b_dir.count(":"):
        sys.exit(f"run_pair.py: {a_dir} and {b_dir} pool different numbers of sample sets; give one folder per set "
                 "on both sides, in the same order")
    for a_set, b_set in zip(a_dir.split(":"), b_dir.split(":")):
        a_src, b_src = sample_source(a_set, common), sample_source(b_set, common)
        if a_src != b_src:
            diff = ", ".join(f"{k} {a_src[k]!r} vs {b_src[k]!r}" for k in SAMPLE_KEYS if a_src[k] != b_src[k])
            sys.exit(f"run_pair.py: {a_set} and {b_set} scored different prompts ({diff} in config.json); pair "
                     "folders of the same sample set, in the same order on both sides")
    a = keep_columns(pooled_columns(a_dir), wanted, a_dir)
    b = keep_columns(pooled_columns(b_dir), wanted, b_dir)
    if sorted(a) != sorted(b):
        sys.exit(f"run_pair.py: {a_dir} and {b_dir} hold different columns ({sorted(set(a) ^ set(b))}); "
                 "pair runs of the same tasks and lengths")
    diffs = []
    for name in sorted(a):
        if common:
            ids = sorted(set(a[name]) & set(b[name]))
            if not ids:
                sys.exit(f"run_pair.py: column {name}: {a_dir} and {b_dir} share no sample id; --common pairs the "
                         "samples both hold, so give runs of overlapping samples")
        elif sorted(a[name]) != sorted(b[name]):
            sys.exit(f"run_pair.py: column {name}: {a_dir} and {b_dir} hold different sample ids; "
                     "pair runs on the same samples (same --seed, --samples and shard), or pass --common")
        else:
            ids = sorted(a[name])
        diffs.append(np.array([a[name][i] - b[name][i] for i in ids]))
    return diffs


def bootstrap_interval(diffs, resamples, rng):
    """The Avg (mean of the column means) of per-column differences and its 95% percentile
    interval, each column resampled on its own."""
    mean = float(np.mean([d.mean() for d in diffs]))
    boot = np.zeros(resamples)
    for d in diffs:
        boot += d[rng.integers(0, len(d), size=(resamples, len(d)))].mean(axis=1)
    boot /= len(diffs)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return mean, float(lo), float(hi)


def paired(a_dir, b_dir, resamples, seed, common=False, wanted=()):
    diffs = paired_differences(a_dir, b_dir, common, wanted)
    mean, lo, hi = bootstrap_interval(diffs, resamples, np.random.default_rng(seed))
    return mean, lo, hi, sum(len(d) for d in diffs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="A B [A B ...]: run folders, paired in order")
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--common", action="store_true", help="pair each column on the sample ids both sides hold")
    ap.add_argument("--columns", default="", help="comma-separated columns or tasks to pair (default: all)")
    args = ap.parse_args()
    wanted = tuple(c.strip() for c in args.columns.split(",") if c.strip())
    if len(args.runs) % 2:
        ap.error("give run folders in pairs: A B [A B ...]")
    rows = []  # every pair checked before anything is printed
    for a_dir, b_dir in zip(args.runs[0::2], args.runs[1::2]):
        mean, lo, hi, n = paired(a_dir, b_dir, args.resamples, args.seed, args.common, wanted)
        verdict = "tie" if lo <= 0 <= hi else ("A wins" if lo > 0 else "B wins")
        rows.append(f"| {label(a_dir)} | {label(b_dir)} | {n} | {mean:+.2f} | [{lo:+.2f}, {hi:+.2f}] | {verdict} |")
    print("| A | B | samples | A - B | 95% CI | verdict |\n|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
