#!/usr/bin/env python3
"""How much batched variant decoding changes results on a real model (issue 11).

The engine decodes a sample's variants as one batch by default (`--decode batched`); a batched
bfloat16 matrix product rounds differently from a one-row product, so a greedy prediction can
take another token after a near-tie. `--decode sequential` writes byte for byte what
single-method runs write. This script compares two LongBench run trees of the same grid, one
made each way, prediction by prediction (matched by `_id`), and per variant the mean of the
per-sample scores (`sample_scores.json`) over the samples both hold.

    ripplekv longbench ... --methods GRID --out A              # batched (the default)
    ripplekv longbench ... --methods GRID --decode sequential --out B
    python3 scripts/results/decode_agreement.py A B > agreement.md

Only variants and tasks present in both trees are compared; the table names them.
"""
import json
import os
import sys


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
        sys.exit(f"decode_agreement.py: {path}: missing; score the run first (ripplekv longbench writes it)")
    with open(path, encoding="utf-8") as f:
        columns = json.load(f)["columns"]
    return {task: dict(zip(c["ids"], c["scores"])) for task, c in columns.items()}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: decode_agreement.py BATCHED_RUNS SEQUENTIAL_RUNS")
    a_root, b_root = sys.argv[1], sys.argv[2]
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
        n = n_same = 0
        a_sum = b_sum = 0.0
        n_scored = 0
        for name in sorted(os.listdir(b_dir)):
            task = name[:-len(".jsonl")] if name.endswith(".jsonl") else None
            if task is None or not os.path.isfile(os.path.join(a_dir, name)):
                continue
            a_pred, b_pred = predictions(os.path.join(a_dir, name)), predictions(os.path.join(b_dir, name))
            common = sorted(set(a_pred) & set(b_pred))
            if not common:
                continue
            tasks_seen.add(task)
            n += len(common)
            n_same += sum(a_pred[i] == b_pred[i] for i in common)
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
        rows.append((v, n, n_same, mean(a_sum), mean(b_sum)))
    if total == 0:
        sys.exit("decode_agreement.py: the two trees share no predictions")
    print(f"Batched `{a_root}` against sequential `{b_root}`; tasks: {', '.join(sorted(tasks_seen))}.\n")
    print(f"**{same} of {total} predictions identical ({100.0 * same / total:.1f}%)**, "
          f"{len(rows)} variants.\n")
    print("| variant | samples | identical | mean score batched | sequential | difference |")
    print("|---|---|---|---|---|---|")
    for v, n, n_same, a, b in rows:
        print(f"| {v} | {n} | {n_same} | {a:.2f} | {b:.2f} | {a - b:+.2f} |")
    diffs = [a - b for _, _, _, a, b in rows]
    print(f"\nMean score difference over variants: {sum(diffs) / len(diffs):+.3f}; "
          f"largest: {max(diffs, key=abs):+.2f}.")


if __name__ == "__main__":
    main()
