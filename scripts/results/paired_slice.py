#!/usr/bin/env python3
"""Paired difference of two LongBench run folders on a slice of one task's samples, with a 95%
percentile-bootstrap interval (SciPy's scipy.stats.bootstrap, 2000 resamples, seed 0).

    .venv/bin/python scripts/results/paired_slice.py A_DIR B_DIR --task multi_news [--first 80] [--last 200]

Prints mean(A - B) over samples first+1..last (1-based, in file order) of each folder's
sample_scores.json. For a question `ripplekv table` does not ask: whether a pair holds on the
part of a run where both sides were decoded alike (e.g. the samples added after a kernel change).
Both folders must hold the same sample ids in the same order.
"""
import argparse
import json
import os
import sys

import numpy as np
from scipy import stats


def scores(run_dir, task):
    path = os.path.join(run_dir, "sample_scores.json")
    try:
        with open(path) as f:
            column = json.load(f)["columns"][task]
    except FileNotFoundError:
        sys.exit(f"{path}: not found; score the run first (`ripplekv longbench` writes it when every sample is done)")
    except KeyError:
        sys.exit(f"{path}: no task {task!r}; give --task with one of the run's tasks")
    values = [v for k, v in column.items() if k != "ids"]
    if len(values) != 1:
        sys.exit(f"{path}: expected one score list beside 'ids' for {task}")
    return column["ids"], np.asarray(values[0], dtype=float)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--task", required=True)
    ap.add_argument("--first", type=int, default=0, help="samples to skip (default 0)")
    ap.add_argument("--last", type=int, default=None, help="last sample, 1-based (default: all)")
    args = ap.parse_args()
    ids_a, a = scores(args.a, args.task)
    ids_b, b = scores(args.b, args.task)
    if ids_a != ids_b:
        sys.exit(f"{args.a} and {args.b} hold different samples of {args.task}; pair runs of the same samples")
    last = len(a) if args.last is None else args.last
    if not 0 <= args.first < last <= len(a):
        sys.exit(f"--first {args.first} --last {last}: need 0 <= first < last <= {len(a)} (the run's sample count)")
    d = a[args.first:last] - b[args.first:last]
    ci = stats.bootstrap((d,), np.mean, n_resamples=2000, confidence_level=0.95, method="percentile",
                         random_state=np.random.default_rng(0)).confidence_interval
    verdict = "tie" if ci.low <= 0 <= ci.high else ("A higher" if d.mean() > 0 else "B higher")
    print(f"{args.task} samples {args.first + 1}-{last} ({len(d)}): A - B = {d.mean():+.2f} "
          f"[{ci.low:+.2f}, {ci.high:+.2f}] ({verdict})")


if __name__ == "__main__":
    main()
