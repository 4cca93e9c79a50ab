#!/usr/bin/env python3
"""The comparisons of scripts/device/check.sh, one verdict line each ("PASS ..." or "FAIL ..."),
exit status 1 on a failure. Standard library only (it runs on the GPU machine's python3).

    compare.py greedy GENERATE_OUTPUT REFERENCE_JSON    # `generate --show-ids` ids vs the reference
    compare.py fidelity CPU_CSV DEVICE_CSV [--rel 0.02 --abs 1e-4]   # KL means and kept fractions
    compare.py profiles CPU_PROFILE_DIR DEVICE_PROFILE_DIR [--rel 0.02]  # on-the-fly profiles
"""
import argparse
import csv
import glob
import json
import re
import sys


def greedy(args):
    ids = None
    with open(args.output) as f:
        for line in f:
            if line.startswith("ids:"):
                ids = [int(x) for x in line.split()[1:]]
    if ids is None:
        return f"FAIL greedy: no 'ids:' line in {args.output} (run generate with --show-ids)"
    ref = json.load(open(args.reference))["generated_token_ids"]
    same = sum(1 for a, b in zip(ids, ref) if a == b)
    first = next((i for i, (a, b) in enumerate(zip(ids, ref)) if a != b), None)
    ok = ids == ref
    return (f"{'PASS' if ok else 'FAIL'} greedy: {len(ids)} ids, {same} of {len(ref)} equal to the reference"
            + ("" if first is None else f", first difference at {first}"))


def read_csv(path):
    """Rows by (method, budget), the method without its profile_cache folder (one per side)."""
    with open(path, newline="") as f:
        return {(re.sub(r",?profile_cache=[^,]*", "", r["method"]), r["budget"]): r for r in csv.DictReader(f)}


def fidelity(args):
    a, b = read_csv(args.cpu), read_csv(args.device)
    if sorted(a) != sorted(b):
        return f"FAIL fidelity: the two CSVs hold different rows ({sorted(set(a) ^ set(b))})"
    worst, bad = (0.0, None), []
    for key in sorted(a):
        x, y = float(a[key]["kl_mean"]), float(b[key]["kl_mean"])
        err = abs(x - y)
        if err > args.abs + args.rel * abs(x):
            bad.append(f"{key[0]}@{key[1]} {x:.6g} vs {y:.6g}")
        if err > worst[0]:
            worst = (err, key)
        if a[key]["kv_fraction"] != b[key]["kv_fraction"]:
            bad.append(f"{key[0]}@{key[1]} kept {a[key]['kv_fraction']} vs {b[key]['kv_fraction']}")
    where = f" ({worst[1][0]} at {worst[1][1]})" if worst[1] else ""
    return (f"{'FAIL' if bad else 'PASS'} fidelity: {len(a)} rows, largest KL-mean difference {worst[0]:.3g}{where}"
            + (f"; outside {args.abs:g} + {args.rel:g} x KL: " + "; ".join(bad) if bad else ""))


def profile(folder):
    files = sorted(glob.glob(f"{folder}/*.json"))
    if len(files) != 1:
        sys.exit(f"compare.py: {folder}: expected one cached profile JSON, found {len(files)}")
    return json.load(open(files[0]))


def profiles(args):
    a, b = profile(args.cpu), profile(args.device)
    ma, mb = [l["mean"] for l in a["layers"]], [l["mean"] for l in b["layers"]]
    if len(ma) != len(mb):
        return f"FAIL profiles: {len(ma)} vs {len(mb)} layers"
    rel = max(abs(x - y) / max(abs(x), 1e-12) for x, y in zip(ma, mb))
    rank = lambda v: sorted(range(len(v)), key=lambda i: v[i])
    info = f"profiled on {a['model']['device']} / {b['model']['device']} in {a['model']['dtype']} / {b['model']['dtype']}"
    ok = rel <= args.rel and rank(ma) == rank(mb) and b["model"]["dtype"] == "float32"
    return (f"{'PASS' if ok else 'FAIL'} profiles: {info}; largest per-layer relative difference of the mean KL "
            f"{rel:.3g}, layer order {'equal' if rank(ma) == rank(mb) else 'different'}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    g = sub.add_parser("greedy")
    g.add_argument("output")
    g.add_argument("reference")
    f = sub.add_parser("fidelity")
    f.add_argument("cpu")
    f.add_argument("device")
    f.add_argument("--rel", type=float, default=0.02)
    f.add_argument("--abs", type=float, default=1e-4)
    p = sub.add_parser("profiles")
    p.add_argument("cpu")
    p.add_argument("device")
    p.add_argument("--rel", type=float, default=0.02)
    args = ap.parse_args()
    line = {"greedy": greedy, "fidelity": fidelity, "profiles": profiles}[args.what](args)
    print(line)
    sys.exit(0 if line.startswith("PASS") else 1)


if __name__ == "__main__":
    main()
