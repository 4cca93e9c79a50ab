#!/usr/bin/env python3
"""Write the byte-level BPE tokenizer fixtures under tests/fixtures/bpe/.

Real Llama-3 / Qwen2 tokenizer.json files cannot be downloaded here, so this trains two
small byte-level BPE tokenizers with the Hugging Face `tokenizers` library, configured the
way the real ones are (same Split regex, ByteLevel pre-tokenizer and decoder, Llama-3's
ignore_merges, Qwen2's NFC normalizer, special tokens appended after the learned vocabulary),
and records what `tokenizers` gives for a set of texts. tests/models/tokenizer/test_bpe_tokenizer.cpp
requires ripplekv's C++ tokenizer to give the same ids and decodes.

    .venv/bin/python scripts/make_bpe_fixtures.py [--data DIR] [--out DIR]
"""
import argparse
import glob
import json
import os
import random

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                  r"|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                 r"|\s*[\r\n]+|\s+(?!\S)|\s+")

# Some non-English text so the small vocabularies learn a few multi-byte merges too.
EXTRA_TRAINING_TEXT = [
    "长文本理解是大语言模型的重要能力。我们在多个任务上评测模型的表现。",
    "北京是中国的首都，上海是最大的城市。今天天气很好，我们去公园散步吧。",
    "Café crème, naïve résumé, façade, Zürich, São Paulo, Ελληνικά, русский язык.",
    "Emoji 😀😃😄 👍🏽 🚀 ✨ are common in chat logs.",
    "def main():\n    for i in range(10):\n        print(i)\n\nif __name__ == '__main__':\n    main()\n",
] * 20

TEXTS = [
    "",
    " ",
    "Hello world",
    "Hello, world! How are you today?",
    " leading space and trailing space ",
    "The quick brown fox jumps over the lazy dog.",
    "I'm sure they'll say it's fine, but we've seen what you'd do.",
    "I'M SURE THEY'LL SAY IT'S FINE, BUT WE'VE SEEN WHAT YOU'D DO.",
    "don't can't won't isn't 'quoted' rock'n'roll",
    "1234567",
    "12345678901234567890",
    "pi is 3.14159265, e is 2.71828 and 1,000,000 is a million",
    "Version 2.0.1-rc3 released on 2024-05-01T12:34:56Z",
    "a  b   c    d     e",
    "trailing spaces   ",
    "   leading spaces",
    "tabs\tand\t\ttabs",
    "line one\nline two\n\nline four\n",
    "windows\r\nline\r\nendings\r\n",
    "\n\n\n",
    " \n \n  \n",
    "mixed \t \n\t whitespace \r\n  end",
    "def f(x):\n    return x ** 2  # square\n",
    "for (int i = 0; i < n; ++i) { sum += a[i]; }",
    "if (a != b && c >= d) || !e { return; }",
    "<html><body><p class=\"x\">Hi &amp; bye</p></body></html>",
    "email: someone@example.com, url: https://example.com/path?q=1&r=2",
    "!!!??? ...--- ***",
    "C'est déjà l'été à Zürich; naïve façade, résumé, São Paulo.",
    "Ελληνικά και русский язык",
    "长文本理解是大语言模型的重要能力。",
    "北京是中国的首都，上海是最大的城市。",
    "混合 English 和中文 text 123 测试",
    "日本語のテキストです。한국어 텍스트입니다.",
    "Emoji: 😀😃😄 👍🏽 🚀✨",
    "👨‍👩‍👧‍👦 family emoji with zero-width joiners",
    "Math: ∑ x² ≤ ∞, α β γ δ",
    "non-breaking\u00a0space and em\u2003space and ideographic\u3000space",
    "zero\u200bwidth space",
    "Paul Graham wrote essays about startups, programming and Lisp.",
    "The most important thing is to make something people want.",
    "What I Worked On\n\nFebruary 2021\n\nBefore college the two main things I worked on, outside of school, "
    "were writing and programming.",
    "<|begin_of_text|>",
    "<|begin_of_text|>Hello",
    "<|start_header_id|>user<|end_header_id|>\n\nWhat is 2+2?<|eot_id|>"
    "<|start_header_id|>assistant<|end_header_id|>\n\n",
    "text before <|eot_id|> text after",
    "<|eot_id|><|eot_id|>",
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n",
    "<|endoftext|>",
    "a<|im_end|>b",
    "<|not_a_special|> looks special but is not",
    "<| begin_of_text |>",
    "x" * 300,
    " " * 40 + "indented",
    "=" * 50,
    "0" * 25,
    "The year 1999 and the year 2000; room 101; 007.",
    "α'S 'Sx 'll've",
    "MixedCASEWordsAndCamelCaseIdentifiersLikeThisOne",
    "snake_case_identifier = other_identifier_2",
    "Ünïcödé ÀÉÎÕÜ",
    "'ſ 'ſt x'ſ",
    "file\x1cseparator and \x0bvertical\x0ctab \x85next \u2028line",
]

# Random strings over code points the regex classes treat differently: letters (and U+017F,
# which (?i) folds to 's'), the three \p{N} categories, Oniguruma's \s (and U+001C, which
# Python's isspace() has but \s does not), punctuation, CJK, emoji and the special tokens.
RANDOM_POOL = ["a", "Z", "é", "ß", "Ω", "'", "s", "S", "t", "re", "VE", "ll", "m", "d", "ſ", "0", "7", "٣", "½",
               "Ⅻ", " ", "  ", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x85", "\u00a0", "\u2028", "\u3000",
               "\x1c", "!", ".", ",", "-", "_", "<", "|", ">", "(", "中", "文", "。", "😀", "👍🏽", "\u200b"]
