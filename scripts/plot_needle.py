#!/usr/bin/env python3
"""Draws needle-in-a-haystack heatmaps from the needle.json each run folder holds:

    .venv/bin/python scripts/plot_needle.py out/needle/snapkv-b128 out/needle/full --out out/needle/plots

  needle_<label>.png         one per run: x = context length (tokens), y = needle depth (%),
                             each cell colored 0..100 (red -> yellow -> green, as kvpress and
                             KVCache-Factory draw it) with its value printed; grey = not run.
  needle_side_by_side.png    with more than one run: one panel per run, one shared color scale
                             and colorbar.

needle.json (written by ripplekv):
    {"label": "snapkv b128", "metric": "rouge-1 recall x 100", "lengths": [1024, 2048],
     "depths": [0, 25, 50, 75, 100], "scores": [[s(depth0,len0), s(depth0,len1)], ...]}
scores[i][j] is depth i, length j, in 0..100, or null for a cell that was not run. The title
gives the label and the mean over the cells that were run. Nothing is recomputed here.
A missing or malformed needle.json is an error naming the file (exit status 2)."""
import argparse
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import LinearSegmentedColormap, Normalize  # noqa: E402
import numpy as np  # noqa: E402

CMAP = LinearSegmentedColormap.from_list("needle", ["#F0496E", "#EBB839", "#0CD79F"])
CMAP.set_bad("#C8C8C8")  # null cells
NORM = Normalize(vmin=0, vmax=100)


class BadFile(Exception):
    pass


def fail(msg):
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(2)


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def load_run(arg):
    """The run's needle.json, checked. arg is a run folder (or the needle.json itself)."""
    path = arg if os.path.isfile(arg) and arg.endswith(".json") else os.path.join(arg, "needle.json")
    if not os.path.exists(path):
        what = "no such folder" if not os.path.exists(arg) else "no needle.json in that folder"
        raise BadFile(f"{path}: missing ({what})")
    if not os.path.isfile(path):
        raise BadFile(f"{path}: not a file")
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except (OSError, UnicodeDecodeError) as e:
        raise BadFile(f"{path}: cannot read it ({e})")
    except json.JSONDecodeError as e:
        raise BadFile(f"{path}: not valid JSON ({e})")

    def bad(why):
        return BadFile(f"{path}: malformed needle.json: {why}")

    if not isinstance(d, dict):
        raise bad("the top level must be an object")
    for key in ("label", "lengths", "depths", "scores"):
        if key not in d:
            raise bad(f'"{key}" is missing')
    if not isinstance(d["label"], str) or not d["label"].strip():
        raise bad('"label" must be a non-empty string')
    metric = d.get("metric", "score")
    if not isinstance(metric, str):
        raise bad('"metric" must be a string')
    lengths, depths, scores = d["lengths"], d["depths"], d["scores"]
    if not isinstance(lengths, list) or not lengths or not all(
            isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in lengths):
        raise bad('"lengths" must be a non-empty list of positive integers (tokens)')
    if not isinstance(depths, list) or not depths or not all(is_number(x) and 0 <= x <= 100 for x in depths):
        raise bad('"depths" must be a non-empty list of numbers in 0..100 (percent)')
    if not isinstance(scores, list) or len(scores) != len(depths):
        raise bad(f'"scores" must be a list of {len(depths)} rows, one per depth')
    grid = np.full((len(depths), len(lengths)), np.nan)
    for i, row in enumerate(scores):
        if not isinstance(row, list) or len(row) != len(lengths):
            raise bad(f'"scores"[{i}] must be a list of {len(lengths)} values, one per length')
        for j, v in enumerate(row):
            if v is None:
                continue
            if not is_number(v) or not 0 <= v <= 100:
                raise bad(f'"scores"[{i}][{j}] = {json.dumps(v)}: must be a number in 0..100 or null')
            grid[i, j] = v
    return {"path": path, "label": d["label"], "metric": metric, "lengths": lengths,
            "depths": depths, "grid": grid}


def mean_text(grid):
    run = grid[~np.isnan(grid)]
    return f"mean {run.mean():.1f}" if run.size else "nothing run"


def fmt_depth(x):
    return f"{x:g}"


