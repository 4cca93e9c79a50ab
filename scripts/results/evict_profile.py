#!/usr/bin/env python3
"""An eviction profile: each layer's sensitivity measured by compressing that layer alone.

RippleKV's profile perturbs one layer's values with noise and measures the KL it causes. On
Qwen2.5-Coder the layers that ranks first (layer 0, layers 24-26) are not the ones CAKE's
attention statistics give most tokens (layers 8, 14, 16, 19), and CAKE wins. This measures the
operation itself instead: for each layer l, SnapKV keeps only b of the prompt's T tokens in
layer l and every token in the others; the KL of the continuation to the full cache, over the
calibration texts, is layer l's score. Exploratory: it is not RippleKV's method, it is a check
of what RippleKV measures.

Two steps (scripts/results/evict_profile.sh runs both around `ripplekv fidelity`):

  evict_profile.py allocations --layers L --prompt-tokens T --target B_LAYER --dir DIR
      writes DIR/layerNN.txt, the `profile` allocator's multipliers (T in every layer, b in
      layer NN), and prints "b BUDGET": the per-layer budget BUDGET = ((L - 1) T + b) / L
      makes the allocator's total (L x BUDGET) exactly (L - 1) T + b, so layer NN keeps exactly
      b tokens and the others all T. b is the value nearest B_LAYER for which BUDGET is whole.

  evict_profile.py profile --fidelity DIR --like PROFILE --layer-budget B --out JSON
      reads DIR/fidelity_texts.csv (one row per variant and text), and writes a profile in
      ripplekv's format whose layer l holds the statistics of layer l's per-text KLs: mean,
      stderr (over texts), p50, p90, max (over texts, not positions) and same_top_rate (the
      mean top-1 agreement). Model identity and calibration come from PROFILE (a profile of the
      same checkpoint, e.g. the noise profile), the settings say what was measured
      (noise_mode "evict-snapkv-b<b>", eps 0). The `ripple` allocator then takes it as any
      profile (profile=JSON). Prints both profiles' layer orders and their Spearman correlation.

  evict_profile.py compare --reference RUNS/cake_b1024 [--tasks T,...] PROFILE...
      how each profile's layer order (its mean KL) agrees with the mean tokens per layer a
      reference variant kept (its kept-token logs, as allocation_agreement.py --layers reads
      them): the Spearman correlation, and the layers each ranks in its top 5.
"""
import argparse
import csv
import json
import math
import os
import re
import statistics
import sys

import numpy as np
from scipy.stats import spearmanr


