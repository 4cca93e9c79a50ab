#!/usr/bin/env python3
"""How much the arithmetic changes results on a real model: two run trees of the same grid on the
same samples, made two ways, compared prediction by prediction (matched by `_id`) and per variant
by the mean of the per-sample scores (`sample_scores.json`) over the samples both hold.

Issue 11: the engine decodes a sample's variants as one batch by default (`--decode batched`);
a batched bfloat16 matrix product rounds differently from a one-row product, so a greedy
prediction can take another token after a near-tie. `--decode sequential` writes byte for byte
what single-method runs write:

    ripplekv longbench ... --methods GRID --out A              # batched (the default)
    ripplekv longbench ... --methods GRID --decode sequential --out B
    python3 scripts/results/decode_agreement.py A B > agreement.md

The same for a RULER grid run on the CPU and on a GPU (`<variant>/<length>/<task>.jsonl`):

    python3 scripts/results/decode_agreement.py --labels cuda cpu GPU_RUNS CPU_RUNS

Only variants and tasks present in both trees are compared; the table names them. Where both
trees hold kept-token logs of a compressed sample (read as allocation_agreement.py reads them),
how many tokens each layer kept is compared too, sample by sample (the "kept tokens identical"
column): CAKE's per-layer budgets follow its attention statistics, so they show a change of
arithmetic even where the greedy answer stays the same; where they differ, the mean absolute
difference of a layer's kept count says by how much. A static allocation (RippleKV's profile)
keeps the same counts for every prompt, so its always agree; FullKV compresses nothing ("-").
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from allocation_agreement import allocations  # noqa: E402  (the kept-token logs' reader)


def predictions(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line; the engine redoes it on resume
            if "_id" not in record or "pred" not in record:
                sys.exit(f"decode_agreement.py: {path}:{n}: a prediction line needs \"_id\" and \"pred\"")
            out[record["_id"]] = record["pred"]
    return out


def sample_scores(folder):
    path = os.path.join(folder, "sample_scores.json")
    if not os.path.isfile(path):
        sys.exit(f"decode_agreement.py: {path}: missing; score the run first (ripplekv longbench and ruler write it)")
    with open(path, encoding="utf-8") as f:
        columns = json.load(f)["columns"]
    return {task: dict(zip(c["ids"], c["scores"])) for task, c in columns.items()}


def prediction_files(folder):
    """(task key, path) of a variant folder's predictions: LongBench's <task>.jsonl, RULER's
    <length>/<task>.jsonl (keyed <task>@<length>, as in sample_scores.json)."""
    out = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.endswith(".jsonl") and os.path.isfile(path):
            out.append((name[:-len(".jsonl")], path))
        elif name.isdigit() and os.path.isdir(path):
            out += [(f"{t[:-len('.jsonl')]}@{name}", os.path.join(path, t))
                    for t in sorted(os.listdir(path)) if t.endswith(".jsonl")]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--labels", nargs=2, default=["batched", "sequential"], metavar=("A", "B"),
                    help="what the two trees are (default: batched sequential)")
    ap.add_argument("a_root", metavar="A_RUNS")
    ap.add_argument("b_root", metavar="B_RUNS")
    args = ap.parse_args()
    a_root, b_root = args.a_root, args.b_root
    a_label, b_label = args.labels
    variants = sorted(v for v in os.listdir(a_root)
                      if os.path.isfile(os.path.join(a_root, v, "config.json"))
                      and os.path.isfile(os.path.join(b_root, v, "config.json")))
    if not variants:
        sys.exit(f"decode_agreement.py: no variant folder is in both {a_root} and {b_root}")
    rows, tasks_seen = [], set()
    total = same = 0
    for v in variants:
        a_dir, b_dir = os.path.join(a_root, v), os.path.join(b_root, v)
        a_scores, b_scores = sample_scores(a_dir), sample_scores(b_dir)
        a_files = dict(prediction_files(a_dir))
        a_alloc, b_alloc = allocations(a_dir, required=False), allocations(b_dir, required=False)
        n = n_same = n_kept = n_kept_same = kept_gap = kept_layers = 0
        a_sum = b_sum = 0.0
        n_scored = 0
        for task, b_path in prediction_files(b_dir):
            if task not in a_files:
                continue
            a_pred, b_pred = predictions(a_files[task]), predictions(b_path)
            common = sorted(set(a_pred) & set(b_pred))
            if not common:
                continue
            tasks_seen.add(task)
            n += len(common)
            n_same += sum(a_pred[i] == b_pred[i] for i in common)
            stem = "/".join(reversed(task.split("@")))  # x@4096 -> 4096/x, as allocations() keys it
            both = [(stem, i) for i in common if (stem, i) in a_alloc and (stem, i) in b_alloc]
            n_kept += len(both)
            for k in both:
                n_kept_same += a_alloc[k] == b_alloc[k]
                if len(a_alloc[k]) == len(b_alloc[k]):  # how far apart, layer by layer
                    kept_gap += sum(abs(x - y) for x, y in zip(a_alloc[k], b_alloc[k]))
                    kept_layers += len(a_alloc[k])
            for i in common:
                if i in a_scores.get(task, {}) and i in b_scores.get(task, {}):
                    a_sum += a_scores[task][i]
                    b_sum += b_scores[task][i]
                    n_scored += 1
        if n == 0:
            continue
        total += n
        same += n_same
        mean = (lambda s: s / n_scored) if n_scored else (lambda s: float("nan"))
        kept = f"{n_kept_same} of {n_kept}" if n_kept else "-"
        if n_kept_same < n_kept and kept_layers:
            kept += f" ({kept_gap / kept_layers:.2f} tokens a layer apart)"
        rows.append((v, n, n_same, mean(a_sum), mean(b_sum), kept))
    if total == 0:
        sys.exit("decode_agreement.py: the two trees share no predictions")
    print(f"`{a_root}` ({a_label}) against `{b_root}` ({b_label}); tasks: {', '.join(sorted(tasks_seen))}.\n")
    print(f"**{same} of {total} predictions identical ({100.0 * same / total:.1f}%)**, "
          f"{len(rows)} variants.\n")
    print(f"| variant | samples | identical | kept tokens identical | mean score {a_label} | {b_label} | difference |")
    print("|---|---|---|---|---|---|---|")
    for v, n, n_same, a, b, kept in rows:
        print(f"| {v} | {n} | {n_same} | {kept} | {a:.2f} | {b:.2f} | {a - b:+.2f} |")
    diffs = [a - b for _, _, _, a, b, _ in rows]
    print(f"\nMean score difference over variants: {sum(diffs) / len(diffs):+.3f}; "
          f"largest: {max(diffs, key=abs):+.2f}.")


if __name__ == "__main__":
    main()
