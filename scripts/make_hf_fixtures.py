#!/usr/bin/env python3
"""Write tiny random-weight Hugging Face reference fixtures for the C++ tests.

For every model below this script

  * builds a tiny random-weight model with `transformers` (float32, eager attention),
  * saves it with `save_pretrained(..., safe_serialization=True)` into
    `<out>/<name>/` (config.json, generation_config.json, model.safetensors or
    sharded model-XXXXX-of-YYYYY.safetensors + model.safetensors.index.json),
  * reloads the saved folder (fp32 and bf16) and writes `<out>/<name>/reference.json`
    with, for 3 fixed prompts: the prompt ids, the full fp32 logits at every prompt
    position, a 16-token greedy continuation (explicit KV-cache loop, cross-checked
    against `generate(do_sample=False)`), per-step greedy margins, and the logits of
    the same checkpoint loaded in bfloat16.

Everything is seeded; re-running produces byte-identical files (given the same
torch/transformers versions). CPU only, one thread.

Usage:
    python scripts/make_hf_fixtures.py --out tests/fixtures/hf
"""

import argparse
import copy
import hashlib
import inspect
import json
import math
import os
import platform
import random
import shutil
import sys

import torch

torch.set_num_threads(1)
torch.set_num_interop_threads(1)
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import safetensors  # noqa: E402
import transformers  # noqa: E402
from safetensors import safe_open  # noqa: E402
from transformers import (  # noqa: E402
    LlamaConfig,
    LlamaForCausalLM,
    MistralConfig,
    MistralForCausalLM,
    Qwen2Config,
    Qwen2ForCausalLM,
)

FORMAT_VERSION = 1
VOCAB = 256
BOS_ID = 1
EOS_ID = 2
# 7 + 17 + 41 prompt positions x 256 vocab x (fp32 + bf16) logits keeps reference.json ~290 KB;
# 41 > original_max_position_embeddings (32) of llama_gqa.
PROMPT_LENGTHS = (7, 17, 41)
PROMPT_SEED = 20240601
N_NEW_TOKENS = 16
MIN_MARGIN = 1e-3
ATTN_IMPL = "eager"
FP32_SIG_DIGITS = 7
BF16_SIG_DIGITS = 4  # enough to round-trip every bfloat16 value (8-bit significand)

COMMON = dict(
    vocab_size=VOCAB,
    hidden_size=64,
    num_hidden_layers=2,
    intermediate_size=96,
    rms_norm_eps=1e-5,
    max_position_embeddings=256,
    initializer_range=0.2,
    hidden_act="silu",
    bos_token_id=BOS_ID,
    eos_token_id=EOS_ID,
)


def model_specs():
    """name -> dict(cls, config, seed, shard).

    Seeds were picked (once, by hand) among 1..16 as the one giving the largest minimum
    top1-top2 margin over all greedy steps and all prompt positions for the default prompts;
    both margins are asserted (> MIN_MARGIN) on every run."""
    return {
        "llama_gqa": dict(
            cls=LlamaForCausalLM,
            config=LlamaConfig(
                **COMMON,
                num_attention_heads=4,
                num_key_value_heads=2,
                head_dim=32,  # q_proj: 64 -> 128 != hidden_size
                tie_word_embeddings=False,
                rope_parameters={
                    "rope_type": "llama3",
                    "rope_theta": 10000.0,
                    "factor": 8.0,
                    "low_freq_factor": 1.0,
                    "high_freq_factor": 4.0,
                    "original_max_position_embeddings": 32,
                },
            ),
            seed=9,
            shard=None,
        ),
        "llama_linear": dict(
            cls=LlamaForCausalLM,
            config=LlamaConfig(
                **COMMON,
                num_attention_heads=4,
                num_key_value_heads=2,
                tie_word_embeddings=False,
                rope_parameters={"rope_type": "linear", "rope_theta": 10000.0, "factor": 2.0},
            ),
            seed=1,
            shard="120KB",
        ),
        "mistral": dict(
            cls=MistralForCausalLM,
            config=MistralConfig(
                **COMMON,
                num_attention_heads=4,
                num_key_value_heads=1,
                sliding_window=None,
                tie_word_embeddings=False,
                rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
            ),
            seed=16,
            shard=None,
        ),
        "qwen2": dict(
            cls=Qwen2ForCausalLM,
            config=Qwen2Config(
                **COMMON,
                num_attention_heads=4,
                num_key_value_heads=2,
                tie_word_embeddings=True,
                use_sliding_window=False,
                rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
            ),
            seed=4,
            shard=None,
        ),
    }


