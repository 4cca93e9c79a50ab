#!/usr/bin/env python3
"""Paired difference of two LongBench run folders on a slice of one task's samples, with a 95%
percentile-bootstrap interval (SciPy's scipy.stats.bootstrap, 2000 resamples, seed 0).

    .venv/bin/python scripts/results/paired_slice.py A_DIR B_DIR --task multi_news [--first 80] [--last 200]

Prints mean(A - B) over samples first+1..last (1-based, in file order) of each folder's
sample_scores.json. For a question `ripplekv table` does not ask: whether a pair holds on the
part of a run where both sides were decoded alike (e.g. the samples added after a kernel change).
Both folders must hold the same sample ids in the same order (positions are the order of
sample_scores.json, which is the data file's for merged shards and extended folders).
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
            columns = json.load(f)["columns"]
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: cannot read it ({e}); give a scored run folder (`ripplekv longbench` writes "
                 "sample_scores.json when every sample is done)")
    except KeyError:
        sys.exit(f"{path}: no 'columns'; not a ripplekv sample_scores.json")
    if task not in columns:
        sys.exit(f"{path}: no task {task!r}; give --task with one of {sorted(columns)}")
    column = columns[task]
    if not isinstance(column, dict) or "ids" not in column or "scores" not in column \
            or len(column["ids"]) != len(column["scores"]):
        sys.exit(f"{path}: {task} needs 'ids' and 'scores' of the same length")
    return column["ids"], np.asarray(column["scores"], dtype=float)


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
        sys.exit(f"{args.a} ({len(ids_a)} samples) and {args.b} ({len(ids_b)}) hold different samples of "
                 f"{args.task}; pair runs of the same samples")
    last = len(a) if args.last is None else args.last
    if not 0 <= args.first < last - 1 < len(a):
        sys.exit(f"--first {args.first} --last {last}: need 0 <= first, first + 2 <= last <= {len(a)} "
                 "(the run's sample count; a bootstrap needs two samples)")
    d = a[args.first:last] - b[args.first:last]
    ci = stats.bootstrap((d,), np.mean, n_resamples=2000, confidence_level=0.95, method="percentile",
                         rng=np.random.default_rng(0)).confidence_interval
    verdict = "tie" if ci.low <= 0 <= ci.high else ("A higher" if d.mean() > 0 else "B higher")
    print(f"{args.task} samples {args.first + 1}-{last} ({len(d)}): A - B = {d.mean():+.2f} "
          f"[{ci.low:+.2f}, {ci.high:+.2f}] ({verdict})")


if __name__ == "__main__":
    main()