def allocations(args):
    L, T = args.layers, args.prompt_tokens
    if L < 2 or T < 1 or not 0 < args.target < T:
        sys.exit(f"evict_profile.py: need --layers >= 2 and 0 < --target < --prompt-tokens (got {L}, {args.target}, {T})")
    if args.target < args.min_kept + L:
        sys.exit(f"evict_profile.py: --target {args.target} is too close to --min-kept {args.min_kept} (the selector's "
                 "window and sinks, which every layer keeps): the allocator would raise that layer and cut the others")
    rest = (L - 1) * T
    # b with (rest + b) divisible by L, nearest the target (ties: the smaller)
    candidates = [x for x in range(max(1, args.target - L), min(T - 1, args.target + L) + 1) if (rest + x) % L == 0]
    if not candidates:
        sys.exit(f"evict_profile.py: no layer budget near {args.target} makes the total whole (L={L}, T={T})")
    b = min(candidates, key=lambda x: (abs(x - args.target), x))  # >= min_kept: target - L is, by the check above
    os.makedirs(args.dir, exist_ok=True)
    for layer in range(L):
        with open(os.path.join(args.dir, f"layer{layer:02d}.txt"), "w", encoding="utf-8") as f:
            f.write("".join(f"{b if i == layer else T}\n" for i in range(L)))
    print(b, (rest + b) // L)


def read_kls(path):
    """{layer: ([kl per text], [top-1 agreement per text])} from fidelity_texts.csv."""
    per = {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            m = re.search(r"layer(\d+)\.txt", row["method"])
            if not m:
                continue  # another method in the same run (e.g. full)
            kl, agree = per.setdefault(int(m.group(1)), ([], []))
            kl.append(float(row["kl_mean"]))
            agree.append(float(row["top1_agreement"]))
    return per


def profile(args):
    path = os.path.join(args.fidelity, "fidelity_texts.csv")
    if not os.path.isfile(path):
        sys.exit(f"evict_profile.py: {path} is missing (run `ripplekv fidelity` with the layerNN.txt methods first)")
    per = read_kls(path)
    with open(args.like, encoding="utf-8") as f:
        like = json.load(f)
    L = len(like["layers"])
    if sorted(per) != list(range(L)):
        sys.exit(f"evict_profile.py: {path} holds layers {sorted(per)}, {args.like} has {L}: "
                 "one variant per layer (layerNN.txt) is needed")
    counts = {len(kl) for kl, _ in per.values()}
    if len(counts) != 1:
        sys.exit(f"evict_profile.py: {path}: the layers have different text counts {sorted(counts)}")
    with open(os.path.join(args.fidelity, "config.json"), encoding="utf-8") as f:
        opts = json.load(f)["options"]
    b = args.layer_budget
    layers = []
    for layer in range(L):
        kl, agree = per[layer]
        n = len(kl)
        layers.append({"layer": layer, "mean": statistics.fmean(kl),
                       "stderr": statistics.stdev(kl) / math.sqrt(n) if n > 1 else 0.0,
                       "p50": float(np.percentile(kl, 50)), "p90": float(np.percentile(kl, 90)), "max": max(kl),
                       "same_top_rate": statistics.fmean(agree), "per_text": list(kl)})
    out = dict(like)
    out["layers"] = layers
    out["calibration"] = dict(like["calibration"], path=opts["texts"], samples=n, skip=int(opts["skip-texts"]),
                              max_tokens=int(opts["prompt-tokens"]))
    out["settings"] = dict(like.get("settings", {}), eps=0.0, noise_mode=f"evict-snapkv-b{b}", positions="all",
                           kl_positions=int(opts["continuation"]), draws=1, seed=0, kl_direction="forward")
    out["model"] = dict(like["model"], dtype=opts["dtype"])
    out["seconds"] = 0.0  # the fidelity run's time is in its own folder, not measured here
    out["source"] = (f"scripts/results/evict_profile.py from {args.fidelity}: layer l's KL with only layer l "
                     f"compressed by SnapKV to {b} of {opts['prompt-tokens']} prompt tokens, on the first {n} texts "
                     f"after skip of at least {int(opts['prompt-tokens']) + int(opts['continuation'])} tokens "
                     "(ripplekv fidelity passes over shorter ones)")
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    evict = [l["mean"] for l in layers]
    noise = [l["mean"] for l in like["layers"]]
    order = lambda v: " ".join(str(i) for i in sorted(range(L), key=lambda i: -v[i]))
    print(f"wrote {args.out} ({n} texts)")
    print(f"eviction order (most sensitive first): {order(evict)}")
    print(f"noise order ({os.path.basename(args.like)}): {order(noise)}")
    print(f"Spearman(eviction, noise) = {spearmanr(evict, noise).statistic:.2f}")


def compare(args):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from allocation_agreement import allocations as kept_allocations, layer_means
    tasks = set(args.tasks.split(",")) if args.tasks else None
    ref = layer_means(kept_allocations(args.reference, tasks))
    top = lambda v: " ".join(str(i) for i in sorted(range(len(v)), key=lambda i: -v[i])[:5])
    name = os.path.basename(args.reference.rstrip("/"))
    print(f"| profile | Spearman with {name}'s mean tokens per layer | its top 5 layers |")
    print("|---|---|---|")
    print(f"| ({name} itself) | 1.00 | {top(ref)} |")
    for path in args.profiles:
        with open(path, encoding="utf-8") as f:
            scores = [l["mean"] for l in json.load(f)["layers"]]
        if len(scores) != len(ref):
            sys.exit(f"evict_profile.py: {path} has {len(scores)} layers, {args.reference} {len(ref)}")
        print(f"| {os.path.basename(path)} | {spearmanr(scores, ref).statistic:.2f} | {top(scores)} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("allocations", help="write the per-layer multiplier files; print b and the budget")
    a.add_argument("--layers", type=int, required=True)
    a.add_argument("--prompt-tokens", type=int, required=True)
    a.add_argument("--target", type=int, required=True, help="tokens the compressed layer should keep")
    a.add_argument("--dir", required=True)
    a.add_argument("--min-kept", type=int, default=32, help="tokens every layer keeps (SnapKV's window, 32)")
    p = sub.add_parser("profile", help="turn the fidelity run into a profile JSON")
    p.add_argument("--fidelity", required=True, help="the `ripplekv fidelity` output folder")
    p.add_argument("--like", required=True, help="a profile of the same checkpoint (identity, calibration)")
    p.add_argument("--layer-budget", type=int, required=True, help="b, as `allocations` printed it")
    p.add_argument("--out", required=True)
    c = sub.add_parser("compare", help="profiles' layer orders against a variant's kept tokens per layer")
    c.add_argument("--reference", required=True, help="a compressed variant folder with kept-token logs")
    c.add_argument("--tasks", help="comma-separated tasks whose samples alone count (default: all)")
    c.add_argument("profiles", nargs="+")
    args = ap.parse_args()
    {"allocations": allocations, "profile": profile, "compare": compare}[args.cmd](args)


if __name__ == "__main__":
    main()