# --------------------------------------------------------------------------- helpers


def make_prompts(lengths=PROMPT_LENGTHS):
    rng = random.Random(PROMPT_SEED)
    prompts = []
    for n in lengths:
        # ids 0..2 are pad/bos/eos-like; keep them out of the body of the prompt
        prompts.append([BOS_ID] + [rng.randrange(3, VOCAB) for _ in range(n - 1)])
    return prompts


def randomize_extra_params(model, seed):
    """Make norm weights and biases non-trivial (default init: ones / zeros)."""
    g = torch.Generator().manual_seed(seed + 7777)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            if name.endswith("norm.weight"):
                p.copy_(0.5 + torch.rand(p.shape, generator=g))  # U[0.5, 1.5)
            elif name.endswith(".bias"):
                p.copy_(0.2 * torch.randn(p.shape, generator=g))


def to_legacy_config(cfg):
    """Rewrite a transformers>=5 config dict into the pre-v5 layout that real Hub
    checkpoints use: top-level rope_theta + rope_scaling (null for default rope),
    torch_dtype instead of dtype."""
    cfg = dict(cfg)
    rp = dict(cfg.pop("rope_parameters"))
    theta = rp.pop("rope_theta")
    out = {}
    for k, v in cfg.items():
        if k == "dtype":
            out["torch_dtype"] = v
        else:
            out[k] = v
    out["rope_theta"] = theta
    out["rope_scaling"] = None if rp.get("rope_type", "default") == "default" else rp
    return dict(sorted(out.items()))


def margins_of(logits_row):
    top = torch.topk(logits_row.float(), 2)
    return float(top.values[0] - top.values[1]), int(top.indices[0]), float(top.values[0])


def _cache_in_kw(model):
    # transformers 5.x renamed the forward kwarg past_key_values -> cache (old name deprecated)
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def _cache_out(out):
    c = getattr(out, "cache", None)
    return c if c is not None else out.past_key_values


@torch.no_grad()
def greedy_loop(model, prompt, n_new):
    ids = torch.tensor([prompt], dtype=torch.long)
    kw = _cache_in_kw(model)
    out = model(input_ids=ids, use_cache=True)
    past = _cache_out(out)
    assert past is not None
    last = out.logits[0, -1]
    toks, margins, top1 = [], [], []
    for step in range(n_new):
        m, t, v = margins_of(last)
        toks.append(t)
        margins.append(m)
        top1.append(v)
        if step + 1 == n_new:
            break
        out = model(input_ids=torch.tensor([[t]], dtype=torch.long), use_cache=True, **{kw: past})
        past = _cache_out(out)
        last = out.logits[0, -1]
    return toks, margins, top1


@torch.no_grad()
def greedy_generate(model, prompt, n_new):
    ids = torch.tensor([prompt], dtype=torch.long)
    # generate() fills every None field of the passed config from model.generation_config, so
    # eos_token_id=None alone does not disable EOS stopping: clear it on the model's config too.
    saved = model.generation_config
    model.generation_config = copy.deepcopy(saved)
    model.generation_config.eos_token_id = None
    try:
        out = model.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            do_sample=False,
            max_new_tokens=n_new,
            eos_token_id=None,
            pad_token_id=0,
            use_cache=True,
        )
    finally:
        model.generation_config = saved
    new = out[0, len(prompt):].tolist()
    assert len(new) == n_new, f"generate() returned {len(new)} tokens, expected {n_new}"
    return new


def rounded(t, digits):
    """2-D tensor -> list of lists of Python floats rounded to `digits` significant digits.
    json then prints the shortest repr, which is the rounded decimal."""
    fmt = "{:.%dg}" % digits
    return [[float(fmt.format(v)) for v in row] for row in t.float().tolist()]


