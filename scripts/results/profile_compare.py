#!/usr/bin/env python3
"""Two `ripplekv profile` JSONs of one model set against each other: how alike their layer
rankings are, and how much of the budget their allocations put on other layers.

    .venv/bin/python scripts/results/profile_compare.py A.json B.json [--allocate BIN [--budget 256]] [--top 5]

Prints the Spearman rank correlation of the per-layer mean KL, each profile's most sensitive
layers, and, with --allocate BIN (a ripplekv binary), the share of the total that B's budgets
put on other layers than A's at r=2 and 8 min-max and r=8 rank (`BIN allocate`, score mean, no
per-layer minimum; the measure of profile_stability.py), with A's distance from equal budgets
for scale. For profiles of other texts, such as calibration on code against calibration on news.
"""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profile_stability import budgets, moved, spearman  # noqa: E402  (the same measures)


def read(path):
    try:
        with open(path) as f:
            p = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"{path}: cannot read it as a profile JSON ({e})")
    if p.get("format") != "ripplekv-sensitivity-profile" or not p.get("layers"):
        sys.exit(f"{path}: not a ripplekv sensitivity profile (no format \"ripplekv-sensitivity-profile\" with layers); "
                 "give `ripplekv profile --out` files")
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--allocate", metavar="BIN", help="a ripplekv binary: also compare the budgets it gives")
    ap.add_argument("--budget", type=int, help="with --allocate: average tokens per layer (default 256)")
    ap.add_argument("--top", type=int, default=5, help="most sensitive layers listed (default 5)")
    args = ap.parse_args()
    if args.budget is not None and not args.allocate:
        ap.error("--budget is for --allocate BIN; give both or neither")
    a, b = read(args.a), read(args.b)
    if len(a["layers"]) != len(b["layers"]):
        sys.exit(f"{args.a} has {len(a['layers'])} layers, {args.b} {len(b['layers'])}: profiles of one model only")
    fa, fb = a.get("model", {}).get("weights_fingerprint"), b.get("model", {}).get("weights_fingerprint")
    if fa and fb and fa != fb:
        sys.exit(f"{args.a} and {args.b} are profiles of other checkpoints ({fa} and {fb})")
    ma, mb = [l["mean"] for l in a["layers"]], [l["mean"] for l in b["layers"]]
    top = lambda m: sorted(range(len(m)), key=lambda i: -m[i])[:args.top]
    print(f"A: {args.a}\nB: {args.b}")
    print(f"Spearman of the per-layer mean KL: {spearman(ma, mb):.3f} ({len(ma)} layers)")
    print(f"most sensitive layers, A: {', '.join(map(str, top(ma)))}; B: {', '.join(map(str, top(mb)))}")
    if args.allocate:
        budget = args.budget or 256
        settings = (("minmax", (2, 8)), ("rank", (8,)))
        rows = [("B against A", []), ("A against equal budgets (for scale)", [])]
        with tempfile.TemporaryDirectory() as tmp:
            for normalize, ratios in settings:
                ba = budgets(args.allocate, a, budget, normalize, ratios, tmp)
                bb = budgets(args.allocate, b, budget, normalize, ratios, tmp)
                rows[0][1].extend(f"{100 * moved(ba[r], bb[r]):.1f}%" for r in ratios)
                rows[1][1].extend(f"{100 * moved(ba[r], [budget] * len(ba[r])):.1f}%" for r in ratios)
        print(f"\nBudget {budget}: the share of the total on other layers\n\n"
              "| comparison | r=2 min-max | r=8 min-max | r=8 rank |\n|---|---:|---:|---:|")
        for label, cells in rows:
            print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
