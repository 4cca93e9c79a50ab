#!/usr/bin/env python3
"""Draws RippleKV sensitivity profiles and the budgets they map to, as one PNG.

    .venv/bin/python scripts/plot_profile.py --profile out/profile.json [--profile other.json ...] \
        --allocations out/allocations.json --out out/profile.png

Top panel: per-layer mean KL with standard-error bars (log scale), one line per profile.
Bottom panel: per-layer budgets for each ratio r, from `ripplekv allocate --out` JSON files
(the mapping itself is never re-implemented here)."""
import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", action="append", required=True, help="profile JSON (repeatable)")
    ap.add_argument("--allocations", action="append", default=[], help="`ripplekv allocate --out` JSON (repeatable)")
    ap.add_argument("--out", required=True, help="PNG to write")
    ap.add_argument("--title", default="RippleKV layer sensitivity")
    a = ap.parse_args()

    panels = 2 if a.allocations else 1
    fig, axes = plt.subplots(panels, 1, figsize=(8, 3.2 * panels), squeeze=False)
    ax = axes[0][0]
    for path in a.profile:
        with open(path) as f:
            p = json.load(f)
        if p.get("format") != "ripplekv-sensitivity-profile":
            raise SystemExit(f"{path}: not a ripplekv sensitivity profile")
        layers = [r["layer"] for r in p["layers"]]
        mean = [r["mean"] for r in p["layers"]]
        err = [r["stderr"] for r in p["layers"]]
        s = p["settings"]
        label = (f"{os.path.basename(p['model']['path']) or 'model'}: eps={s['eps']}, {s['noise_mode']}, "
                 f"K={s['kl_positions']}, n={p['calibration']['samples']}")
        ax.errorbar(layers, mean, yerr=err, marker="o", capsize=3, label=label)
    ax.set_yscale("log")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("layer")
    ax.set_ylabel("mean KL(clean || perturbed)")
    ax.set_title(a.title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)

    if a.allocations:
        ax = axes[1][0]
        for path in a.allocations:
            with open(path) as f:
                j = json.load(f)
            for alloc in j["allocations"]:
                b = alloc["budgets"]
                ax.plot(range(len(b)), b, marker="s", label=f"r={alloc['ratio']:g} (budget {j['budget']})")
        ax.set_xlabel("layer")
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_ylabel("tokens kept")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    fig.savefig(a.out, dpi=120)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
