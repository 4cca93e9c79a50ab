#!/usr/bin/env python3
"""Writes tests/fixtures/bootstrap/intervals.json: 95% percentile bootstrap intervals made by
SciPy (scipy.stats.bootstrap, method="percentile"), for tests/eval/experiments/test_bootstrap.cpp.

    .venv/bin/python scripts/make_bootstrap_fixtures.py   (the committed file: SciPy 1.17.1)

Cases:
  - "mean": one or more tasks; the statistic is the mean over tasks of the task means, each
    task resampled on its own (scipy resamples each sample of a multi-sample statistic
    independently when paired=False), as ripplekv's stratified bootstrap does;
  - "paired": one task scored by two methods on the same samples (paired=True), statistic
    mean(a) - mean(b).
SciPy runs 100,000 resamples, so its interval ends are close to exact; the C++ test runs its
default 2,000 and allows for that Monte-Carlo error.
"""
import json
import os

import numpy as np
import scipy
from scipy import stats

rng = np.random.default_rng(7)
cases = []


def mean_of_means(*groups, axis=-1):
    return np.mean([np.mean(g, axis=axis) for g in groups], axis=0)


def add_mean(name, groups):
    res = stats.bootstrap(tuple(np.asarray(g) for g in groups), mean_of_means, n_resamples=100_000,
                          method="percentile", confidence_level=0.95, random_state=np.random.default_rng(1))
    cases.append({"kind": "mean", "name": name, "groups": [list(map(float, g)) for g in groups],
                  "estimate": float(mean_of_means(*groups)),
                  "lo": float(res.confidence_interval.low), "hi": float(res.confidence_interval.high)})


def add_paired(name, a, b):
    res = stats.bootstrap((np.asarray(a), np.asarray(b)), lambda x, y, axis=-1: np.mean(x, axis=axis) - np.mean(y, axis=axis),
                          paired=True, n_resamples=100_000, method="percentile", confidence_level=0.95,
                          random_state=np.random.default_rng(2))
    cases.append({"kind": "paired", "name": name, "a": list(map(float, a)), "b": list(map(float, b)),
                  "estimate": float(np.mean(a) - np.mean(b)),
                  "lo": float(res.confidence_interval.low), "hi": float(res.confidence_interval.high)})


# Accuracy-like scores (0 or 100), as RULER's needle tasks give.
add_mean("binary, one task of 40", [rng.choice([0.0, 100.0], size=40, p=[0.35, 0.65])])
# F1-like scores in [0, 100], three tasks of different sizes (a LongBench Avg).
add_mean("three tasks of 12, 25 and 9", [rng.beta(2, 3, size=12) * 100, rng.beta(5, 2, size=25) * 100,
                                         rng.beta(1, 1, size=9) * 100])
add_mean("continuous, one task of 200", [rng.normal(30, 12, size=200)])
base = rng.beta(2, 2, size=60) * 100
add_paired("paired, correlated, 60 samples", base + rng.normal(2, 5, size=60), base)
add_paired("paired, binary, 50 samples", rng.choice([0.0, 100.0], size=50), rng.choice([0.0, 100.0], size=50))

out = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "bootstrap", "intervals.json")
with open(out, "w") as f:
    json.dump({"scipy": scipy.__version__, "level": 0.95, "cases": cases}, f, indent=1)
    f.write("\n")
print(f"wrote {len(cases)} cases to {os.path.normpath(out)}")