def dump_json(obj, f, indent=1, level=0):
    """json with lists of scalars kept on one line (keeps files small and diffable)."""
    pad = " " * (indent * level)
    pad1 = " " * (indent * (level + 1))
    if isinstance(obj, dict):
        if not obj:
            f.write("{}")
            return
        f.write("{\n")
        for i, (k, v) in enumerate(obj.items()):
            f.write(pad1 + json.dumps(k) + ": ")
            dump_json(v, f, indent, level + 1)
            f.write(",\n" if i + 1 < len(obj) else "\n")
        f.write(pad + "}")
    elif isinstance(obj, list) and any(isinstance(x, (list, dict, str)) for x in obj):
        f.write("[\n")
        for i, v in enumerate(obj):
            f.write(pad1)
            dump_json(v, f, indent, level + 1)
            f.write(",\n" if i + 1 < len(obj) else "\n")
        f.write(pad + "]")
    else:
        f.write(json.dumps(obj, separators=(",", ":"), allow_nan=False))


def folder_size(path):
    return sum(os.path.getsize(os.path.join(path, n)) for n in os.listdir(path))


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        h.update(fh.read())
    return h.hexdigest()


def safetensors_keys(folder):
    keys = {}
    for n in sorted(os.listdir(folder)):
        if n.endswith(".safetensors"):
            with safe_open(os.path.join(folder, n), "pt") as f:
                for k in f.keys():
                    keys[k] = n
    return keys


# --------------------------------------------------------------------------- main work


