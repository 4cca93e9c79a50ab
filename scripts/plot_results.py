#!/usr/bin/env python3
"""Draws a sweep's results as PNGs, from the summary.json `ripplekv table` writes:

    build/ripplekv table --runs out/sweeps/demo --out out/sweeps/demo/tables
    .venv/bin/python scripts/plot_results.py --summary out/sweeps/demo/tables/summary.json \
        --out out/sweeps/demo/plots

  score_vs_budget.png    LongBench average (and, with fidelity runs, KL and top-1 agreement)
                         against the KV budget, one line per method; FullKV as a dashed line.
  score_vs_ratio.png     the same against RippleKV's ratio r, one line per budget; uniform
                         allocations with the same selector are drawn at r = 1 (hollow marks).
  layer_budgets.png      mean kept prompt tokens per layer (the runs' kept/*.jsonl, RULER's
                         <length>/kept/*.jsonl), one panel per budget, one line per method.

One figure set per model. Nothing is recomputed here: every number comes from summary.json."""
import argparse
import json
import math
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

# Line styles cycle too, so that equal curves (r = 1 and uniform) stay visible on top of each other.
STYLES = ["-", "--", "-.", ":"]


def by_model(rows):
    groups = defaultdict(list)
    for r in rows:
        groups[r["model"] or "model"].append(r)
    return groups


def metric_panels(summary):
    """(title, kind, key, higher_is_better) for each quantity the summary has."""
    panels = []
    if summary["longbench"]:
        # `ripplekv ruler` / `needle` runs share LongBench's result format; their tasks read "<task>@<length>".
        synthetic = all("@" in t for r in summary["longbench"] for t in r["tasks"])
        panels.append(("RULER / needle average" if synthetic else "LongBench average", "longbench", "avg"))
    if summary["fidelity"]:
        panels.append(("KL(full || compressed), mean", "fidelity", "kl_mean"))
        panels.append(("top-1 agreement with the full cache", "fidelity", "top1_agreement"))
    return panels


def error_bars(values, intervals):
    """matplotlib's yerr from (lo, hi) intervals. The plotted value may be rounded (LongBench's
    Avg, to 2 decimals) while the interval is not, so a point interval can sit a hair off it:
    such a bar is clamped to 0."""
    return [[max(0.0, v - ci[0]) for v, ci in zip(values, intervals)],
            [max(0.0, ci[1] - v) for v, ci in zip(values, intervals)]]


def log2_axis(ax, values):
    ax.set_xscale("log", base=2)
    ticks = sorted(set(values))
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}" for t in ticks])


def plot_vs_budget(summary, model, path):
    panels = metric_panels(summary)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.8), squeeze=False)
    for ax, (title, kind, key) in zip(axes[0], panels):
        rows = [r for r in summary[kind] if (r["model"] or "model") == model]
        lines = defaultdict(list)
        budgets = []
        for r in rows:
            if r.get(key) is None:
                continue
            if r["full"]:
                ax.axhline(r[key], color="black", linestyle="--", linewidth=1, label=r["label"])
                continue
            lines[r["label"]].append((r["budget"], r[key], r.get(key + "_ci95")))
            budgets.append(r["budget"])
        for i, (label, pts) in enumerate(sorted(lines.items())):
            pts.sort(key=lambda p: p[0])
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            line, = ax.plot(xs, ys, marker="o", linestyle=STYLES[i % len(STYLES)], label=label)
            if all(p[2] for p in pts):  # 95% bootstrap intervals (summary.json's <key>_ci95)
                ax.errorbar(xs, ys, yerr=error_bars(ys, [p[2] for p in pts]),
                            fmt="none", ecolor=line.get_color(), alpha=0.5, capsize=2)
        if budgets:
            log2_axis(ax, budgets)
        if key == "kl_mean":
            ax.set_yscale("log")
        ax.set_xlabel("KV budget (prompt tokens per layer)")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"{model}: quality against the KV budget")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def plot_vs_ratio(summary, model, path):
    panels = metric_panels(summary)
    have = [(t, k, key) for (t, k, key) in panels
            if any(r["ratio"] is not None for r in summary[k] if (r["model"] or "model") == model)]
    if not have:
        return False
    fig, axes = plt.subplots(1, len(have), figsize=(5.2 * len(have), 3.8), squeeze=False)
    for ax, (title, kind, key) in zip(axes[0], have):
        rows = [r for r in summary[kind] if (r["model"] or "model") == model and r.get(key) is not None]
        ratio_rows = [r for r in rows if r["ratio"] is not None]
        selectors = {r["selector"] for r in ratio_rows}
        ratios = []
        colors = {}
        for selector, budget in sorted({(r["selector"], r["budget"]) for r in ratio_rows}):
            pts = sorted(((r["ratio"], r[key], r.get(key + "_ci95")) for r in ratio_rows
                          if r["budget"] == budget and r["selector"] == selector), key=lambda p: p[0])
            name = f"budget {budget}" if len(selectors) == 1 else f"{selector}, budget {budget}"
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            line, = ax.plot(xs, ys, marker="o", label=name)
            if all(p[2] for p in pts):  # 95% bootstrap intervals (summary.json's <key>_ci95)
                ax.errorbar(xs, ys, yerr=error_bars(ys, [p[2] for p in pts]),
                            fmt="none", ecolor=line.get_color(), alpha=0.5, capsize=2)
            colors[budget] = line.get_color()
            ratios += [p[0] for p in pts]
            # The uniform anchor: same selector, uniform layer budgets, same budget.
            for r in rows:
                if r["allocator"] == "uniform" and r["selector"] == selector and r["budget"] == budget:
                    ax.plot([1], [r[key]], marker="s", markerfacecolor="none", markersize=9,
                            color=colors[budget], linestyle="none",
                            label=f"{r['label']} (uniform), budget {budget}")
                    ci = r.get(key + "_ci95")
                    if ci:
                        ax.errorbar([1], [r[key]], yerr=error_bars([r[key]], [ci]), fmt="none",
                                    ecolor=colors[budget], alpha=0.5, capsize=2)
        if ratios:
            log2_axis(ax, ratios + [1])
        if key == "kl_mean":
            ax.set_yscale("log")
        ax.set_xlabel("ratio r (largest / smallest layer budget)")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"{model}: RippleKV against its ratio r")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return True


