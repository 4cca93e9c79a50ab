#!/usr/bin/env python3
"""Writes tests/fixtures/metrics/metric_parity.jsonl: LongBench metric scores made
with the official Python packages, for tests/eval/longbench/test_metric_parity.cpp.

Needs the official metric packages, which scripts/setup.sh pins in .venv (rouge==1.0.1
six==1.17.0 fuzzywuzzy==0.18.0 python-Levenshtein==0.27.5 Levenshtein==0.27.5
rapidfuzz==3.14.6 numpy==2.4.6; the file in the repo was made with CPython 3.11.7):

    .venv/bin/python scripts/make_metric_fixtures.py \
        --data ../shared/data/longbench --out tests/fixtures/metrics/metric_parity.jsonl

The metric functions below restate LongBench v1's metrics.py / eval.py
(THUDM/LongBench@2e00731f) on top of the same packages eval.py imports, so the
scores are what the official evaluation produces. Pairs are drawn (seeded) from
the reference predictions and mutated: empty and punctuation-only strings,
unicode (Greek final sigma, dotted I, CJK, fullwidth / Arabic-Indic digits,
unusual whitespace), code lines, numbers, and hypotheses long enough to hit the
RecursionError that the rouge package raises (LongBench then scores 0).

Output lines (JSON, one object per line):
  {"kind": "class_sets", "sets": {name: [classes]}}                    (first line)
  {"kind": "pair", "metric": m, "pred": p, "gt": g, "score": s,
   ["classes": name], ["rouge_error": "ValueError" | "RecursionError"]}
  {"kind": "sample", "task": t, "pred": p, "answers": [...], "score": s, ["classes": name]}
  {"kind": "aggregate", "scores": [...], "lengths": [...], "score": s, "buckets": {...}}
"""
import argparse
import inspect
import json
import random
import re
import string
import sys
import warnings
from collections import Counter

import numpy as np
from fuzzywuzzy import fuzz
from rouge import Rouge

try:
    from importlib.metadata import version as _version
except ImportError:  # Python < 3.8
    _version = None


def check_versions():
    """The C++ side follows these exact packages; stop early on others."""
    if _version is None:
        return
    want = {"rouge": "1.0.1", "fuzzywuzzy": "0.18.0"}
    for package, pinned in want.items():
        if _version(package) != pinned:
            sys.exit(f"{package}=={_version(package)} installed; this script needs {package}=={pinned}")
    lev = tuple(int(x) for x in _version("Levenshtein").split(".")[:2])
    if lev < (0, 20):
        sys.exit("Levenshtein < 0.20 computes ratio as (lensum - dist) / lensum; the C++ "
                 "follows the RapidFuzz-based >= 0.20 (1 - dist / lensum). Install "
                 "python-Levenshtein==0.27.5")

# --- LongBench v1 metrics, restated --------------------------------------------

PUNCTUATION = set(string.punctuation)


def normalize_answer(text):
    lowered = text.lower()
    kept = "".join(ch for ch in lowered if ch not in PUNCTUATION)
    no_articles = re.sub(r"\b(a|an|the)\b", " ", kept)
    return " ".join(no_articles.split())


def f1_score(pred_tokens, gt_tokens):
    same = sum((Counter(pred_tokens) & Counter(gt_tokens)).values())
    if same == 0:
        return 0
    precision = 1.0 * same / len(pred_tokens)
    recall = 1.0 * same / len(gt_tokens)
    return (2 * precision * recall) / (precision + recall)


def qa_f1_score(prediction, ground_truth, **kwargs):
    return f1_score(normalize_answer(prediction).split(), normalize_answer(ground_truth).split())


# eval.py calls rouge_score three frames deep (<module>, scorer, rouge_score); the
# package's recursive LCS then has 1000 - 3 - 6 frames. Here we are deeper, so the
# recursion limit is raised by exactly the extra depth while rouge runs.
EVAL_PY_DEPTH_OF_ROUGE_SCORE = 3
LAST_ROUGE_ERROR = [None]