def build_one(name, spec, out_root, prompts, legacy_config):
    folder = os.path.join(out_root, name)
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)

    cfg = copy.deepcopy(spec["config"])
    cfg._attn_implementation = ATTN_IMPL
    torch.manual_seed(spec["seed"])
    model = spec["cls"](cfg).eval().float()
    randomize_extra_params(model, spec["seed"])
    if cfg.tie_word_embeddings:
        assert model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()

    save_kw = dict(safe_serialization=True)
    if spec["shard"]:
        save_kw["max_shard_size"] = spec["shard"]
    model.save_pretrained(folder, **save_kw)

    cfg_path = os.path.join(folder, "config.json")
    if legacy_config:
        with open(cfg_path) as fh:
            cfg_dict = json.load(fh)
        with open(cfg_path, "w") as fh:
            json.dump(to_legacy_config(cfg_dict), fh, indent=2, sort_keys=True)
            fh.write("\n")

    # ---- checks on what was written
    files = sorted(os.listdir(folder))
    keys = safetensors_keys(folder)
    if spec["shard"]:
        shards = [n for n in files if n.endswith(".safetensors")]
        assert len(shards) >= 2, f"{name}: expected >= 2 shards, got {shards}"
        assert "model.safetensors.index.json" in files
    else:
        assert "model.safetensors" in files, files
    if cfg.tie_word_embeddings:
        assert "lm_head.weight" not in keys, f"{name}: tied checkpoint still contains lm_head.weight"
    else:
        assert "lm_head.weight" in keys
    for n in files:
        if n.endswith(".safetensors"):
            with safe_open(os.path.join(folder, n), "pt") as f:
                for k in f.keys():
                    assert f.get_slice(k).get_dtype() == "F32", (n, k)

    # ---- reload the saved checkpoint (this is what the C++ side will read)
    ref_model = spec["cls"].from_pretrained(folder, dtype=torch.float32, attn_implementation=ATTN_IMPL).eval()
    assert ref_model.config._attn_implementation == ATTN_IMPL
    sd_a, sd_b = model.state_dict(), ref_model.state_dict()
    for k in sd_a:
        if k.endswith("inv_freq"):
            continue
        assert torch.equal(sd_a[k], sd_b[k]), f"{name}: reload mismatch in {k}"

    bf16_model = spec["cls"].from_pretrained(folder, dtype=torch.bfloat16, attn_implementation=ATTN_IMPL).eval()
    inv_freq_dtype_bf16 = str(bf16_model.model.rotary_emb.inv_freq.dtype).replace("torch.", "")

    # ---- rope inverse frequencies HF actually uses (fp32), handy for debugging
    inv_freq = ref_model.model.rotary_emb.inv_freq.float().tolist()
    attention_scaling = float(getattr(ref_model.model.rotary_emb, "attention_scaling", 1.0))

    cases = []
    all_greedy_margins = []
    with torch.no_grad():
        for prompt in prompts:
            ids = torch.tensor([prompt], dtype=torch.long)
            logits = ref_model(input_ids=ids).logits[0]  # [T, V] fp32
            orig_logits = model(input_ids=ids).logits[0]
            assert torch.equal(logits, orig_logits), f"{name}: reloaded model logits differ"
            assert logits.dtype == torch.float32 and logits.shape == (len(prompt), VOCAB)

            prefill_margins = [margins_of(row)[0] for row in logits]
            assert min(prefill_margins) > MIN_MARGIN, f"{name}: prefill margin {min(prefill_margins)}"
            toks, gm, top1 = greedy_loop(ref_model, prompt, N_NEW_TOKENS)
            assert toks[0] == int(logits[-1].argmax())
            assert abs(top1[0] - float(logits[-1].max())) <= 1e-5 * max(1.0, abs(top1[0]))
            gen = greedy_generate(ref_model, prompt, N_NEW_TOKENS)
            assert gen == toks, f"{name}: generate() {gen} != explicit loop {toks}"
            for m in gm:
                assert m > MIN_MARGIN, f"{name}: greedy margin {m} <= {MIN_MARGIN}"
            all_greedy_margins.extend(gm)

            # no-cache cross-check: full forward over prompt+continuation
            full = torch.tensor([prompt + toks[:-1]], dtype=torch.long)
            full_logits = ref_model(input_ids=full, use_cache=False).logits[0, len(prompt) - 1:]
            assert full_logits.argmax(-1).tolist() == toks

            bf_logits = bf16_model(input_ids=ids).logits[0]
            assert bf_logits.dtype == torch.bfloat16
            bf_toks, bf_gm, _ = greedy_loop(bf16_model, prompt, N_NEW_TOKENS)
            bf_diff = (bf_logits.float() - logits).abs()
            bf_rounded = rounded(bf_logits.float(), BF16_SIG_DIGITS)
            assert torch.equal(torch.tensor(bf_rounded).bfloat16(), bf_logits), "bf16 round trip"

            cases.append(
                {
                    "prompt_ids": prompt,
                    "greedy_new_tokens": toks,
                    "greedy_contains_eos": EOS_ID in toks,
                    "greedy_margins": [float("%.6g" % m) for m in gm],
                    "greedy_top1_logits": [float("%.7g" % v) for v in top1],
                    "min_greedy_margin": float("%.6g" % min(gm)),
                    "min_prefill_margin": float("%.6g" % min(prefill_margins)),
                    "bf16_greedy_new_tokens": bf_toks,
                    "bf16_min_greedy_margin": float("%.6g" % min(bf_gm)),
                    "bf16_vs_fp32_max_abs_diff": float("%.6g" % float(bf_diff.max())),
                    "bf16_vs_fp32_mean_abs_diff": float("%.6g" % float(bf_diff.mean())),
                    "logits_fp32": rounded(logits, FP32_SIG_DIGITS),
                    "logits_bf16": bf_rounded,
                }
            )

    with open(cfg_path) as fh:
        written_cfg = json.load(fh)

    ref = {
        "format_version": FORMAT_VERSION,
        "name": name,
        "architecture": spec["cls"].__name__,
        "generated_by": "scripts/make_hf_fixtures.py",
        "versions": {
            "transformers": transformers.__version__,
            "torch": torch.__version__,
            "safetensors": safetensors.__version__,
            "python": platform.python_version(),
        },
        "attn_implementation": ATTN_IMPL,
        "config_style": "legacy(rope_theta+rope_scaling)" if legacy_config else "transformers_v5(rope_parameters)",
        "weights_dtype": "float32",
        "seed": spec["seed"],
        "vocab_size": VOCAB,
        "bos_id": BOS_ID,
        "eos_id": EOS_ID,
        "tie_word_embeddings": bool(cfg.tie_word_embeddings),
        "head_dim": int(ref_model.model.layers[0].self_attn.head_dim),
        "safetensors_files": sorted({v for v in keys.values()}),
        "safetensors_tensors": {k: list(ref_model.state_dict()[k].shape) for k in sorted(keys)},
        "rope_inv_freq": [float("%.9g" % v) for v in inv_freq],
        "rope_attention_scaling": attention_scaling,
        "n_new_tokens": N_NEW_TOKENS,
        "min_greedy_margin": float("%.6g" % min(all_greedy_margins)),
        "notes": [
            "logits_fp32[p][t] = model(prompt_ids).logits[0, t] in float32 (eager attention, CPU), "
            f"rounded to {FP32_SIG_DIGITS} significant digits.",
            "greedy_new_tokens: 16 argmax tokens after the prompt, explicit KV-cache loop "
            "(use_cache=True), identical to generate(do_sample=False) and to a no-cache full forward; "
            "EOS does NOT stop generation (see greedy_contains_eos: a continuation may contain eos_id).",
            "greedy_margins: top1 - top2 fp32 logit at each greedy step; min_prefill_margin: the same over "
            "all prompt positions of logits_fp32 (both asserted > 1e-3, so argmax comparisons are safe).",
            "logits_bf16: same checkpoint loaded with from_pretrained(dtype=torch.bfloat16), eager, CPU; "
            f"values are exact bf16 values printed with {BF16_SIG_DIGITS} significant digits "
            "(round to bf16 to recover them exactly). HF bf16 path: RMSNorm normalises in fp32, casts to "
            "bf16, then multiplies by the bf16 weight; softmax in fp32 then cast to bf16; rotary cos/sin "
            f"computed in fp32 (inv_freq dtype after bf16 load: {inv_freq_dtype_bf16}) then cast to bf16.",
            "bf16_greedy_new_tokens is informational (bf16 ties/near-ties are common); compare fp32 greedy strictly.",
            "prompt_ids start with BOS id 1; the prompt is fed as-is (no extra BOS).",
        ],
        "written_config": written_cfg,
        "cases": cases,
    }
    ref_path = os.path.join(folder, "reference.json")
    with open(ref_path, "w") as fh:
        dump_json(ref, fh)
        fh.write("\n")

    size = folder_size(folder)
    return {
        "name": name,
        "files": {n: os.path.getsize(os.path.join(folder, n)) for n in sorted(os.listdir(folder))},
        "total_bytes": size,
        "min_greedy_margin": min(all_greedy_margins),
        "min_prefill_margin": min(c["min_prefill_margin"] for c in cases),
        "bf16_max_abs_diff": max(c["bf16_vs_fp32_max_abs_diff"] for c in cases),
        "bf16_greedy_matches_fp32": [c["bf16_greedy_new_tokens"] == c["greedy_new_tokens"] for c in cases],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="tests/fixtures/hf", help="output root (default: %(default)s)")
    ap.add_argument(
        "--models", default="llama_gqa,llama_linear,mistral,qwen2", help="comma-separated subset to build"
    )
    ap.add_argument(
        "--legacy-config",
        default="llama_gqa,qwen2",
        help="models whose config.json is rewritten to the pre-transformers-5 layout used by real Hub "
        "checkpoints (top-level rope_theta + rope_scaling, torch_dtype); the others keep the "
        "transformers>=5 layout (rope_parameters with rope_theta inside, dtype). '' for none. "
        "(default: %(default)s)",
    )
    ap.add_argument(
        "--prompt-lengths",
        default=",".join(map(str, PROMPT_LENGTHS)),
        help="comma-separated prompt lengths incl. BOS (default: %(default)s)",
    )
    ap.add_argument("--max-folder-bytes", type=int, default=850_000, help="fail if a model folder exceeds this")
    args = ap.parse_args()

    specs = model_specs()
    wanted = [m for m in args.models.split(",") if m]
    legacy = {m for m in args.legacy_config.split(",") if m}
    for m in wanted + sorted(legacy):
        if m not in specs:
            sys.exit(f"unknown model {m!r}; known: {sorted(specs)}")

    os.makedirs(args.out, exist_ok=True)
    prompts = make_prompts([int(x) for x in args.prompt_lengths.split(",") if x])
    summary = []
    for name in wanted:
        info = build_one(name, specs[name], args.out, prompts, name in legacy)
        assert info["total_bytes"] <= args.max_folder_bytes, (
            f"{name}: folder is {info['total_bytes']} bytes > {args.max_folder_bytes}"
        )
        summary.append(info)
        print(
            f"{name}: {info['total_bytes']} bytes, min greedy margin {info['min_greedy_margin']:.4g}, "
            f"min prefill margin {info['min_prefill_margin']:.4g}, bf16 max|diff| {info['bf16_max_abs_diff']:.4g}, "
            f"bf16 greedy == fp32: {info['bf16_greedy_matches_fp32']}"
        )
        for n, s in info["files"].items():
            print(f"    {s:8d}  {n}")
    print(f"transformers {transformers.__version__}, torch {torch.__version__}, safetensors {safetensors.__version__}")


if __name__ == "__main__":
    main()
