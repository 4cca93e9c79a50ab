#!/usr/bin/env python3
"""How many samples per task a paired comparison needs before its verdict is likely to be clear:
the sizing of a larger (GPU) run from the pairs measured so far.

    .venv/bin/python scripts/results/samples_needed.py [--simulate 200] A B [A B ...]   (folders as run_pair.py takes them)
    .venv/bin/python scripts/results/samples_needed.py --set S1 --set S2 ... 'ripple@*f32*ratio=8*_b1024' cake_b1024
    .venv/bin/python scripts/results/samples_needed.py --per-task 76 --effect 1.27 --set S1 ... A B   (a planned run's power)

With --set (a sample-set folder holding runs/, once per set), A and B are variant names or shell
patterns, each matching exactly one folder under the first set's runs/, pooled over the sets.

For each pair A B (run folders, or colon-separated lists pooled as `run_pair.py` pools them), the
per-prompt differences A - B of each column (task) give its standard deviation s_t. The Avg that
`ripplekv table` compares is the mean of the T column means, so with n samples in every column its
standard error is sqrt(sum_t s_t^2 / n) / T. A difference delta is then found (the 95% interval
excludes 0) with probability `--power` when

    n >= (z_{1 - alpha/2} + z_power)^2 * sum_t s_t^2 / (T^2 * delta^2)

(the normal approximation of the percentile bootstrap the table uses). delta is the measured mean
difference unless `--effect` gives one. The table prints, beside n, the interval half-width this
approximation gives at today's sample counts and the bootstrap's own (run_pair.py's 2,000
resamples), to show how far the approximation is off on these data; `--simulate TRIALS` checks n
itself: it draws n samples per column from the measured differences (shifted to mean delta),
bootstraps each draw as the table does, and prints the share of clear verdicts (about `--power`
when the approximation holds; "-" where n is over 5,000 prompts).
`--per-task N` gives the other side of the sizing, for a run whose size is fixed: the chance that N
samples per task give a clear verdict on delta's side, Phi(|delta| T sqrt(N / sum_t s_t^2) - z_{1 - alpha/2}),
and with `--simulate` the simulated share at N as well.
Limits: a column whose differences are all 0 so far (every prompt scored alike by both) counts
as s_t = 0, so the estimate is a lower bound where many are; the measured delta is itself noisy
(with a wide interval the needed n ranges widely: the last column gives n for the measured
interval's end nearer 0, where that end has the measured difference's sign, and for its end
farther from 0, the largest effect the data allow in that direction).
"""
import argparse
import fnmatch
import math
import os
import re
import sys
from statistics import NormalDist

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_pair  # noqa: E402  (the same folder checks and pooling)


def needed_per_column(sum_var, columns, delta, z):
    """Samples per column for which delta is z standard errors of the Avg difference."""
    if delta == 0:
        return math.inf
    return max(2, math.ceil(z * z * sum_var / (columns * columns * delta * delta)))


SIMULATE_MAX = 5_000  # prompts; a larger n is not simulated (its bootstraps would take minutes)


def power_at(sum_var, columns, delta, n, z_half):
    """The normal approximation's chance that n samples per column give an interval excluding 0 on
    delta's side (the far side's tiny share left out)."""
    if delta == 0:
        return 0.0
    if sum_var == 0:
        return 1.0
    return NormalDist().cdf(abs(delta) * columns * math.sqrt(n / sum_var) - z_half)


def simulated_power(diffs, n, delta, trials, seed=0):
    """Share of simulated runs of n samples per column, drawn from the measured differences with
    their mean shifted to delta (so that the simulated effect is the one planned for), whose 95%
    paired-bootstrap interval excludes 0 on delta's side."""
    rng = np.random.default_rng(seed)
    shift = delta - float(np.mean([d.mean() for d in diffs]))
    clear = 0
    for _ in range(trials):
        drawn = [d[rng.integers(0, len(d), size=n)] + shift for d in diffs]
        _, lo, hi = run_pair.bootstrap_interval(drawn, 2000, rng)
        clear += (lo > 0) if delta > 0 else (hi < 0)
    return clear / trials


def pooled_arg(sets, pattern):
    """run_pair.py's colon list of one variant over the sample sets; the variant is the one folder
    under the first set's runs/ that the pattern matches."""
    runs = os.path.join(sets[0], "runs")
    try:
        names = sorted(n for n in os.listdir(runs) if os.path.isdir(os.path.join(runs, n)))
    except OSError as e:
        sys.exit(f"samples_needed.py: --set {sets[0]}: cannot list {runs} ({e}); give a sample-set folder holding runs/")
    found = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
    if len(found) != 1:
        sys.exit(f"samples_needed.py: {pattern!r} matches {len(found)} folders under {runs} "
                 f"({', '.join(found[:4]) or 'none'}); give a name or pattern that matches one variant")
    return ":".join(os.path.join(s, "runs", found[0]) for s in sets)


def short(arg):
    """run_pair.py's label without the profile's folders (results_..._profiles_)."""
    return re.sub(r"profile=\S*?profiles_", "profile=", run_pair.label(arg))


