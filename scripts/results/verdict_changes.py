#!/usr/bin/env python3
"""Which paired verdicts change between two versions of the same RippleKV runs: e.g. the same
allocations with a bfloat16 and a float32 profile, in the same table or in two tables.

    .venv/bin/python scripts/results/verdict_changes.py A.csv B.csv --a-label TEXT --b-label TEXT
    .venv/bin/python scripts/results/verdict_changes.py paired.csv paired.csv \\
        --a-label texts0-7.json --b-label texts0-7_f32.json

Reads two `paired.csv` or `fidelity_paired.csv` files that `ripplekv table` writes. A row of A is
matched to the row of B with the same budget whose method label equals A's with --a-label
replaced by --b-label (give '' for both when the labels are the same, as for fidelity sweeps
whose labels name no profile). For each matched pair it prints both verdicts (against the best
baseline and against the uniform run of the same selector) and the differences, then counts the
verdicts that move towards B's RippleKV (loss -> tie, tie -> win, loss -> win), away from it, and
that stay. The best baseline is each table's own: where it differs between A and B (other
baselines ran beside one of them) that verdict is printed but not counted.
"""
import argparse
import csv
import sys

RANK = {"loss": 0, "tie": 1, "win": 2}


def rows(path):
    try:
        with open(path, newline="") as f:
            table = list(csv.reader(f))
    except OSError as e:
        sys.exit(f"{path}: cannot read it ({e}); give a paired.csv or fidelity_paired.csv of `ripplekv table`")
    if not table or table[0][:7] != ["table", "Method", "Budget", "Best baseline", "Verdict",
                                     "Uniform, same selector", "Verdict"]:
        sys.exit(f"{path}: not a paired table of `ripplekv table` (its header should start with "
                 "table,Method,Budget,Best baseline,Verdict)")
    diff = 9  # avg_difference or kl_difference, then ci_lo, ci_hi, and the same against uniform
    return [{"method": r[1], "budget": r[2], "best": r[3], "verdicts": (r[4], r[6]),
             "diffs": (r[diff], r[diff + 3])} for r in table[1:] if len(r) > diff + 3]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a_csv")
    p.add_argument("b_csv")
    p.add_argument("--a-label", required=True, help="text in A's method labels that B's replace")
    p.add_argument("--b-label", required=True, help="what replaces it in B's method labels")
    args = p.parse_args()
    b_rows = {(r["method"], r["budget"]): r for r in rows(args.b_csv)}
    moved = {"towards": 0, "away": 0, "same": 0}
    matched = 0
    for a in rows(args.a_csv):
        if args.a_label not in a["method"]:
            continue
        key = (a["method"].replace(args.a_label, args.b_label), a["budget"])
        b = b_rows.get(key)
        if b is None or (key == (a["method"], a["budget"]) and args.a_csv == args.b_csv):
            continue
        matched += 1
        cells = []
        for i, against in enumerate(("best", "uniform")):
            va, vb = a["verdicts"][i], b["verdicts"][i]
            if va not in RANK or vb not in RANK:  # a run without an interval has no verdict
                cells.append(f"{against}: {va or '-'} -> {vb or '-'}")
                continue
            name = "uniform"
            if against == "best":
                name = a["best"] if a["best"] == b["best"] else f"{a['best']}/{b['best']}"
            cell = f"{name}: {va} -> {vb} ({float(a['diffs'][i]):+.3f} -> {float(b['diffs'][i]):+.3f})"
            if against == "best" and a["best"] != b["best"]:
                cells.append(cell + " [other baseline, not counted]")
                continue
            step = RANK[vb] - RANK[va]
            moved["towards" if step > 0 else "away" if step < 0 else "same"] += 1
            cells.append(cell)
        print(f"{b['method']} @ {b['budget']}: " + "; ".join(cells))
    if matched == 0:
        sys.exit(f"no row of {args.a_csv} whose label holds {args.a_label!r} has a counterpart in {args.b_csv}")
    print(f"{matched} matched rows, {sum(moved.values())} verdicts: {moved['towards']} towards B, "
          f"{moved['away']} away from B, {moved['same']} the same")


if __name__ == "__main__":
    main()