def rouge_score(prediction, ground_truth, **kwargs):
    depth = len(inspect.stack(0))
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000 + depth - EVAL_PY_DEPTH_OF_ROUGE_SCORE)
    LAST_ROUGE_ERROR[0] = None
    try:
        scores = Rouge().get_scores([prediction], [ground_truth], avg=True)
    except Exception as exc:  # LongBench's bare except
        LAST_ROUGE_ERROR[0] = type(exc).__name__
        return 0.0
    finally:
        sys.setrecursionlimit(old_limit)
    return scores["rouge-l"]["f"]


def classification_score(prediction, ground_truth, **kwargs):
    matches = [c for c in kwargs["all_classes"] if c in prediction]
    for term in matches:  # removing while iterating, as the official code does
        if term in ground_truth and term != ground_truth:
            matches.remove(term)
    return 1.0 / len(matches) if ground_truth in matches else 0.0


def _share_equal(prediction, target):
    numbers = re.findall(r"\d+", prediction)
    right = sum(1 for n in numbers if str(n) == str(target))
    return float(0.0 if len(numbers) == 0 else right / len(numbers))


def count_score(prediction, ground_truth, **kwargs):
    return _share_equal(prediction, ground_truth)


def retrieval_score(prediction, ground_truth, **kwargs):
    return _share_equal(prediction, re.findall(r"Paragraph (\d+)", ground_truth)[0])


def retrieval_zh_score(prediction, ground_truth, **kwargs):
    return _share_equal(prediction, re.findall(r"段落(\d+)", ground_truth)[0])


def code_sim_score(prediction, ground_truth, **kwargs):
    line = ""
    for candidate in prediction.lstrip("\n").split("\n"):
        if "`" not in candidate and "#" not in candidate and "//" not in candidate:
            line = candidate
            break
    return fuzz.ratio(line, ground_truth) / 100


METRICS = {
    "qa_f1": qa_f1_score,
    "rouge": rouge_score,
    "classification": classification_score,
    "count": count_score,
    "retrieval": retrieval_score,
    "retrieval_zh": retrieval_zh_score,
    "code_sim": code_sim_score,
}

TASK_METRIC = {
    "narrativeqa": "qa_f1", "qasper": "qa_f1", "multifieldqa_en": "qa_f1",
    "hotpotqa": "qa_f1", "2wikimqa": "qa_f1", "musique": "qa_f1", "triviaqa": "qa_f1",
    "gov_report": "rouge", "qmsum": "rouge", "multi_news": "rouge", "samsum": "rouge",
    "trec": "classification", "lsht": "classification",
    "passage_count": "count", "passage_retrieval_en": "retrieval",
    "passage_retrieval_zh": "retrieval_zh", "lcc": "code_sim", "repobench-p": "code_sim",
}
FIRST_LINE_TASKS = {"trec", "triviaqa", "samsum", "lsht"}


def score_sample(task, prediction, answers, all_classes):
    if task in FIRST_LINE_TASKS:
        prediction = prediction.lstrip("\n").split("\n")[0]
    score = 0.0
    for gt in answers:
        score = max(score, METRICS[TASK_METRIC[task]](prediction, gt, all_classes=all_classes))
    return score


def task_score(scores):
    total = 0.0
    for s in scores:
        total += s
    return round(100 * total / len(scores), 2)


def task_score_e(scores, lengths):
    buckets = {"0-4k": [], "4-8k": [], "8k+": []}
    for s, n in zip(scores, lengths):
        buckets["0-4k" if n < 4000 else "4-8k" if n < 8000 else "8k+"].append(s)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # mean of an empty bucket is nan
        return {k: round(100 * np.mean(v), 2) for k, v in buckets.items()}


# --- pair generation -----------------------------------------------------------

UNICODE_BITS = [
    "\u0391\u03a3", "\u039f\u0394\u03a5\u03a3\u03a3\u0395\u03a5\u03a3", "\u0130stanbul", "caf\u00e9",
    "CAF\u00c9", "na\u00efve", "\u4e2d\u6587", "\u5317\u4eac\u5e02", "\uff11\uff12", "\u0663\u0664",
    "x\u00a0y", "a\u2028b", "\u3000", "\u200b", "\U0001F600", "\u00b2", "\u2168", "Stra\u00dfe",
    "\u0041\u0301", "\u2019", "\u201cquoted\u201d", "\u2014", "\u00a0", "\u0085", "\ufb01",
    "\u1e9e", "\u01c5", "\u0345",
]
PUNCT_ONLY = ["", ".", "...", " . ", "?!", "--", "\u3002", " ", "\n", "\n\n", "'", ". . .", "(a)",
              "The.", "an", "a the an", "A", "THE"]