def fmt_n(n):
    """n, or ">10,000" where the difference is too small for any run to resolve."""
    return ">10,000" if n > 10_000 else f"{n:,}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="A B [A B ...]: run folders, paired in order")
    ap.add_argument("--power", type=float, default=0.8, help="chance of a clear verdict (default 0.8)")
    ap.add_argument("--alpha", type=float, default=0.05, help="1 - the interval's level (default 0.05)")
    ap.add_argument("--effect", type=float, help="the difference to detect (default: the measured one)")
    ap.add_argument("--common", action="store_true", help="pair each column on the sample ids both sides hold")
    ap.add_argument("--set", action="append", default=[], metavar="DIR", dest="sets",
                    help="a sample-set folder (holding runs/); repeat per set: A and B are then variant names or "
                         "patterns, pooled over the sets")
    ap.add_argument("--simulate", type=int, default=0, metavar="TRIALS",
                    help="also check n by simulation: TRIALS times, draw n samples per column from its measured "
                         "differences (with replacement) and bootstrap them as the table does (2,000 resamples); "
                         "prints the share whose interval excludes 0 on delta's side")
    ap.add_argument("--per-task", type=int, metavar="N",
                    help="also give the power of a run of N samples per task (a run whose size is fixed): the "
                         "normal approximation's, and with --simulate the simulated one")
    args = ap.parse_args()
    if len(args.runs) % 2:
        ap.error("give run folders in pairs: A B [A B ...]")
    if not 0 < args.power < 1 or not 0 < args.alpha < 1:
        ap.error("--power and --alpha must lie strictly between 0 and 1")
    if args.per_task is not None and args.per_task < 2:
        ap.error("--per-task must be at least 2 (a column needs 2 samples for an interval)")
    z_half = NormalDist().inv_cdf(1 - args.alpha / 2)
    z = z_half + NormalDist().inv_cdf(args.power)
    if args.sets:
        args.runs = [pooled_arg(args.sets, r) for r in args.runs]
    rows = []
    for a_dir, b_dir in zip(args.runs[0::2], args.runs[1::2]):
        diffs = run_pair.paired_differences(a_dir, b_dir, args.common)
        mean, lo, hi, n_now = run_pair.paired(a_dir, b_dir, 2000, 0, args.common)
        too_few = [i for i, d in enumerate(diffs) if len(d) < 2]
        if too_few:
            sys.exit(f"samples_needed.py: {a_dir} vs {b_dir}: a column has fewer than 2 samples, so no spread to "
                     "measure; pool more sample sets")
        cols = len(diffs)
        sum_var = float(sum(np.var(d, ddof=1) for d in diffs))
        # the normal approximation's half-width at today's (unequal) counts, against the bootstrap's
        half_now = z_half * math.sqrt(sum(np.var(d, ddof=1) / len(d) for d in diffs)) / cols
        delta = args.effect if args.effect is not None else mean
        n = needed_per_column(sum_var, cols, delta, z)
        near_end, far_end = (lo, hi) if mean > 0 else (hi, lo)
        far = fmt_n(needed_per_column(sum_var, cols, far_end, z))
        near = fmt_n(needed_per_column(sum_var, cols, near_end, z)) if near_end * mean > 0 else "-"
        sim = ""
        if args.simulate > 0 and n * cols <= SIMULATE_MAX:
            sim = f" | {simulated_power(diffs, n, delta, args.simulate):.2f}"
        elif args.simulate > 0:
            sim = " | -"
        if args.per_task is not None:
            at = f" | {power_at(sum_var, cols, delta, args.per_task, z_half):.2f}"
            if args.simulate > 0 and args.per_task * cols <= SIMULATE_MAX:
                at += f" / {simulated_power(diffs, args.per_task, delta, args.simulate):.2f}"
            elif args.simulate > 0:
                at += " / -"
            sim += at
        per_col = n_now / cols
        rows.append(f"| {short(a_dir)} | {short(b_dir)} | {n_now} ({per_col:.3g}/task) | "
                    f"{mean:+.2f} [{lo:+.2f}, {hi:+.2f}] | ±{half_now:.2f} / ±{(hi - lo) / 2:.2f} | {delta:+.2f} | "
                    f"{fmt_n(n)} ({fmt_n(n * cols) if n <= 10_000 else '-'}) | {near} / {far}{sim} |")
    print(f"power {args.power:g}, alpha {args.alpha:g}; n = samples per task (all tasks), prompts in brackets\n")
    sim_head, sim_rule = (" | simulated power at n", "---|") if args.simulate > 0 else ("", "")
    if args.per_task is not None:
        sim_head += f" | power at {args.per_task}/task" + (": normal / simulated" if args.simulate > 0 else " (normal)")
        sim_rule += "---|"
    print("| A | B | samples now | A - B [95% CI] | half-width normal / bootstrap | delta | n needed | "
          f"n at near / far end{sim_head} |")
    print(f"|---|---|---|---|---|---|---|---|{sim_rule}")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
