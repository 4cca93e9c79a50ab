#!/usr/bin/env python3
"""Stability of RippleKV's per-layer sensitivity profile (issue 14, item 1), from the
one-text profiles that scripts/results/profile_stability.sh writes to OUT/per_text/.

    .venv/bin/python scripts/results/profile_stability.py OUT [--n 8] [--against DIR ...] [--profile FILE ...]
        [--allocate BIN [--budget 256]]

Prints (and writes OUT/stability.md):
  - Spearman rank correlation of the per-layer scores between two disjoint calibration sets
    (texts 0..n-1 vs n..2n-1), between noise seeds 0 and 1, and across eps 0.05 / 0.1 / 0.2;
  - the same for three statistics of a layer over texts: mean of the per-text mean KL, median
    of it, and mean of the per-text p90;
  - how many texts the ranking needs: the mean Spearman between k random texts of set A and
    the whole of set B, for k = 1, 2, 4, ..., n (200 random draws each);
  - with --against DIR: the same texts profiled by another setting (another stability folder:
    another dtype, noise mode or token count), set against set, and per text;
  - with --profile FILE: a `ripplekv profile` JSON (e.g. an experiment's profile of the same
    texts) against set A's mean;
  - with --allocate BIN: what the allocator sees, the budgets `BIN allocate` gives set A's and set
    B's profiles (and seed 0's and seed 1's) at r=2 and 8 min-max and r=8 rank: the share of the
    total on other layers, and set A's distance from equal budgets for scale;
and writes OUT/profile_stability.png (per-layer mean KL of each variant, log scale) and
OUT/merged_eps0.1_seed0_texts0-<n-1>.json: the n-text profile at the defaults in
`ripplekv profile`'s format, for the experiments (and, where complete, set B's
merged_eps0.1_seed0_texts<n>-<2n-1>.json, both sets' merged_eps0.1_seed0_texts0-<2n-1>.json and
seed 1's merged_eps0.1_seed1_texts0-<n-1>.json). Its mean, max and stderr are exact for texts
of equal token count (all are truncated to --max-tokens); p50 and p90 are not aggregable from
per-text profiles and are left out (use a direct `ripplekv profile` run for score=p90).
Runs with what is there: missing variants are reported, not invented.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import tempfile

import numpy as np
from scipy import stats

NAME = re.compile(r"eps([0-9.]+)_seed(\d+)_text(\d+)\.json$")


def load(out):
    runs = {}
    for path in glob.glob(os.path.join(out, "per_text", "*.json")):
        m = NAME.search(os.path.basename(path))
        if not m or ".tmp." in path:
            continue
        with open(path) as f:
            p = json.load(f)
        key = (m.group(1), int(m.group(2)))
        runs.setdefault(key, {})[int(m.group(3))] = p
    return runs


def matrix(profiles, texts, field):
    """[texts, layers] of one per-layer field."""
    return np.array([[l[field] for l in profiles[t]["layers"]] for t in texts])


def layer_means(profile):
    return [l["mean"] for l in profile["layers"]]


def merged_profile(profiles, texts):
    """The profile of a set of texts from their one-text profiles, in `ripplekv profile`'s format
    (with each text's mean in per_text, which score=text_median reads)."""
    merged = json.loads(json.dumps(profiles[texts[0]]))
    means = matrix(profiles, texts, "mean")
    maxes = matrix(profiles, texts, "max")
    same = matrix(profiles, texts, "same_top_rate")
    merged["calibration"]["samples"] = len(texts)
    merged["calibration"]["skip"] = texts[0]
    merged["merged_from"] = [f"per_text/eps{profiles[t]['settings']['eps']}_seed{profiles[t]['settings']['seed']}"
                             f"_text{t}.json" for t in texts]
    merged["note"] = ("mean of the per-text profiles (exact: equal token counts); stderr over texts; max exact; p50/p90 "
                      "left out (not aggregable)")
    merged["seconds"] = float(sum(profiles[t]["seconds"] for t in texts))
    merged["layers"] = [{"layer": i, "mean": float(means[:, i].mean()),
                         "stderr": float(means[:, i].std(ddof=1) / np.sqrt(len(texts))), "max": float(maxes[:, i].max()),
                         "same_top_rate": float(same[:, i].mean()), "per_text": [float(v) for v in means[:, i]]}
                        for i in range(means.shape[1])]
    return merged


def budgets(binary, profile, budget, normalize, ratios, tmp, score="mean"):
    """Per-layer budgets `ripplekv allocate` gives a profile: {ratio: [tokens per layer]}."""
    src, out = os.path.join(tmp, "profile.json"), os.path.join(tmp, "budgets.json")
    with open(src, "w") as f:
        json.dump(profile, f)
    if os.path.exists(out):
        os.remove(out)  # a binary that writes nothing must not pass off the last call's budgets
    cmd = [binary, "allocate", "--profile", src, "--budget", str(budget), "--normalize", normalize, "--score", score,
           "--ratio", ",".join(str(r) for r in ratios), "--out", out]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise SystemExit(f"--allocate {binary}: cannot run it ({e}); build it first (scripts/test.sh builds build/ripplekv)")
    if r.returncode != 0 or not os.path.exists(out):
        raise SystemExit(f"--allocate: {' '.join(cmd)} failed ({r.returncode}, {'no' if not os.path.exists(out) else 'an'} "
                         f"output): {r.stderr.strip()}")
    with open(out) as f:
        return {float(a["ratio"]): a["budgets"] for a in json.load(f)["allocations"]}


def moved(a, b):
    """Share of the budget on other layers: sum |a - b| over both totals (equal totals: what moves)."""
    return sum(abs(x - y) for x, y in zip(a, b)) / (sum(a) + sum(b))


def spearman(a, b):
    return float(stats.spearmanr(a, b).statistic)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--n", type=int, default=8, help="texts per calibration set")
    ap.add_argument("--against", action="append", default=[], metavar="DIR",
                    help="another stability folder (its per_text/ profiles of the same texts at other settings)")
    ap.add_argument("--profile", action="append", default=[], metavar="FILE",
                    help="a ripplekv profile JSON to rank against set A's mean (e.g. the experiments' profile)")
    ap.add_argument("--allocate", metavar="BIN", help="a ripplekv binary: also compare the budgets `BIN allocate` "
                    "gives the two sets' profiles, and seeds 0 and 1 (r=2 and 8 min-max, r=8 rank)")
    ap.add_argument("--budget", type=int, help="with --allocate: average tokens per layer (default 256)")
    a = ap.parse_args()
    if a.budget is not None and not a.allocate:
        raise SystemExit("--budget is for --allocate BIN (the budgets of the two sets' profiles); give both or neither")
    a.budget = 256 if a.budget is None else a.budget
    runs = load(a.out)
    base = runs.get(("0.1", 0), {})
    n = a.n
    set_a = [t for t in range(n) if t in base]
    set_b = [t for t in range(n, 2 * n) if t in base]
    if len(set_a) < n:
        raise SystemExit(f"{a.out}/per_text: only {len(set_a)} of the first {n} default profiles exist; run "
                         "scripts/results/profile_stability.sh first")
    lines = [f"# Profile stability: {base[0]['model']['path'].rstrip('/').split('/')[-1]}", ""]
    s0 = base[0]
    lines.append(f"Calibration: {os.path.basename(s0['calibration']['path'])}, {s0['calibration']['max_tokens']} tokens "
                 f"per text, one profile per text; K = {s0['settings']['kl_positions']}, noise "
                 f"{s0['settings']['noise_mode']}, positions {s0['settings']['positions']}, "
                 f"{s0['settings']['kl_direction']} KL, {s0['model']['dtype']}.")
    lines.append("")
    mean_a = matrix(base, set_a, "mean").mean(0)
    stat = {
        "mean": lambda p, ts: matrix(p, ts, "mean").mean(0),
        "median": lambda p, ts: np.median(matrix(p, ts, "mean"), 0),
        "p90": lambda p, ts: matrix(p, ts, "p90").mean(0),
    }
    lines += ["| comparison | Spearman (mean) | Spearman (median) | Spearman (p90) |", "|---|---:|---:|---:|"]

    def row(label, p1, t1, p2, t2):
        vals = [spearman(stat[s](p1, t1), stat[s](p2, t2)) for s in ("mean", "median", "p90")]
        lines.append(f"| {label} | " + " | ".join(f"{v:.3f}" for v in vals) + " |")

    if len(set_b) == n:
        row(f"texts 0-{n-1} vs texts {n}-{2*n-1} (disjoint sets)", base, set_a, base, set_b)
    else:
        lines.append(f"| disjoint sets | set B has only {len(set_b)} of its {n} texts | | |")
    seed1 = runs.get(("0.1", 1), {})
    if all(t in seed1 for t in set_a):
        row("seed 0 vs seed 1 (same texts)", base, set_a, seed1, set_a)
    for eps in ("0.05", "0.2"):
        other = runs.get((eps, 0), {})
        if all(t in other for t in set_a):
            row(f"eps 0.1 vs eps {eps} (same texts)", base, set_a, other, set_a)
    e05, e2 = runs.get(("0.05", 0), {}), runs.get(("0.2", 0), {})
    if all(t in e05 for t in set_a) and all(t in e2 for t in set_a):
        row("eps 0.05 vs eps 0.2", e05, set_a, e2, set_a)
    for other_dir in a.against:
        against = load(other_dir).get(("0.1", 0), {})
        shared = [t for t in set_a + set_b if t in against]
        if not shared:
            raise SystemExit(f"--against {other_dir}: its per_text/ has no eps0.1_seed0 profile of texts 0-{2*n-1}")
        o0, b0 = against[shared[0]], base[shared[0]]
        if len(o0["layers"]) != len(b0["layers"]):
            raise SystemExit(f"--against {other_dir}: {len(o0['layers'])} layers, not {len(b0['layers'])}: "
                             "another model's profiles")
        if o0["calibration"].get("hash") != b0["calibration"].get("hash"):
            raise SystemExit(f"--against {other_dir}: another calibration file (hash {o0['calibration'].get('hash')}, "
                             f"not {b0['calibration'].get('hash')}), so not the same texts")
        label = (f"{o0['model']['dtype']}, {o0['settings']['noise_mode']} noise, "
                 f"{o0['calibration']['max_tokens']} tokens ({other_dir})")
        for name, ts in (("set A", set_a), ("set B", set_b)):
            if len(ts) < n:
                continue  # this folder's own set B is incomplete: the disjoint-sets row says so
            have = [t for t in ts if t in against]
            if len(have) == n:
                row(f"vs {label}, {name} (texts {ts[0]}-{ts[-1]})", base, ts, against, ts)
            else:
                lines.append(f"| vs {label}, {name} | {other_dir} has only {len(have)} of its {n} texts | | |")
        per_text = [spearman(layer_means(base[t]), layer_means(against[t])) for t in shared]
        lines.append(f"| vs {label}, single texts: median over {len(shared)} texts | "
                     f"{np.median(per_text):.3f} | | |")
    for path in a.profile:
        with open(path) as f:
            prof = json.load(f)
        cal = prof["calibration"]
        vals = np.array(layer_means(prof))
        if len(vals) != len(mean_a):
            raise SystemExit(f"--profile {path}: {len(vals)} layers, not {len(mean_a)}: another model's profile")
        lines.append(f"| vs {os.path.basename(path)} ({cal['samples']} texts from {cal['skip']}, {cal['max_tokens']} tokens, "
                     f"{prof['model']['dtype']}, {prof['settings']['noise_mode']}), against set A | "
                     f"{spearman(mean_a, vals):.3f} | | |")
    lines.append("")
    lines.append("Statistics compared on the same texts (set A):")
    lines.append("")
    lines.append(f"- mean vs median: {spearman(stat['mean'](base, set_a), stat['median'](base, set_a)):.3f}; "
                 f"mean vs p90: {spearman(stat['mean'](base, set_a), stat['p90'](base, set_a)):.3f}")
    if len(set_b) == n:
        rng = np.random.default_rng(0)
        mb = stat["mean"](base, set_b)
        lines += ["", f"Texts needed: Spearman between the mean of k random texts of set A and all {n} texts of set B "
                      "(200 draws):", "", "| k | mean | 5th pct | 95th pct |", "|---:|---:|---:|---:|"]
        k = 1
        while k <= n:
            rs = [spearman(matrix(base, list(rng.choice(set_a, size=k, replace=False)), "mean").mean(0), mb)
                  for _ in range(200)]
            lines.append(f"| {k} | {np.mean(rs):.3f} | {np.percentile(rs, 5):.3f} | {np.percentile(rs, 95):.3f} |")
            k *= 2
        # Per-text agreement: how alike single texts rank the layers.
        per = matrix(base, set_a + set_b, "mean")
        pair = [spearman(per[i], per[j]) for i in range(len(per)) for j in range(i + 1, len(per))]
        lines.append("")
        lines.append(f"Single texts against each other: median Spearman {np.median(pair):.3f} "
                     f"(5th-95th pct {np.percentile(pair, 5):.3f} to {np.percentile(pair, 95):.3f}).")
    if a.allocate:
        pairs = []  # (label, score, (profiles, texts), (profiles, texts))
        if len(set_b) == n:
            pairs.append((f"texts 0-{n-1} vs texts {n}-{2*n-1} (disjoint sets)", "mean", (base, set_a), (base, set_b)))
        if all(t in seed1 for t in set_a):
            pairs.append(("seed 0 vs seed 1 (same texts)", "mean", (base, set_a), (seed1, set_a)))
        if len(set_b) == n:
            pairs.append(("disjoint sets, each the median over its texts (score=text_median)", "text_median",
                          (base, set_a), (base, set_b)))
        settings = (("minmax", (2, 8)), ("rank", (8,)))
        lines += ["", f"Budgets (`ripplekv allocate --budget {a.budget}`, score mean unless the row says otherwise, no "
                      "per-layer minimum): the share of "
                      "the total that one allocation puts on other layers than the other (half the sum of the per-layer "
                      "differences over the total). Rank normalisation gives every profile the same budgets in another "
                      "order, so its distance from equal budgets is the same for every profile.", "",
                  "| comparison | r=2 min-max | r=8 min-max | r=8 rank |", "|---|---:|---:|---:|"]
        with tempfile.TemporaryDirectory() as tmp:
            for label, score, (p1, t1), (p2, t2) in pairs:
                cells = []
                for normalize, ratios in settings:
                    b1 = budgets(a.allocate, merged_profile(p1, t1), a.budget, normalize, ratios, tmp, score)
                    b2 = budgets(a.allocate, merged_profile(p2, t2), a.budget, normalize, ratios, tmp, score)
                    cells += [f"{100 * moved(b1[r], b2[r]):.1f}%" for r in ratios]
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
            cells = []  # the scale: how far set A's budgets are from equal ones
            for normalize, ratios in settings:
                b1 = budgets(a.allocate, merged_profile(base, set_a), a.budget, normalize, ratios, tmp)
                cells += [f"{100 * moved(b1[r], [a.budget] * len(b1[r])):.1f}%" for r in ratios]
            lines.append(f"| texts 0-{n-1} vs equal budgets (for scale) | " + " | ".join(cells) + " |")
    order = np.argsort(-mean_a)
    lines.append("")
    lines.append("Most sensitive layers (set A, mean): " + ", ".join(f"{i} ({mean_a[i]:.2e})" for i in order[:5]) +
                 "; least: " + ", ".join(f"{i} ({mean_a[i]:.2e})" for i in order[-3:]) + ".")
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(a.out, "stability.md"), "w") as f:
        f.write(text)

    # The merged profiles at the defaults: set A (the experiments'), and where complete set B, both sets
    # together and set A with noise seed 1, to measure downstream what the calibration set and the draw move.
    merges = [(base, set_a, 0)]
    if len(set_b) == n:
        merges += [(base, set_b, 0), (base, set_a + set_b, 0)]
    if all(t in seed1 for t in set_a):
        merges.append((seed1, set_a, 1))
    for profiles, texts, seed in merges:
        path = os.path.join(a.out, f"merged_eps0.1_seed{seed}_texts{texts[0]}-{texts[-1]}.json")
        with open(path, "w") as f:
            json.dump(merged_profile(profiles, texts), f, indent=1)
            f.write("\n")
        print(f"wrote {path}")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 3.6))
    layers = np.arange(len(mean_a))
    ax.plot(layers, mean_a, "o-", label=f"eps 0.1, texts 0-{n-1}")
    if len(set_b) == n:
        ax.plot(layers, stat["mean"](base, set_b), "s--", label=f"eps 0.1, texts {n}-{2*n-1}")
    if all(t in seed1 for t in set_a):
        ax.plot(layers, stat["mean"](seed1, set_a), "x:", label="eps 0.1, seed 1")
    for eps, mk in (("0.05", "v-."), ("0.2", "^-.")):
        other = runs.get((eps, 0), {})
        if all(t in other for t in set_a):
            ax.plot(layers, stat["mean"](other, set_a), mk, label=f"eps {eps}")
    ax.set_yscale("log")
    ax.set_xlabel("layer")
    ax.set_ylabel("mean KL")
    ax.set_title("Per-layer sensitivity to value-cache noise")
    ax.legend(fontsize=8)
    fig.tight_layout()
    png = os.path.join(a.out, "profile_stability.png")
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


if __name__ == "__main__":
    main()
