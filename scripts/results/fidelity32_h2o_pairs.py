#!/usr/bin/env python3
"""Analysis 2 of scripts/results/fidelity32_h2o.sh: H2O's selector with RippleKV's budgets against
the 32-text folders beside it (and of smollm2_streaming.sh, StreamingLLM's, with --selector).

    .venv/bin/python scripts/results/fidelity32_h2o_pairs.py [--resamples 2000] \
        [--selector h2o --run fidelity32_h2o] [MODEL_DIR ...]

MODEL_DIR (default: the two models' folders under results/) holds the run folder (--run, default
fidelity32_h2o/, the run of fidelity32_h2o.sh) of the selector's uniform twin (--selector, default
h2o) and of SELECTOR:ripple settings. For each budget of that run it takes the 32-text folder
beside it that ran all six baselines at that budget (fidelity32_all/, else fidelity32_budgets/,
both from fidelity32.sh), then
  1. checks that the two folders' uniform-twin runs are the same bits: the per-position KL of
     every text in variants/<selector>_b<budget>/fidelity.jsonl (doubles as JSON keeps them);
     where either folder lacks that file (its variants/ was not kept), each text's row of
     fidelity_texts.csv (its mean KL and top-1 agreement as printed, 9 significant digits), a
     weaker check, named as such in the output. The pairs below are exact only where the check
     holds; a budget whose twin differs gets no pairs;
  2. pairs each SELECTOR:ripple setting with that folder's best baseline at the budget (the lowest
     mean KL of the six) and with RippleKV of the same setting with SnapKV's selector where that
     folder ran it (the selector's effect), by fidelity_pair.py (SciPy's bootstrap). Where the
     best baseline is the twin the first pair is analysis 1 again, which `ripplekv table` reports.
Exit status: 0 when every budget was checked and paired; 3 when a check failed or a budget
had no folder to pair with (each named in the output); 1 on bad input.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BESIDE = ("fidelity32_all", "fidelity32_budgets")
BASELINES = ("snapkv", "pyramidkv", "streamingllm", "h2o", "cake", "squeeze")
CHECK_FAILED = 3
LABELS = {"h2o": "H2O", "streamingllm": "StreamingLLM"}  # the twin's name in the output


def read_csv(folder, name):
    path = os.path.join(folder, name)
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        for r in rows:
            r["budget"] = int(r["budget"])
        return rows
    except OSError as e:
        sys.exit(f"{path}: cannot read it ({e}); give a model folder holding the --run folder (fidelity32_h2o/ "
                 "of scripts/results/fidelity32_h2o.sh by default) and the runs of fidelity32.sh")
    except (KeyError, ValueError) as e:
        sys.exit(f"{path}: not a ripplekv fidelity CSV ({e})")


def twin_kl(folder, selector, budget):
    """{text id: the per-position KL list} of the folder's uniform-twin run at the budget."""
    path = os.path.join(folder, "variants", f"{selector}_b{budget}", "fidelity.jsonl")
    try:
        with open(path) as f:
            return {rec["_id"]: rec["kl"] for rec in map(json.loads, filter(str.strip, f))}
    except OSError as e:
        sys.exit(f"{path}: cannot read it ({e}); the bit check needs the run's variants/ folder")
    except (KeyError, ValueError) as e:
        sys.exit(f"{path}: not a ripplekv fidelity.jsonl ({e})")


def text_rows(folder, method, budget):
    """{text id: (mean KL, top-1 agreement) as printed} of a method's rows in fidelity_texts.csv."""
    path = os.path.join(folder, "fidelity_texts.csv")
    try:
        with open(path, newline="") as f:
            return {r["text"]: (r["kl_mean"], r["top1_agreement"]) for r in csv.DictReader(f)
                    if r["method"] == method and int(r["budget"]) == budget}
    except OSError as e:
        sys.exit(f"{path}: cannot read it ({e}); the check needs the run's per-text table")
    except (KeyError, ValueError) as e:
        sys.exit(f"{path}: not a ripplekv fidelity_texts.csv ({e})")


def twin_rows(new, ref, selector, budget):
    """The two folders' uniform-twin runs at the budget, and how they are compared: per position
    where both hold variants/<selector>_b<budget>/fidelity.jsonl, else per text as printed."""
    jsonl = os.path.join("variants", f"{selector}_b{budget}", "fidelity.jsonl")
    if all(os.path.exists(os.path.join(d, jsonl)) for d in (new, ref)):
        return twin_kl(new, selector, budget), twin_kl(ref, selector, budget), "bit for bit"
    return text_rows(new, selector, budget), text_rows(ref, selector, budget), "per text as printed"