def words(text):
    return text.split(" ")


def mutate_text(rng, text):
    ops = rng.randint(1, 3)
    for _ in range(ops):
        op = rng.randrange(12)
        w = words(text)
        if op == 0 and len(w) > 1:
            text = " ".join(w[: rng.randint(1, len(w))])
        elif op == 1 and len(w) > 1:
            del w[rng.randrange(len(w))]
            text = " ".join(w)
        elif op == 2:
            rng.shuffle(w)
            text = " ".join(w)
        elif op == 3:
            text = text.upper() if rng.random() < 0.5 else text.title()
        elif op == 4:
            pos = rng.randint(0, len(text))
            text = text[:pos] + rng.choice(UNICODE_BITS) + text[pos:]
        elif op == 5:
            pos = rng.randint(0, len(text))
            text = text[:pos] + rng.choice(string.punctuation) + text[pos:]
        elif op == 6:
            text = "\n" * rng.randint(1, 3) + text
        elif op == 7:
            pos = rng.randint(0, len(text))
            text = text[:pos] + rng.choice(["\n", "\n\n", ". ", ".", "\t", "  "]) + text[pos:]
        elif op == 8:
            text = rng.choice(["the ", "a ", "An ", "THE ", "The answer is "]) + text
        elif op == 9:
            text = text + rng.choice([".", "!", " .", "...", " the", " an.", "\n"])
        elif op == 10:
            text = text.replace(" ", rng.choice(["\u00a0", "\u3000", "\t", "  ", "\u2009"]), 1)
        else:
            text = text[::-1] if rng.random() < 0.1 else text + " " + text[: rng.randint(0, 20)]
    return text


