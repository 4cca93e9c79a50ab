#!/usr/bin/env python3
"""Write tokenizer parity fixtures: what the `tokenizers` library gives for ~2,000 slices of the
shared data sets and ~200 hand-written edge cases, for the real models' tokenizer.json files
(converted by scripts/get_model.sh) and the two small fixture tokenizers in tests/fixtures/bpe/.

    .venv/bin/python scripts/make_real_tokenizer_fixtures.py                    # all four
    .venv/bin/python scripts/make_real_tokenizer_fixtures.py --only bpe         # fixture tokenizers only
    .venv/bin/python scripts/make_real_tokenizer_fixtures.py --models-dir DIR --shared ../shared

Outputs (one per tokenizer):
    tests/fixtures/real/<model>/tokenizer_parity.json   (<model>: smollm2-135m-instruct, qwen2.5-coder-1.5b-instruct)
    tests/fixtures/bpe/<name>/tokenizer_parity.json      (<name>: llama3, qwen2)

File format (JSON object):
    tokenizer, tokenizer_json_sha256, tokenizers_version, shared_root, source_sha256 {path: sha256},
    n_cases, total_ids, hash, text_rules,
    slices: [{"file": path relative to the shared root, "line": 0-based line of a .jsonl or null,
              "key": record key of a .json object file or null, "field": JSON field or null (.txt),
              "start": code point offset, "length": code points, "n_ids": N,
              "ids_fnv": hex16, "decode_fnv": hex16}, ...]
    inline: [{"text": ..., "ids": [...], "decoded": ...}, ...]
The text of a slice is S[start:start+length] where S is the whole .txt file (UTF-8, no newline
translation, a BOM would stay a code point) or the JSON string value of `field` in line `line` of
a .jsonl / record `key` of a .json file, counted in Unicode code points.
ids_fnv: FNV-1a 64 over the ids, each as 4-byte little-endian int32; decode_fnv: FNV-1a 64 over
the UTF-8 bytes of decode(ids, skip_special_tokens=False). Both lowercase, 16 hex digits.
Ids come from Tokenizer.from_file(tokenizer.json).encode(text, add_special_tokens=False).ids.
"""
import argparse
import glob
import hashlib
import json
import os
import random
import struct
import sys
import time

from tokenizers import Tokenizer
import tokenizers

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
REAL_MODELS = ["smollm2-135m-instruct", "qwen2.5-coder-1.5b-instruct"]
BPE_FIXTURES = ["llama3", "qwen2"]

FNV_OFFSET, FNV_PRIME, MASK = 0xCBF29CE484222325, 0x100000001B3, (1 << 64) - 1


def fnv1a64(data: bytes) -> str:
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK
    return f"{h:016x}"


def ids_bytes(ids):
    return struct.pack(f"<{len(ids)}i", *ids)


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# --- sources ---------------------------------------------------------------------------------
def load_sources(shared):
    """[(relpath, kind, [(line, key, field, text), ...])] with every string field of every record."""
    out = []
    lb = os.path.join(shared, "data", "longbench")
    for p in sorted(glob.glob(os.path.join(lb, "mini", "*.json"))):
        with open(p, encoding="utf-8") as f:
            recs = json.load(f)
        strings = [(None, k, fld, v) for k, r in recs.items() for fld, v in r.items()
                   if isinstance(v, str) and v]
        out.append((os.path.relpath(p, shared), "json", strings))
    jsonl = sorted(glob.glob(os.path.join(lb, "raw", "*.jsonl"))) + \
        sorted(glob.glob(os.path.join(lb, "reference_predictions", "*", "*.jsonl")))
    for p in jsonl:
        strings = []
        with open(p, encoding="utf-8", newline="") as f:
            lines = f.read().split("\n")
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            r = json.loads(line)
            strings += [(i, None, fld, v) for fld, v in r.items() if isinstance(v, str) and v]
        out.append((os.path.relpath(p, shared), "jsonl", strings))
    for p in sorted(glob.glob(os.path.join(shared, "data", "haystack", "PaulGrahamEssays", "*.txt"))):
        with open(p, encoding="utf-8", newline="") as f:
            out.append((os.path.relpath(p, shared), "txt", [(None, None, None, f.read())]))
    return out


