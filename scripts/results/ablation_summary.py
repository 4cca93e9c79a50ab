#!/usr/bin/env python3
"""One Markdown table of every profiler ablation (issue 14), from the tables that
`scripts/results/ablations.sh` writes: for each ablation and setting, RippleKV's mean KL to the
full cache at each budget, and its paired difference from SnapKV (the best baseline of these
sweeps) with the 95% interval and the verdict. Nothing is recomputed: the numbers are the
`ripplekv table` outputs (fidelity_paired.csv, summary.json) of each ablation folder.

    .venv/bin/python scripts/results/ablation_summary.py results/smollm2-135m-instruct/ablations \
        > results/smollm2-135m-instruct/ablations/summary.md
"""
import csv
import json
import os
import re
import sys

ORDER = ["ratio", "score", "normalize", "positions", "direction", "noise", "eps"]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ablation_summary.py ABLATIONS_DIR (the OUT of scripts/results/ablations.sh)")
    root = sys.argv[1]
    names = [n for n in ORDER if os.path.isfile(os.path.join(root, n, "tables", "fidelity_paired.csv"))]
    if not names:
        sys.exit(f"ablation_summary.py: no {root}/<ablation>/tables/fidelity_paired.csv; run scripts/results/ablations.sh")
    budgets = set()
    rows = {}  # (ablation, label) -> {budget: (kl, ci, diff, lo, hi, verdict)}
    baseline = {}  # (ablation, budget) -> (label, kl)
    for name in names:
        tables = os.path.join(root, name, "tables")
        with open(os.path.join(tables, "summary.json")) as f:
            summary = json.load(f)
        kl = {r["dir"]: (r["kl_mean"], r.get("kl_mean_ci95")) for r in summary["fidelity"]}
        for r in summary["fidelity"]:
            if r["allocator"] != "ripple" and not r["full"]:
                baseline[(name, r["budget"])] = (r["label"], r["kl_mean"])
        with open(os.path.join(tables, "fidelity_paired.csv"), newline="") as f:
            for r in csv.DictReader(f):
                budget = int(r["Budget"])
                budgets.add(budget)
                value, ci = kl[r["source"]]
                rows.setdefault((name, r["Method"]), {})[budget] = (
                    value, ci, float(r["kl_difference"]), float(r["ci_lo"]), float(r["ci_hi"]), r["Verdict"])
    budgets = sorted(budgets)
    head = ["ablation", "setting"] + [f"KL @{b} (vs SnapKV, 95% CI)" for b in budgets]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name in names:
        line = [name, "SnapKV (uniform)"] + [
            f"{baseline[(name, b)][1]:.4f}" if (name, b) in baseline else "" for b in budgets]
        print("| " + " | ".join(line) + " |")
        # settings in natural order (r=2 before r=16), whatever order the tables list them in
        numbered = lambda label: [float(t) if re.fullmatch(r"[0-9.]+", t) else t
                                  for t in re.findall(r"[0-9]+(?:\.[0-9]+)?|[^0-9]+", label)]
        for (abl, label), by_budget in sorted(rows.items(), key=lambda kv: numbered(kv[0][1])):
            if abl != name:
                continue
            cells = []
            for b in budgets:
                if b not in by_budget:
                    cells.append("")
                    continue
                value, _, d, lo, hi, verdict = by_budget[b]
                cells.append(f"{value:.4f} ({d:+.4f} [{lo:+.4f}, {hi:+.4f}] {verdict})")
            print("| " + " | ".join([name, label] + cells) + " |")


if __name__ == "__main__":
    main()