def pair(a_dir, b_dir, budget, a_method, b_method, resamples):
    cmd = [sys.executable, os.path.join(HERE, "fidelity_pair.py"), a_dir, b_dir, "--budget", str(budget),
           "--a-method", a_method + "$", "--b-method", b_method + "$", "--resamples", str(resamples)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"fidelity_pair.py at budget {budget} ({a_method} in {a_dir} against {b_method} in {b_dir}) "
                 f"failed: {out.stderr.strip()}")
    return out.stdout.splitlines()[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="*", metavar="MODEL_DIR",
                    default=[os.path.join(ROOT, "results", m)
                             for m in ("smollm2-135m-instruct", "qwen2.5-coder-1.5b-instruct")])
    ap.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    ap.add_argument("--selector", default="h2o", help="the uniform twin's selector (default h2o)")
    ap.add_argument("--run", default="fidelity32_h2o", help="the run folder in each MODEL_DIR (default fidelity32_h2o)")
    args = ap.parse_args()
    sel, label = args.selector, LABELS.get(args.selector, args.selector)
    failed = False
    for model in args.models:
        new = os.path.join(model, args.run)
        mine = read_csv(new, "fidelity.csv")
        settings = sorted({r["method"] for r in mine if r["method"].startswith(f"{sel}:ripple@")})
        if not settings or not any(r["method"] == sel for r in mine):
            sys.exit(f"{new}/fidelity.csv: no {sel} and {sel}:ripple rows; give the run folder of that selector's "
                     "uniform twin and ripple settings (--run, --selector)")
        print(f"## {model}")
        for budget in sorted({r["budget"] for r in mine}):
            beside = []
            for name in BESIDE:
                folder = os.path.join(model, name)
                if os.path.exists(os.path.join(folder, "fidelity.csv")):
                    ran = {r["method"] for r in read_csv(folder, "fidelity.csv") if r["budget"] == budget}
                    if ran.issuperset(BASELINES):
                        beside.append(folder)
            if not beside:
                failed = True
                print(f"budget {budget}: no folder of {', '.join(BESIDE)} in {model} ran all six baselines at "
                      "this budget; run scripts/results/fidelity32.sh (its target for this model's budgets)")
                continue
            ref = beside[0]
            here, there, how = twin_rows(new, ref, sel, budget)
            detail = "" if how == "bit for bit" else " (mean KL and top-1 agreement; variants/ absent)"
            if len(here) < 2 or len(there) < 2:
                failed = True
                print(f"budget {budget}: {label} holds {len(here)} texts here and {len(there)} in {ref}: nothing to pair")
                continue
            if here != there:
                failed = True
                differ = sorted(set(here) | set(there), key=lambda t: (len(t), t))
                differ = [t for t in differ if here.get(t) != there.get(t)]
                print(f"budget {budget}: {label} differs from {ref}'s on {', '.join(differ)}: no pairs (compared {how})")
                continue
            means = [r for r in read_csv(ref, "fidelity.csv") if r["budget"] == budget]
            best = min((r for r in means if r["method"] in BASELINES), key=lambda r: float(r["kl_mean"]))["method"]
            twins = {r["method"] for r in means if r["method"].startswith("ripple@")}
            print(f"budget {budget}: {label} equals {ref}'s, {how}{detail}, on all {len(here)} texts; "
                  f"best baseline there: {best}")
            for method in (m for m in settings if any(r["method"] == m and r["budget"] == budget for r in mine)):
                setting = method.split(",", 1)[1] if "," in method else method
                again = " (analysis 1 again: ripplekv table's interval is the one to report)" if best == sel else ""
                print(f"  {setting} - {best}{again}: {pair(new, ref, budget, method, best, args.resamples)}")
                snap = method[len(sel) + 1:]
                if snap in twins:
                    print(f"  {setting} - the same with SnapKV's selector: "
                          f"{pair(new, ref, budget, method, snap, args.resamples)}")
                else:
                    print(f"  {setting} - the same with SnapKV's selector: not run in {ref}")
    sys.exit(CHECK_FAILED if failed else 0)


if __name__ == "__main__":
    main()