def draw(ax, run, fontsize):
    grid = run["grid"]
    im = ax.imshow(np.ma.masked_invalid(grid), cmap=CMAP, norm=NORM, aspect="auto",
                   interpolation="nearest")
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            v = grid[i, j]
            text = "n/a" if np.isnan(v) else (f"{v:.0f}" if float(v).is_integer() else f"{v:.1f}")
            ax.text(j, i, text, ha="center", va="center", fontsize=fontsize,
                    color="#555555" if np.isnan(v) else "black")
    ax.set_xticks(range(len(run["lengths"])))
    ax.set_xticklabels([str(n) for n in run["lengths"]],
                       rotation=45 if len(run["lengths"]) > 6 else 0,
                       ha="right" if len(run["lengths"]) > 6 else "center")
    ax.set_yticks(range(len(run["depths"])))
    ax.set_yticklabels([fmt_depth(x) for x in run["depths"]])
    # thin white lines between cells
    ax.set_xticks(np.arange(-0.5, grid.shape[1]), minor=True)
    ax.set_yticks(np.arange(-0.5, grid.shape[0]), minor=True)
    ax.grid(which="minor", color="white", linewidth=1)
    ax.tick_params(which="minor", length=0)
    for s in ax.spines.values():
        s.set_visible(False)
    ax.set_xlabel("context length (tokens)")
    ax.set_ylabel("needle depth (%)")
    ax.set_title(f"{short_label(run['label'])}  ({mean_text(grid)})", fontsize=11)
    return im


def cell_fontsize(runs):
    cols = max(len(r["lengths"]) for r in runs)
    rows = max(len(r["depths"]) for r in runs)
    return 9 if max(cols, rows) <= 8 else (8 if max(cols, rows) <= 12 else 6)


def panel_size(run):
    return max(4.0, 0.85 * len(run["lengths"]) + 1.6), max(3.0, 0.42 * len(run["depths"]) + 1.6)


def short_label(label):
    """The label with a profile=PATH option cut to the file's name (run folder names flatten
    the path's slashes: profile=results_m_profiles_p.json -> profile=p.json), so that panel
    titles stay readable."""
    label = re.sub(r"profile=[^,@ ]*/", "profile=", label)
    return re.sub(r"profile=[^,@ ]*?profiles_", "profile=", label)


def sanitize(label):
    s = re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("._-")
    return s or "run"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run folder holding needle.json")
    ap.add_argument("--out", required=True, metavar="DIR", help="folder for the PNGs (created)")
    a = ap.parse_args()

    runs = []
    for arg in a.runs:
        try:
            runs.append(load_run(arg))
        except BadFile as e:
            fail(e)
    try:
        os.makedirs(a.out, exist_ok=True)
    except OSError as e:
        fail(f"{a.out}: cannot create the output folder ({e})")

    fontsize = cell_fontsize(runs)
    used = {}
    for run in runs:
        name = sanitize(run["label"])
        used[name] = used.get(name, 0) + 1
        if used[name] > 1:  # two runs with the same label: keep both
            name = f"{name}_{used[name]}"
        w, h = panel_size(run)
        fig, ax = plt.subplots(figsize=(w + 1.2, h), layout="constrained")
        im = draw(ax, run, fontsize)
        fig.colorbar(im, ax=ax, label=run["metric"], fraction=0.06, pad=0.02)
        path = os.path.join(a.out, f"needle_{name}.png")
        fig.savefig(path, dpi=130)
        plt.close(fig)
        print(path)

    if len(runs) > 1:
        ncols = min(len(runs), 3)
        nrows = math.ceil(len(runs) / ncols)
        w = max(panel_size(r)[0] for r in runs)
        h = max(panel_size(r)[1] for r in runs)
        same_depths = all(r["depths"] == runs[0]["depths"] for r in runs)
        fig, axes = plt.subplots(nrows, ncols, figsize=(w * ncols + 1.2, h * nrows), squeeze=False,
                                 layout="constrained")
        for k, run in enumerate(runs):
            ax = axes[k // ncols][k % ncols]
            im = draw(ax, run, fontsize)
            if same_depths and k % ncols:
                ax.set_ylabel("")
                ax.tick_params(axis="y", labelleft=False)
        for k in range(len(runs), nrows * ncols):
            axes[k // ncols][k % ncols].set_visible(False)
        metrics = list(dict.fromkeys(r["metric"] for r in runs))
        fig.colorbar(im, ax=axes.ravel().tolist(), label=" / ".join(metrics), fraction=0.04, pad=0.02)
        path = os.path.join(a.out, "needle_side_by_side.png")
        fig.savefig(path, dpi=130)
        plt.close(fig)
        print(path)


if __name__ == "__main__":
    main()