def plot_layer_budgets(summary, model, path):
    rows = [r for r in summary["longbench"] if (r["model"] or "model") == model and r["kept_per_layer"]]
    rows = [r for r in rows if not r["full"]]
    if not rows:
        return False
    budgets = sorted({r["budget"] for r in rows})
    cols = min(3, len(budgets))
    nrows = math.ceil(len(budgets) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(5.2 * cols, 3.6 * nrows), squeeze=False)
    for i, budget in enumerate(budgets):
        ax = axes[i // cols][i % cols]
        for k, r in enumerate(sorted((r for r in rows if r["budget"] == budget), key=lambda r: r["label"])):
            kept = r["kept_per_layer"]
            ax.plot(range(len(kept)), kept, marker=".", linestyle=STYLES[k % len(STYLES)],
                    label=f"{r['label']} ({r['kept_samples']} prompts)")
        ax.axhline(budget, color="black", linestyle=":", linewidth=1)
        ax.set_title(f"budget {budget}", fontsize=10)
        ax.set_xlabel("layer")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel("kept prompt tokens (mean)")
        ax.grid(alpha=0.3)
        # Below the panel, so that no line's end (a layer 0 or 27 far from the rest) hides behind it.
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.26))
    for j in range(len(budgets), nrows * cols):
        axes[j // cols][j % cols].axis("off")
    fig.suptitle(f"{model}: per-layer budgets (compressed prompts)")
    fig.tight_layout()
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--summary", required=True, help="summary.json from `ripplekv table --out DIR`")
    ap.add_argument("--out", required=True, help="folder for the PNGs")
    a = ap.parse_args()
    try:
        with open(a.summary) as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"error: {a.summary}: {e}")
    if summary.get("ripplekv_results_summary") != 1:
        sys.exit(f"error: {a.summary}: not a `ripplekv table` summary.json")
    if not summary["longbench"] and not summary["fidelity"]:
        sys.exit(f"error: {a.summary}: no results to draw")
    os.makedirs(a.out, exist_ok=True)
    models = sorted(set(by_model(summary["longbench"])) | set(by_model(summary["fidelity"])))
    written = []
    for model in models:
        prefix = "" if len(models) == 1 else model.replace("/", "_") + "-"
        path = os.path.join(a.out, prefix + "score_vs_budget.png")
        plot_vs_budget(summary, model, path)
        written.append(path)
        path = os.path.join(a.out, prefix + "score_vs_ratio.png")
        if plot_vs_ratio(summary, model, path):
            written.append(path)
        else:
            print(f"{model}: no runs with a ratio option; score_vs_ratio.png skipped", file=sys.stderr)
        path = os.path.join(a.out, prefix + "layer_budgets.png")
        if plot_layer_budgets(summary, model, path):
            written.append(path)
        else:
            print(f"{model}: no per-layer kept tokens (kept/*.jsonl); layer_budgets.png skipped",
                  file=sys.stderr)
    for p in written:
        print(f"wrote {p}", file=sys.stderr)


if __name__ == "__main__":
    main()