RANDOM_SPECIALS = {"llama3": ["<|eot_id|>", "<|start_header_id|>"], "qwen2": ["<|im_end|>", "<|im_start|>"]}


def random_texts(name, count=80, seed=1234):
    rng = random.Random(seed)
    pool = RANDOM_POOL + RANDOM_SPECIALS[name]
    return ["".join(rng.choice(pool) for _ in range(rng.randint(1, 24))) for _ in range(count)]


# Ids whose byte sequences cut UTF-8 characters in half: decode must replace them the way
# tokenizers' String::from_utf8_lossy does.
LOSSY_DECODE_TEXTS = ["长文本", "😀🚀", "é"]


def train(name, pattern, normalizer, special_tokens, ignore_merges, files, vocab_size):
    tok = Tokenizer(models.BPE(ignore_merges=ignore_merges))
    if normalizer is not None:
        tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())

    def corpus():
        for f in files:
            with open(f, encoding="utf-8") as fh:
                yield fh.read()
        yield from EXTRA_TRAINING_TEXT

    tok.train_from_iterator(corpus(), trainer=trainer)
    # Like the real checkpoints, the special tokens follow the learned vocabulary.
    tok.add_special_tokens(special_tokens)
    return tok


def references(tok, name):
    cases = []
    for text in TEXTS + random_texts(name):
        enc = tok.encode(text, add_special_tokens=False)
        cases.append({
            "text": text,
            "ids": enc.ids,
            "pieces": enc.tokens,
            "decoded": tok.decode(enc.ids, skip_special_tokens=False),
        })
    lossy = []
    for text in LOSSY_DECODE_TEXTS:
        ids = tok.encode(text, add_special_tokens=False).ids
        # Every prefix of the id list, so some cut a multi-byte character.
        for n in range(1, len(ids) + 1):
            lossy.append({"ids": ids[:n], "decoded": tok.decode(ids[:n], skip_special_tokens=False)})
    # Byte tokens on their own and in odd orders: lone continuation and lead bytes.
    byte_ids = {b: tok.token_to_id(c) for b, c in bytes_to_unicode().items()}
    for seq in ([0x80], [0xBF], [0xC3], [0xE4, 0xB8], [0xF0, 0x9F, 0x98], [0xC3, 0x41, 0xA9], [0xED, 0xA0, 0x80],
                [0xF4, 0x90, 0x80, 0x80], [0xC0, 0xAF], [0xE4, 0xB8, 0x41, 0xE4, 0xB8, 0xAD]):
        ids = [byte_ids[b] for b in seq]
        lossy.append({"ids": ids, "decoded": tok.decode(ids, skip_special_tokens=False)})
    return cases, lossy


def bytes_to_unicode():
    """GPT-2's byte -> printable character map that the ByteLevel pre-tokenizer uses."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/work/shared/data/haystack/PaulGrahamEssays")
    ap.add_argument("--out", default=os.path.join(repo, "tests", "fixtures", "bpe"))
    ap.add_argument("--vocab-size", type=int, default=2000)
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.data, "*.txt")))
    if not files:
        raise SystemExit(f"{args.data}: no *.txt files to train on")

    configs = {
        "llama3": dict(
            pattern=LLAMA3_PATTERN, normalizer=None, ignore_merges=True,
            special_tokens=["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
                            "<|eot_id|>"],
            config={"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>",
                    "clean_up_tokenization_spaces": True, "model_max_length": 131072,
                    "tokenizer_class": "PreTrainedTokenizerFast"},
            bos="<|begin_of_text|>", eos="<|eot_id|>", pad=None),
        "qwen2": dict(
            pattern=QWEN2_PATTERN, normalizer=normalizers.NFC(), ignore_merges=False,
            special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
            config={"add_prefix_space": False, "bos_token": None, "eos_token": "<|im_end|>",
                    "pad_token": "<|endoftext|>", "clean_up_tokenization_spaces": False, "errors": "replace",
                    "model_max_length": 32768, "split_special_tokens": False, "tokenizer_class": "Qwen2Tokenizer"},
            bos=None, eos="<|im_end|>", pad="<|endoftext|>"),
    }
    for name, c in configs.items():
        tok = train(name, c["pattern"], c["normalizer"], c["special_tokens"], c["ignore_merges"], files,
                    args.vocab_size)
        if name == "llama3":
            bos_id = tok.token_to_id(c["bos"])
            tok.post_processor = processors.TemplateProcessing(
                single=f"{c['bos']} $A", pair=f"{c['bos']} $A {c['bos']} $B", special_tokens=[(c["bos"], bos_id)])
        out_dir = os.path.join(args.out, name)
        os.makedirs(out_dir, exist_ok=True)
        tok.save(os.path.join(out_dir, "tokenizer.json"))
        with open(os.path.join(out_dir, "tokenizer_config.json"), "w", encoding="utf-8") as fh:
            json.dump(c["config"], fh, indent=2)
            fh.write("\n")
        cases, lossy = references(tok, name)
        ref = {
            "generator": "scripts/make_bpe_fixtures.py",
            "vocab_size": tok.get_vocab_size(with_added_tokens=True),
            "special": {k: (tok.token_to_id(c[k]) if c[k] else -1) for k in ("bos", "eos", "pad")},
            "special_tokens": {t: tok.token_to_id(t) for t in c["special_tokens"]},
            "cases": cases,
            "lossy_decodes": lossy,
        }
        with open(os.path.join(out_dir, "reference.json"), "w", encoding="utf-8") as fh:
            json.dump(ref, fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        sizes = {f: os.path.getsize(os.path.join(out_dir, f)) for f in os.listdir(out_dir)}
        print(name, sizes)


if __name__ == "__main__":
    main()
