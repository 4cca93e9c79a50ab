#!/usr/bin/env python3
"""Which committed paired verdicts depend on the bootstrap's draw: every committed table folder
(results/**/tables*/table_config.json) is tabled again from the same runs with `ripplekv table
--resamples N` into a scratch folder, and each RippleKV row's two verdicts (against the best
baseline and against the uniform twin, read from paired.csv and fidelity_paired.csv) are compared with
the committed 2,000-resample ones. A verdict that moves sits on the edge of its interval: its
interval end is within the Monte Carlo error of 0.

    .venv/bin/python scripts/results/resample_check.py [--resamples 100000] [--bin build/ripplekv]
        [--scratch /tmp/ripplekv_resample_check] [--out results/resample_check.md]

Prints and writes one line per moved verdict and the count; about 5 minutes on 2 threads for
the table folders of this repository (about 140) at 100,000 resamples.
"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys


def verdict_cells(path):
    """{(table title, method, budget): (verdict vs best, verdict vs uniform, best baseline, uniform
    baseline, [ci_lo, ci_hi, uniform_ci_lo, uniform_ci_hi] as the Markdown table prints them)}
    from a paired CSV (`paired.csv`, `fidelity_paired.csv`)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    first = head.index("Verdict")
    second = head.index("Verdict", first + 1)
    decimals = 4 if "kl_difference" in head else 2  # as the tables round them
    ends = [head.index(k) for k in ("ci_lo", "ci_hi", "uniform_ci_lo", "uniform_ci_hi")]
    out = {}
    for r in rows[1:]:
        c = dict(zip(head, r))
        out[(c["table"], c["Method"], c["Budget"])] = (
            r[first], r[second], c["Best baseline"], c["Uniform, same selector"],
            [f"{float(r[i]):.{decimals}f}" if r[i] else "-" for i in ends])
    return out


def table_command(binary, cfg, out_dir, resamples):
    cmd = [binary, "table"]
    if cfg.get("pool"):
        cmd.append("--pool")
    if cfg.get("pool_across_tasks"):
        cmd.append("--pool-across-tasks")
    if cfg.get("published"):
        cmd += ["--published", cfg["published"]]
    if cfg.get("published_model"):
        cmd += ["--published-model", cfg["published_model"]]
    return cmd + ["--resamples", str(resamples), "--runs", *cfg["runs"], "--out", out_dir]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--resamples", type=int, default=100000)
    ap.add_argument("--bin", default="build/ripplekv")
    ap.add_argument("--scratch", default="/tmp/ripplekv_resample_check")
    ap.add_argument("--out", default="", help="also write the report here (Markdown)")
    args = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    if not os.access(args.bin, os.X_OK):
        sys.exit(f"resample_check.py: {args.bin} is not an executable; build it (scripts/setup.sh) or pass --bin")
    lines, total, moved, folders = [], 0, 0, 0
    for cfg_path in sorted(glob.glob("results/**/table_config.json", recursive=True)):
        folder = os.path.dirname(cfg_path)
        committed = [k for k in ("paired.csv", "fidelity_paired.csv") if os.path.exists(os.path.join(folder, k))]
        if not committed:
            continue
        with open(cfg_path) as f:
            cfg = json.load(f)
        if cfg.get("resamples", 2000) != 2000:
            continue  # a folder made with another count (e.g. this script's own --out tables_r*)
        scratch = os.path.join(args.scratch, folder.replace("/", "_"))
        r = subprocess.run(table_command(args.bin, cfg, scratch, args.resamples), capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"resample_check.py: tabling {folder} again failed:\n{r.stderr[-2000:]}")
        folders += 1
        for name in committed:
            before = verdict_cells(os.path.join(folder, name))
            after = verdict_cells(os.path.join(scratch, name))
            for key, b in before.items():
                a = after.get(key)
                if a is None:
                    sys.exit(f"resample_check.py: {folder}/{name}: row {key[1]} at {key[2]} is missing when tabled again")
                for i, against in ((0, b[2]), (1, b[3])):
                    total += 1
                    if a[i] != b[i]:
                        moved += 1
                        lo, hi = (0, 1) if i == 0 else (2, 3)
                        lines.append(f"- `{folder}/{name}`: {key[1]} at {key[2]} vs {against}: {b[i]} -> {a[i]} "
                                     f"(interval [{b[4][lo]}, {b[4][hi]}] -> [{a[4][lo]}, {a[4][hi]}])")
    report = [f"# Verdicts that depend on the bootstrap draw ({args.resamples} resamples against 2000)", "",
              f"{moved} of {total} verdicts move ({folders} table folders; two verdicts per RippleKV row: against the "
              "best baseline and against the uniform twin, which are often the same baseline).", "", *lines]
    text = "\n".join(report) + "\n"
    print(text, end="")
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
