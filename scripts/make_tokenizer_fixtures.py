#!/usr/bin/env python3
"""Write SentencePiece tokenizer reference fixtures for the C++ tests.

For each tokenizer model (Llama-2 32k and the stories260K 512-token model) this
encodes a fixed list of texts with the Python `sentencepiece` package (no BOS/EOS:
the C++ side adds BOS itself), decodes the ids back, and records the special
tokens and the relevant normalizer/trainer settings read from the model proto.
Output: `<out>/<name>.json`. The model files themselves are never copied.

Usage:
    python scripts/make_tokenizer_fixtures.py --out tests/fixtures/tokenizer \
        --llama2 /work/shared/data/tokenizers/llama2/tokenizer.model \
        --tok512 /work/shared/data/stories260K/tok512.model
"""

import argparse
import hashlib
import json
import os
import sys

import sentencepiece as spm

FORMAT_VERSION = 1

# Fixed list of texts. Order matters (tests may index by position); append only.
TEXTS = [
    "Hello world",
    "Hello, world! How are you?",
    "The quick brown fox jumps over the lazy dog.",
    "Once upon a time, there was a little girl named Lily. She loved to play outside.",
    "",
    " ",
    "   ",
    "   leading spaces",
    "trailing spaces   ",
    "multiple    spaces   between  words",
    "tabs\tand\t\ttabs",
    "def f(x):\n\treturn x + 1\n",
    "for (int i = 0; i < n; ++i) {\n    sum += a[i];\n}",
    "line1\nline2\n\nline4",
    "\n",
    "\r\nwindows newline\r\n",
    "12345 67890",
    "3.14159 and 2.71828, 1e-5, 1,000,000",
    "你好，世界",
    "机器学习是人工智能的一个分支。",
    "日本語のテキスト",
    "mixed 中文 and English 123",
    "emoji 😀🚀👍🏽",
    "<s> literal and </s> text",
    "<unk> <pad> <0x41>",
    "Café naïve résumé",
    "Ünïcödé ß ø å Ω",
    "Ελληνικά and русский and مرحبا",
    "non\u00a0breaking\u00a0space and zero\u200bwidth",
    "control chars \x01\x7f and astral 𝔘𝔫𝔦",
    "I'm can't won't",
    "CAPITALS and lowercase",
    "a",
    "▁ literal U+2581",
]

SP_DEFAULTS = {
    # proto2 defaults from sentencepiece_model.proto (used when a field is absent)
    "normalizer.name": "",
    "normalizer.add_dummy_prefix": True,
    "normalizer.remove_extra_whitespaces": True,
    "normalizer.escape_whitespaces": True,
    "trainer.model_type": 1,
    "trainer.vocab_size": 8000,
    "trainer.byte_fallback": False,
    "trainer.split_digits": False,
    "trainer.treat_whitespace_as_suffix": False,
    "trainer.allow_whitespace_only_pieces": False,
}
MODEL_TYPES = {1: "UNIGRAM", 2: "BPE", 3: "WORD", 4: "CHAR"}

# field numbers in sentencepiece_model.proto
_NORMALIZER_FIELDS = {1: "name", 3: "add_dummy_prefix", 4: "remove_extra_whitespaces", 5: "escape_whitespaces"}
_TRAINER_FIELDS = {
    3: "model_type",
    4: "vocab_size",
    24: "treat_whitespace_as_suffix",
    25: "split_digits",
    26: "allow_whitespace_only_pieces",
    35: "byte_fallback",
}
_BOOL_FIELDS = {
    "add_dummy_prefix",
    "remove_extra_whitespaces",
    "escape_whitespaces",
    "treat_whitespace_as_suffix",
    "split_digits",
    "allow_whitespace_only_pieces",
    "byte_fallback",
}


def _varint(b, i):
    r = sh = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << sh
        sh += 7
        if c < 0x80:
            return r, i