def make_slices(sources, per_group, rng):
    """Seeded slices: lengths 1..600 code points (a third short, a third medium, a third long);
    starts anywhere (so mostly mid-word), some snapped to a word start or end."""
    groups = {"json": [], "jsonl": [], "txt": []}
    for s in sources:
        groups[s[1]].append(s)
    slices = []
    for kind in ("json", "jsonl", "txt"):
        files = groups[kind]
        if not files:
            continue
        n_each = max(1, -(-per_group[kind] // len(files)))
        for rel, _, strings in files:
            for _ in range(n_each):
                line, key, field, text = strings[rng.randrange(len(strings))]
                u = rng.random()
                length = rng.randint(1, 16) if u < 0.3 else rng.randint(17, 120) if u < 0.65 else rng.randint(121, 600)
                length = min(length, len(text))
                start = rng.randint(0, len(text) - length)
                mode = rng.random()
                if mode < 0.15:  # snap the start to a word start
                    while start > 0 and not text[start - 1].isspace() and start + length < len(text):
                        start -= 1
                elif mode < 0.3:  # snap the end to a word end
                    while start + length < len(text) and not text[start + length].isspace() and start > 0:
                        start += 1
                slices.append({"file": rel, "line": line, "key": key, "field": field,
                               "start": start, "length": length, "_text": text[start:start + length]})
    return slices


# --- hand-written edge cases -------------------------------------------------------------
def edge_cases():
    c = [""]
    # digits
    c += ["1", "12", "123", "1234", "12345", "123456", "1234567", "12345678901234567890",
          "abc123def", "a1b2c3", "x 12345 and 2024", "3.14159265", "1,000,000", "-42", "+7e-10", "0x1F",
          "v2.0.1-rc3", "2024-05-01T12:34:56Z", "$1,234.56", "(555) 123-4567", "1st 2nd 3rd 4th",
          "\u0663", "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669", "\uff15", "\uff11\uff12\uff13",
          "12\u06634", "\u00b2\u00b3", "x\u00b2 + y\u00b2", "\u216b", "\u00bd \u2153", "\u0968\u0966\u0968\u096a",
          "\U0001d7d9\U0001d7da", "\u2460\u2461", "\u4e00\u4e8c\u4e09 123", "123abc456def789"]
    # emoji
    c += ["\U0001f600", "\U0001f44d\U0001f3fd", "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",
          "\U0001f3f3\ufe0f\u200d\U0001f308", "\U0001f1eb\U0001f1f7", "\u2764\ufe0f",
          "\U0001f9d1\U0001f3fe\u200d\U0001f4bb", "a\U0001f600b", "\U0001f600\U0001f600\U0001f600",
          "\U0001f44b\U0001f3fb hi", "I \u2764 NY", "\U0001f680 launch!", "\u263a\ufe0e", "#\ufe0f\u20e3"]
    # combining marks / NFC
    c += ["e\u0301", "cafe\u0301", "caf\u00e9", "A\u030a", "\u212b", "\u00c5", "\u2126", "\u1100\u1161\u11a8",
          "\u1112\u1161\u11ab\u1100\u1173\u11af", "\uac00\u11a8", "o\u0308\u0304", "q\u0307\u0323", "\u0344",
          "\u0958", "\ufb2c", "\u0f73", "\ufb01", "e\u0301\u0301", "\u0301leading mark", "na\u0308ive re\u0301sume\u0301",
          "\u1e9b\u0323", "\u0041\u0308\u0301", "\u00c7\u0327", "Zu\u0308rich"]
    # CR / LF / tabs / whitespace runs
    c += ["a\r\nb", "line\r\n", "\r\n\r\n", "a\rb", "\r", "\r\r\n", "\n\r", "x\n", "\n", "\n\n\n",
          "\t", "\tx", "a\tb", "\t\t\tindent", " \t \n", "tabs\tand\t\ttabs", "trailing   ", "word \n",
          "  \n  \n", " \n \n  \n", "mixed \t \n\t whitespace \r\n  end", "\u00a0", "a\u00a0b", "\u3000x",
          "\u2028", "a\u200bb", "\ufeffBOM", "x\u2003y"]
    c += [" " * n for n in range(1, 41)]
    c += [" " * n + "x" for n in (1, 2, 3, 7, 16)] + ["x" + " " * n for n in (1, 2, 5, 17)]
    c += [" " * n + "\n" + " " * m for n, m in ((1, 1), (2, 3), (4, 0), (0, 4), (8, 8))]
    c += ["\n" + " " * n + "y" for n in (1, 4, 8)] + [" \n" * 5, "\n \n\t\n"]
    # contractions
    c += ["'s 'S 't 'T 're 'RE 'Re 've 'VE 'm 'M 'll 'LL 'Ll 'd 'D", "I'm", "YOU'RE", "it'S", "don'T",
          "they'll've", "rock'n'roll", "it\u2019s", "'s", "'", "''", "'x", "it'\u017f", "'\u017f", "O'Neil's",
          "we'Ve", "SHE'D", "'quoted'"]
    # non-BMP
    c += ["\U0001d573\U0001d58a\U0001d591\U0001d591\U0001d594", "\U00020000\U00020001", "\U00010348",
          "\U0001f004", "\U0010fffd", "a\U0001f600\U00020000z", "\U0001f9ec DNA"]
    # special tokens inside text (and look-alikes)
    c += ["hello<|im_end|>world", "<|im_start|>user\nhi<|im_end|>", "<|endoftext|>", "<|im_start|>",
          "<|im_end|><|im_end|>", " <|im_end|> ", "<|endoftext|>text", "text<|endoftext|>", "< |im_end| >",
          "<|im_end", "<|unknown|>", "<tool_call>", "<|fim_prefix|>x<|fim_suffix|>y<|fim_middle|>",
          "<repo_name>a<file_sep>", "<|begin_of_text|>", "<|eot_id|>hi", "<|start_header_id|>user<|end_header_id|>",
          "<|im_start|>assistant\nThe answer is 42.<|im_end|>\n"]
    # valid strings that look odd
    c += ["\\x00", "\\u0000", "a\u0000b", "\ufffd", "\uffff", "\U0010ffff", "\u00ff\u00fe", "\u0120",
          "\u010a\u0120", "\u00e2\u0122", "%20", "&amp;", "\\n literal", "\x7f", "\x01\x02", "\u200d", "\u0300"]
    # scripts
    c += ["\u4f60\u597d\uff0c\u4e16\u754c\uff01", "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8\u3067\u3059\u3002\u30ab\u30bf\u30ab\u30ca",
          "\ud55c\uad6d\uc5b4 \ud14d\uc2a4\ud2b8\uc785\ub2c8\ub2e4", "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645",
          "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440!", "\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac",
          "\u05e2\u05d1\u05e8\u05d9\u05ea", "\u0939\u093f\u0928\u094d\u0926\u0940", "\u0e44\u0e17\u0e22",
          "English\u4e2d\u6587\u6df7\u5408text", "\u0130stanbul \u00df \u01c5", "\u0422\u0415\u0421\u0422 test"]
    # code
    c += ["def f(x):\n    return x ** 2  # square\n",
          "class A:\n    def __init__(self):\n        self.x = 1\n\n\n    def g(self):\n        pass\n",
          "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}\n", "if (a != b && c >= d) || !e { return; }",
          "{\"key\": [1, 2, 3], \"nested\": {\"a\": null}}", "<div class=\"x\">&nbsp;</div>",
          "    \n    \n        x = 1\n", "#include <vector>\nint main() { return 0; }\n", "x=y+z;;", "a->b::c",
          "    return x\n\n\n    ", "\tif x:\n\t\tpass\n", "SELECT * FROM t WHERE id = 1;", "```python\nprint('hi')\n```"]
    seen, out = set(), []
    for t in c:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def tokenizer_targets(args):
    t = []
    if args.only in ("all", "real"):
        for name in REAL_MODELS:
            path = os.path.join(args.models_dir, name, "tokenizer.json")
            if not os.path.exists(path):
                sys.exit(f"{path} missing: run scripts/get_model.sh {name} first (or --only bpe)")
            t.append((name, path, os.path.join(ROOT, "tests", "fixtures", "real", name, "tokenizer_parity.json")))
    if args.only in ("all", "bpe"):
        for name in BPE_FIXTURES:
            d = os.path.join(ROOT, "tests", "fixtures", "bpe", name)
            t.append((f"tests/fixtures/bpe/{name}", os.path.join(d, "tokenizer.json"),
                      os.path.join(d, "tokenizer_parity.json")))
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.normpath(os.path.join(ROOT, "..", "shared")))
    ap.add_argument("--models-dir", default=os.environ.get(
        "RIPPLEKV_MODEL_CACHE", os.path.expanduser("~/.cache/ripplekv/models")))
    ap.add_argument("--only", choices=["all", "real", "bpe"], default="all")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    t0 = time.time()
    sources = load_sources(args.shared)
    rng = random.Random(args.seed)
    slices = make_slices(sources, {"json": 945, "jsonl": 171, "txt": 735}, rng)
    edges = edge_cases()
    source_sha = {rel: sha256_file(os.path.join(args.shared, rel)) for rel, _, _ in sources}
    print(f"{len(sources)} source files, {len(slices)} slices, {len(edges)} edge cases", file=sys.stderr)

    for name, tok_path, out_path in tokenizer_targets(args):
        t1 = time.time()
        tok = Tokenizer.from_file(tok_path)
        total = 0
        s_out = []
        for s in slices:
            ids = tok.encode(s["_text"], add_special_tokens=False).ids
            dec = tok.decode(ids, skip_special_tokens=False)
            total += len(ids)
            s_out.append({k: s[k] for k in ("file", "line", "key", "field", "start", "length")} |
                         {"n_ids": len(ids), "ids_fnv": fnv1a64(ids_bytes(ids)),
                          "decode_fnv": fnv1a64(dec.encode("utf-8"))})
        i_out = []
        for text in edges:
            ids = tok.encode(text, add_special_tokens=False).ids
            total += len(ids)
            i_out.append({"text": text, "ids": ids, "decoded": tok.decode(ids, skip_special_tokens=False)})
        doc = {
            "tokenizer": name,
            "tokenizer_json_sha256": sha256_file(tok_path),
            "tokenizers_version": tokenizers.__version__,
            "generator": "scripts/make_real_tokenizer_fixtures.py (seed %d)" % args.seed,
            "shared_root": "the shared data folder (../shared from the repository root); slice paths are relative to it",
            "source_sha256": source_sha,
            "text_rules": ("slice text = S[start:start+length] in Unicode code points; S = whole .txt file (UTF-8, "
                           "no newline translation) or the JSON string value of `field` at 0-based line `line` of a "
                           ".jsonl (lines split on \\n) / at record `key` of a .json object file"),
            "hash": ("ids_fnv: FNV-1a 64 (offset 0xcbf29ce484222325, prime 0x100000001b3) over the ids as 4-byte "
                     "little-endian int32; decode_fnv: FNV-1a 64 over the UTF-8 bytes of "
                     "decode(ids, skip_special_tokens=False); lowercase hex, 16 digits"),
            "encode": "Tokenizer.from_file(tokenizer.json).encode(text, add_special_tokens=False).ids",
            "n_cases": len(s_out) + len(i_out),
            "total_ids": total,
            "slices": s_out,
            "inline": i_out,
        }
        os.makedirs(os.path.dirname(out_path), exist_ok=True)
        with open(out_path, "w", encoding="utf-8") as f:
            head = {k: v for k, v in doc.items() if k not in ("slices", "inline")}
            body = json.dumps(head, ensure_ascii=False, indent=1)[:-2]
            f.write(body + ",\n")
            for key in ("slices", "inline"):
                f.write(f' "{key}": [\n')
                rows = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in doc[key]]
                f.write(",\n".join("  " + r for r in rows))
                f.write("\n ]" + (",\n" if key == "slices" else "\n"))
            f.write("}\n")
        with open(out_path, encoding="utf-8") as f:
            assert json.load(f) == doc
        print(f"{name}: {doc['n_cases']} cases ({len(s_out)} slices + {len(i_out)} inline), {total} ids, "
              f"{os.path.getsize(out_path)} bytes -> {os.path.relpath(out_path, ROOT)} ({time.time() - t1:.1f}s)")
    print(f"total {time.time() - t0:.1f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
