#!/usr/bin/env python3
"""Paired difference of the mean KL of two fidelity runs on the same texts, with a 95%
percentile-bootstrap interval over texts (SciPy's scipy.stats.bootstrap, 2000 resamples, seed 0).

    .venv/bin/python scripts/results/fidelity_pair.py A_DIR B_DIR [A_DIR2 B_DIR2 ...] --budget 256 \
        [--a-method SUBSTRING] [--b-method SUBSTRING] [--resamples 2000] [--texts FIRST-LAST]

A_DIR and B_DIR are folders holding a fidelity_texts.csv (a sweep's run folder, or a
`ripplekv fidelity --out` folder, which holds every method it ran: then name the method with a
substring of its `method` column, or the text it ends with followed by `$`, as in
--b-method 'ratio=2$' beside --a-method 'ratio=2,score=text_median'). Prints mean(KL_A - KL_B)
over the texts both hold; negative
means A keeps closer to the full cache. More than one pair of folders (runs on other text
files, say lcc and repobench-p) pools their texts into one mean and one bootstrap. --texts keeps
the texts whose id (the `text` column, 0 for a run's first text) lies in FIRST-LAST, e.g. the
texts a larger run added to a smaller one's. For a question `ripplekv table` does not ask, such as two
RippleKV settings against each other (r = 8 against r = 2) rather than against a baseline.
"""
import argparse
import csv
import os
import sys

import numpy as np
from scipy import stats


def per_text(folder, budget, method):
    path = os.path.join(folder, "fidelity_texts.csv")
    try:
        with open(path, newline="") as f:
            rows = [r for r in csv.DictReader(f) if int(r["budget"]) == budget]
    except OSError as e:
        sys.exit(f"{path}: cannot read it ({e}); give a folder of a fidelity run (it writes fidelity_texts.csv)")
    except (KeyError, ValueError) as e:
        sys.exit(f"{path}: not a ripplekv fidelity_texts.csv ({e})")
    if method.endswith("$"):  # the method's end: tells "..,ratio=2" from "..,ratio=2,score=text_median"
        rows = [r for r in rows if r["method"].endswith(method[:-1])]
    elif method:
        rows = [r for r in rows if method in r["method"]]
    methods = sorted({r["method"] for r in rows})
    if len(methods) != 1:
        sys.exit(f"{path}: {len(methods)} methods at budget {budget}"
                 + ((f" ending in {method[:-1]!r}" if method.endswith("$") else f" containing {method!r}")
                    if method else "")
                 + (f" ({', '.join(methods)}); name one with --a-method / --b-method" if methods else
                    "; check --budget and the method substring"))
    return {int(r["text"]): float(r["kl_mean"]) for r in rows}, methods[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", metavar="A_DIR B_DIR", help="one or more pairs of folders")
    ap.add_argument("--budget", type=int, required=True)
    ap.add_argument("--a-method", default="")
    ap.add_argument("--b-method", default="")
    ap.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    ap.add_argument("--texts", metavar="FIRST-LAST", help="only the texts with ids FIRST to LAST (inclusive)")
    args = ap.parse_intermixed_args()  # folders may follow the options
    keep = lambda t: True
    if args.texts:
        try:
            first, last = (int(x) for x in args.texts.split("-"))
        except ValueError:
            ap.error(f"--texts {args.texts}: give FIRST-LAST, two text ids such as 8-31")
        if last < first:  # ids are >= 0: a leading "-" does not parse above
            ap.error(f"--texts {args.texts}: need FIRST <= LAST")
        keep = lambda t: first <= t <= last
    if len(args.folders) % 2:
        ap.error(f"{len(args.folders)} folders: give them in pairs, A_DIR B_DIR [A_DIR2 B_DIR2 ...]")
    if args.resamples < 100:
        ap.error(f"--resamples {args.resamples}: use at least 100")
    pairs = list(zip(args.folders[::2], args.folders[1::2]))
    real = [(os.path.realpath(x), os.path.realpath(y)) for x, y in pairs]
    if len(set(real)) != len(real):
        ap.error("a pair of folders is given twice: its texts would count twice")
    d, a_all, b_all, methods_a, methods_b = [], [], [], [], []
    for a_dir, b_dir in pairs:
        a, method_a = per_text(a_dir, args.budget, args.a_method)
        b, method_b = per_text(b_dir, args.budget, args.b_method)
        a = {t: v for t, v in a.items() if keep(t)}
        b = {t: v for t, v in b.items() if keep(t)}
        texts = sorted(set(a) & set(b))
        if len(texts) < 2 or len(texts) != len(a) or len(texts) != len(b):
            sys.exit(f"{a_dir} (A) holds texts {sorted(a)}, {b_dir} (B) holds {sorted(b)}: "
                     "pair runs of the same texts (two or more)")
        d += [a[t] - b[t] for t in texts]
        a_all += [a[t] for t in texts]
        b_all += [b[t] for t in texts]
        methods_a += [m for m in [method_a] if m not in methods_a]
        methods_b += [m for m in [method_b] if m not in methods_b]
    d = np.array(d)
    ci = stats.bootstrap((d,), np.mean, n_resamples=args.resamples, confidence_level=0.95, method="percentile",
                         rng=np.random.default_rng(0)).confidence_interval
    verdict = "tie" if ci.low <= 0 <= ci.high else ("A closer" if d.mean() < 0 else "B closer")
    print(f"budget {args.budget}, {len(d)} texts{f' of {len(pairs)} pairs of folders' if len(pairs) > 1 else ''}: "
          f"KL(A) - KL(B) = {d.mean():+.4f} [{ci.low:+.4f}, {ci.high:+.4f}] "
          f"({verdict}); A {np.mean(a_all):.4f}, B {np.mean(b_all):.4f}\n"
          f"  A: {'; '.join(methods_a)}\n  B: {'; '.join(methods_b)}")


if __name__ == "__main__":
    main()