def _fields(b):
    """Minimal protobuf wire-format reader: yields (field_number, wire_type, value)."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = _varint(b, i)
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 2:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError(f"unsupported wire type {w}")
        yield f, w, v


def read_model_settings(path):
    """Read the normalizer/trainer settings that matter for a re-implementation,
    without needing the protobuf package."""
    with open(path, "rb") as fh:
        blob = fh.read()
    out = dict(SP_DEFAULTS)
    for f, w, v in _fields(blob):
        if f == 2 and w == 2:
            table, prefix = _TRAINER_FIELDS, "trainer."
        elif f == 3 and w == 2:
            table, prefix = _NORMALIZER_FIELDS, "normalizer."
        else:
            continue
        for ff, ww, vv in _fields(v):
            name = table.get(ff)
            if name is None:
                continue
            if ww == 2:
                vv = vv.decode("utf-8")
            elif name in _BOOL_FIELDS:
                vv = bool(vv)
            out[prefix + name] = vv
    out["trainer.model_type"] = MODEL_TYPES.get(out["trainer.model_type"], out["trainer.model_type"])
    return dict(sorted(out.items()))


def special(sp, which):
    idx = {"bos": sp.bos_id, "eos": sp.eos_id, "unk": sp.unk_id, "pad": sp.pad_id}[which]()
    return {"id": idx, "piece": sp.id_to_piece(idx) if 0 <= idx < sp.get_piece_size() else None}


def build(name, model_path):
    sp = spm.SentencePieceProcessor(model_file=model_path)
    with open(model_path, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    n = sp.get_piece_size()
    byte_ids = [i for i in range(n) if sp.is_byte(i)]
    control_ids = [i for i in range(n) if sp.is_control(i)]
    unknown_ids = [i for i in range(n) if sp.is_unknown(i)]
    cases = []
    for text in TEXTS:
        ids = sp.encode(text, out_type=int, add_bos=False, add_eos=False)
        pieces = sp.encode(text, out_type=str, add_bos=False, add_eos=False)
        assert [sp.piece_to_id(p) for p in pieces] == ids
        decoded = sp.decode(ids)
        cases.append(
            {
                "text": text,
                "ids": ids,
                "pieces": pieces,
                "decoded": decoded,
                "roundtrip": decoded == text,
                "n_unk": sum(1 for i in ids if i == sp.unk_id()),
                "n_byte": sum(1 for i in ids if sp.is_byte(i)),
            }
        )
    return {
        "format_version": FORMAT_VERSION,
        "name": name,
        "generated_by": "scripts/make_tokenizer_fixtures.py",
        "sentencepiece_version": spm.__version__,
        "model_file": os.path.basename(model_path),
        "model_path_default": model_path,
        "model_sha256": digest,
        "vocab_size": n,
        "special": {k: special(sp, k) for k in ("bos", "eos", "unk", "pad")},
        "settings": read_model_settings(model_path),
        "byte_piece_ids": [byte_ids[0], byte_ids[-1]] if byte_ids else None,
        "n_byte_pieces": len(byte_ids),
        "control_ids": control_ids,
        "unknown_ids": unknown_ids,
        "notes": [
            "ids = sp.encode(text, add_bos=False, add_eos=False); prepend bos.id yourself.",
            "decoded = sp.decode(ids); roundtrip tells whether it equals text (it may not: "
            "leading/extra whitespace handling, unknown characters without byte fallback).",
            "byte_piece_ids is [first, last] id of the <0xNN> byte pieces when byte_fallback is on.",
        ],
        "cases": cases,
    }


def dump(obj, path):
    # keep every case on a few lines: pretty top level, compact id/piece lists
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("{\n")
        items = list(obj.items())
        for k, (key, val) in enumerate(items):
            sep = ",\n" if k + 1 < len(items) else "\n"
            if key == "cases":
                fh.write(' "cases": [\n')
                for j, c in enumerate(val):
                    fh.write("  " + json.dumps(c, ensure_ascii=False, separators=(",", ":")))
                    fh.write(",\n" if j + 1 < len(val) else "\n")
                fh.write(" ]" + sep)
            else:
                fh.write(" " + json.dumps(key) + ": " + json.dumps(val, ensure_ascii=False) + sep)
        fh.write("}\n")
    json.load(open(path, encoding="utf-8"))  # sanity: valid JSON


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="tests/fixtures/tokenizer", help="output folder (default: %(default)s)")
    ap.add_argument("--llama2", default="/work/shared/data/tokenizers/llama2/tokenizer.model")
    ap.add_argument("--tok512", default="/work/shared/data/stories260K/tok512.model")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, path in (("llama2", args.llama2), ("tok512", args.tok512)):
        if not os.path.isfile(path):
            sys.exit(f"missing tokenizer model: {path}")
        ref = build(name, path)
        out = os.path.join(args.out, f"{name}.json")
        dump(ref, out)
        n_rt = sum(c["roundtrip"] for c in ref["cases"])
        print(
            f"{out}: {os.path.getsize(out)} bytes, vocab {ref['vocab_size']}, {len(ref['cases'])} texts, "
            f"{n_rt} round-trip exactly, special {ref['special']}, settings {ref['settings']}"
        )


if __name__ == "__main__":
    main()