def clip_words(text, limit):
    w = text.split(" ")
    return " ".join(w[:limit])


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="shared/data/longbench")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=20240611)
    args = ap.parse_args()
    check_versions()
    rng = random.Random(args.seed)
    ref = args.data.rstrip("/") + "/reference_predictions/mistral-7b-instruct-v0.2-fullkv/"
    tasks = {t: load_jsonl(ref + t + ".jsonl") for t in TASK_METRIC
             if t not in ("lsht", "passage_retrieval_zh")}

    with open(args.data.rstrip("/") + "/mini/MiniLongBench_lsht.json", encoding="utf-8") as f:
        lsht = json.load(f)
    lsht_rows = [lsht[k] for k in sorted(lsht, key=int)]
    class_sets = {
        "trec": tasks["trec"][0]["all_classes"],
        "lsht": lsht_rows[0]["gold"]["all_classes"],
        # Classes that are substrings of each other, to exercise the list-mutation quirk.
        "nested": ["a", "ab", "abc", "b", "bc", "abcd", "cd", "d", "ab"],
        "words": ["Location", "Other location", "City", "Individual", "Group or organization of person",
                  "Other entity", "Entity", "Date", "Other number", "Number", "Date", "Other"],
    }
    out = [{"kind": "class_sets", "sets": class_sets}]

    def add_pair(metric, pred, gt, classes=None):
        kwargs = {"all_classes": class_sets[classes]} if classes else {}
        score = METRICS[metric](pred, gt, **kwargs)
        row = {"kind": "pair", "metric": metric, "pred": pred, "gt": gt, "score": float(score)}
        if classes:
            row["classes"] = classes
        if metric == "rouge" and LAST_ROUGE_ERROR[0]:
            row["rouge_error"] = LAST_ROUGE_ERROR[0]
        out.append(row)

    # qa_f1: drawn pairs, mutations, crafted edge cases.
    qa_tasks = ["narrativeqa", "qasper", "multifieldqa_en", "hotpotqa", "2wikimqa", "musique",
                "triviaqa"]
    for _ in range(550):
        rec = rng.choice(tasks[rng.choice(qa_tasks)])
        pred = clip_words(rec["pred"], 60)
        gt = rng.choice(rec["answers"])
        r = rng.random()
        if r < 0.35:
            pred = mutate_text(rng, pred)
        elif r < 0.6:
            pred = mutate_text(rng, gt)
        elif r < 0.7:
            gt = mutate_text(rng, gt)
        add_pair("qa_f1", pred, gt)
    for a in PUNCT_ONLY + UNICODE_BITS:
        for b in ["", "the", "answer", "\u03b1\u03c2", "istanbul", "i\u0307stanbul", "caf\u00e9", "12"]:
            add_pair("qa_f1", a, b)
            add_pair("qa_f1", b + " " + a, a + b)

    # rouge: drawn pairs clipped to keep the file small, a few full-length ones,
    # edge cases, and hypotheses past the recursion limit.
    rouge_tasks = ["gov_report", "qmsum", "multi_news", "samsum"]
    for i in range(480):
        rec = rng.choice(tasks[rng.choice(rouge_tasks)])
        limit = 400 if i < 8 else rng.choice([5, 15, 30, 60])
        pred = clip_words(rec["pred"], limit)
        gt = clip_words(rng.choice(rec["answers"]), limit)
        r = rng.random()
        if r < 0.4:
            pred = mutate_text(rng, pred)
        elif r < 0.6:
            pred = mutate_text(rng, gt)
        add_pair("rouge", pred, gt)
    for a in PUNCT_ONLY + UNICODE_BITS[:10]:
        for b in ["", ".", "a b. c", "word", " ", "x . . y", "The cat sat. The cat ran."]:
            add_pair("rouge", a, b)
            add_pair("rouge", b, a)
    vocab = [f"w{i}" for i in range(40)]
    for n in [985, 989, 990, 991, 992, 1100]:
        add_pair("rouge", " ".join(rng.choice(vocab) for _ in range(n)), "zz")
        add_pair("rouge", " ".join(f"u{i}" for i in range(n)), "u0 v1. u3")
    add_pair("rouge", " ".join(f"u{i}" for i in range(600)), " ".join(f"v{i}" for i in range(600)))
    add_pair("rouge", " ".join(f"u{i}" for i in range(600)) + ". x",
             " ".join(f"v{i}" for i in range(400)))

    # code_sim
    for _ in range(500):
        rec = rng.choice(tasks[rng.choice(["lcc", "repobench-p"])])
        pred = "\n".join(rec["pred"].split("\n")[:4])
        gt = rec["answers"][0]
        r = rng.random()
        if r < 0.3:
            pred = mutate_text(rng, pred)
        elif r < 0.5:
            pred = mutate_text(rng, gt)
        elif r < 0.6:
            pred = rng.choice(["# comment\n", "```python\n", "// c\n", "\n\n"]) + pred
        add_pair("code_sim", pred, gt)
    for a in ["", "\n", "#", "`x`\n// y\n# z", "x = 1", "x = 1\n", "\n\nx = 1", "y\u00e9 = 2",
              "\u4e2d = 3", "\tif a:\n", "print('\U0001F600')"]:
        for b in ["x = 1", "", "\u4e2d = 3", "y\u00e9 = 2", "    return x", "print('\U0001F600')"]:
            add_pair("code_sim", a, b)

    # classification
    trec = tasks["trec"]
    for _ in range(250):
        rec = rng.choice(trec)
        pred = rec["pred"].lstrip("\n").split("\n")[0] if rng.random() < 0.7 else rec["pred"][:200]
        if rng.random() < 0.3:
            pred = mutate_text(rng, pred)
        add_pair("classification", pred, rec["answers"][0], "trec")
    for row in lsht_rows:
        add_pair("classification", row["prediction"][:200], row["gold"]["answers"][0], "lsht")
        add_pair("classification", row["gold"]["answers"][0], row["gold"]["answers"][0], "lsht")
    nested = class_sets["nested"]
    for _ in range(150):
        pred = "".join(rng.choice("abcdx ") for _ in range(rng.randint(0, 8)))
        add_pair("classification", pred, rng.choice(nested), "nested")
    for pred in ["Other location", "Location", "Other entity", "Date Other number", "City Location",
                 "Group or organization of person", "Other", ""]:
        for gt in ["Other location", "Location", "Other", "Other entity", "Date", "Number"]:
            add_pair("classification", pred, gt, "words")

    # count / retrieval
    for rec in tasks["passage_count"]:
        add_pair("count", rec["pred"][:120], rec["answers"][0])
    for _ in range(60):
        gt = str(rng.randint(1, 60))
        pred = rng.choice(["", "There are ", "The answer is ", "\uff11", "\u0663"]) + \
            " ".join(rng.choice([gt, str(rng.randint(0, 99)), "\u0664\u0665", "\uff15", "x"])
                     for _ in range(rng.randint(0, 4)))
        add_pair("count", pred, gt)
    for rec in tasks["passage_retrieval_en"]:
        add_pair("retrieval", rec["pred"][:120], rec["answers"][0])
    for _ in range(40):
        k = rng.randint(1, 30)
        gt = f"Paragraph {k}"
        pred = rng.choice(["Paragraph ", "", "Paragraphs ", "\u6bb5\u843d"]) + \
            rng.choice([str(k), str(k + 1), f"{k}, {k}", f"{k} and Paragraph {k}", "\u0663"])
        add_pair("retrieval", pred, gt)
    for _ in range(30):
        k = rng.randint(1, 30)
        add_pair("retrieval_zh", rng.choice([f"\u6bb5\u843d{k}", f"{k}", f"\u6bb5\u843d{k+1}",
                                             f"\u7b54\u6848\u662f\u6bb5\u843d{k}\u3002"]),
                 f"\u6bb5\u843d{k}")

    # Whole samples: first-line cut and max over several answers.
    for task in ["trec", "triviaqa", "samsum", "hotpotqa", "lcc", "passage_count", "qmsum"]:
        for rec in rng.sample(tasks[task], 12):
            answers = list(rec["answers"])
            if rng.random() < 0.5:
                answers.append(mutate_text(rng, answers[0]))
            pred = rec["pred"] if task != "qmsum" else clip_words(rec["pred"], 40)
            if task == "qmsum":
                answers = [clip_words(a, 40) for a in answers]
            if rng.random() < 0.4:
                pred = "\n" * rng.randint(1, 2) + pred
            classes = "trec" if task == "trec" else None
            score = score_sample(task, pred, answers,
                                 class_sets["trec"] if classes else None)
            row = {"kind": "sample", "task": task, "pred": pred, "answers": answers,
                   "score": float(score)}
            if classes:
                row["classes"] = classes
            out.append(row)

    # Aggregation: eval.py's scorer (Python round) and scorer_e (numpy mean/round).
    for _ in range(40):
        n = rng.randint(1, 300)
        grid = rng.choice([100, 1000]) if n > 40 else rng.choice([None, 100, 1000])
        scores = [rng.random() if grid is None else rng.randint(0, grid) / grid for _ in range(n)]
        lengths = [rng.choice([rng.randint(0, 3999), rng.randint(4000, 7999), rng.randint(8000, 30000)])
                   for _ in range(n)]
        if n > 3:
            lengths[0], lengths[1], lengths[2] = 100, 5000, 9000
        out.append({"kind": "aggregate", "scores": scores, "lengths": lengths,
                    "score": task_score(scores),
                    # JSON has no NaN: an empty bucket (NaN in eval.py) is written as null.
                    "buckets": {k: (None if v != v else float(v))
                                for k, v in task_score_e(scores, lengths).items()}})

    with open(args.out, "w", encoding="utf-8") as f:
        for row in out:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    kinds = Counter(r["kind"] if r["kind"] != "pair" else r["metric"] for r in out)
    errors = Counter(r.get("rouge_error") for r in out if r.get("metric") == "rouge")
    print(f"wrote {len(out)} lines to {args.out}: {dict(kinds)}; rouge errors {dict(errors)}")


if __name__ == "__main__":
    main()
