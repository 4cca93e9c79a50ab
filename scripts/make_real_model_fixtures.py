#!/usr/bin/env python3
"""Write Hugging Face reference outputs of the real models for the C++ tests.

    .venv/bin/python scripts/make_real_model_fixtures.py [--model NAME ...] [--models-dir DIR] [--shared DIR]
    .venv/bin/python scripts/make_real_model_fixtures.py --add-fp64 [--check-fp32] [--model NAME ...]

For each model (converted by `scripts/get_model.sh NAME` into <models-dir>/<NAME>/) this writes
tests/fixtures/real/<NAME>/reference.json with:

  * versions (transformers, torch, tokenizers), model name, GGUF sha256, attention implementations;
  * prompt_ids: a 2,000-token LongBench qasper prompt (first MiniLongBench qasper record, the
    official LongBench `qasper` template, the model's chat template, ids truncated in the middle;
    see `prompt_recipe` in the output);
  * greedy_new_tokens: 32 greedy tokens, float32, eager attention, not stopping at EOS
    (explicit KV-cache loop; each step's top-1/top-2 logit margin in greedy_margins);
  * for the last 64 prompt positions: top_ids (top-20 of the float32 eager logits), logits_fp32
    (those 20 logits), logits_fp32_sdpa (same ids, attn_implementation="sdpa", float32) and
    logits_bf16 (same ids, the checkpoint loaded in bfloat16, eager), plus eager_vs_sdpa_max_abs
    (over the whole vocabulary at those positions), bf16_vs_fp32_max_abs / _mean_abs (over the
    stored top-20 values);
  * a float64 reference (FP64_KEYS, appended after the keys above): logits_fp64 (same positions and
    top_ids; the checkpoint loaded with dtype=torch.float64, eager, and HF's float32 islands -- RMSNorm's
    float32 upcast, the eager softmax's dtype=float32, RoPE's float32 inv_freq/cos/sin -- replaced by
    float64, checked by a dispatch-level audit that no floating op result is anything but float64),
    {fp32_eager,fp32_sdpa,bf16}_vs_fp64_max_abs / _mean_abs over the stored 64x20 values,
    hf_stock_fp64_vs_fp64_max_abs (the same run without the float64 fixes), fp64_note, fp64_wall_times.

--add-fp64 adds (or replaces) only the float64 keys of an existing reference.json: prompt_ids and top_ids
are taken from the file (prompt_ids re-derived from the recipe and compared; with --check-fp32 the
float32 eager run is repeated and must reproduce top_ids and logits_fp32 exactly); every other key is
kept, in order and byte-identical.

CPU, torch.set_num_threads(2). The Qwen2.5-Coder-1.5B float32 passes take minutes.
"""
import argparse
import contextlib
import gc
import hashlib
import json
import os
import platform
import sys
import time
import types

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MODELS = ["smollm2-135m-instruct", "qwen2.5-coder-1.5b-instruct"]
PROMPT_TOKENS = 2000
LAST_POSITIONS = 64
TOP_K = 20
NEW_TOKENS = 32
FP64_KEYS = ["logits_fp64", "fp32_eager_vs_fp64_max_abs", "fp32_eager_vs_fp64_mean_abs",
             "fp32_sdpa_vs_fp64_max_abs", "fp32_sdpa_vs_fp64_mean_abs", "bf16_vs_fp64_max_abs",
             "bf16_vs_fp64_mean_abs", "hf_stock_fp64_vs_fp64_max_abs", "fp64_note", "fp64_wall_times"]

MINI_PREFIX = ("Answer the question based on the given passages. Only give me the answer and do not output any "
               "other words.\n\nThe following are given passages.\n")
MINI_MIDDLE = ("\n\nAnswer the question based on the given passages. Only give me the answer and do not output any "
               "other words.\n\nQuestion: ")
MINI_SUFFIX = "\nAnswer:"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def f32(x):
    """A float32 as the shortest decimal that reads back to the same float32."""
    return float(str(np.float32(x)))


def sha256_bytes(b):
    return hashlib.sha256(b).hexdigest()


def qasper_prompt(shared):
    """LongBench's qasper prompt for the first MiniLongBench qasper record. MiniLongBench stores only
    the OpenCompass-formatted prompt, so context and question are cut back out of it."""
    path = os.path.join(shared, "data", "longbench", "mini", "MiniLongBench_qasper.json")
    with open(path, encoding="utf-8") as f:
        rec = json.load(f)["0"]
    op = rec["origin_prompt"]
    if not (op.startswith(MINI_PREFIX) and op.endswith(MINI_SUFFIX) and op.count(MINI_MIDDLE) == 1):
        raise SystemExit(f"{path}: record 0 origin_prompt does not have the expected OpenCompass layout")
    context, question = op[len(MINI_PREFIX):-len(MINI_SUFFIX)].split(MINI_MIDDLE)
    with open(os.path.join(shared, "data", "longbench", "config", "dataset2prompt.json"), encoding="utf-8") as f:
        template = json.load(f)["qasper"]
    return template.format(context=context, input=question), context, question


def build_prompt(tok, shared):
    prompt, context, question = qasper_prompt(shared)
    text = tok.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False)
    full_ids = tok(text, add_special_tokens=False)["input_ids"]
    if len(full_ids) > PROMPT_TOKENS:
        ids = full_ids[:PROMPT_TOKENS // 2] + full_ids[-(PROMPT_TOKENS - PROMPT_TOKENS // 2):]
    else:
        ids = list(full_ids)
    return prompt, question, text, full_ids, ids


def gguf_sha256(model_dir):
    stamp_path = os.path.join(model_dir, ".complete")
    if os.path.exists(stamp_path):
        for line in open(stamp_path):
            if line.startswith("gguf_sha256="):
                return line.strip().split("=", 1)[1]
    return None


def load(path, dtype, attn):
    from transformers import AutoModelForCausalLM
    m = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, attn_implementation=attn)
    m.eval()
    return m


@torch.no_grad()
def last_logits(model, ids, k=LAST_POSITIONS, use_cache=False):
    out = model(input_ids=ids, use_cache=use_cache, logits_to_keep=k)
    return out.logits[0].float(), (out.cache if use_cache else None)


@torch.no_grad()
def greedy(model, first_logits, past, n):
    """Greedy continuation that does not stop at EOS (argmax over the full vocabulary each step)."""
    toks, margins = [], []
    logits = first_logits
    for _ in range(n):
        top2 = torch.topk(logits, 2)
        t = int(top2.indices[0])
        toks.append(t)
        margins.append(f32(top2.values[0] - top2.values[1]))
        out = model(input_ids=torch.tensor([[t]]), cache=past, use_cache=True)
        past = out.cache
        logits = out.logits[0, -1].float()
    return toks, margins


class FloatAudit(TorchDispatchMode):
    """Counts, per aten op, the floating-point results whose dtype is not float64."""

    def __init__(self):
        super().__init__()
        self.non_fp64 = {}

    def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            if isinstance(o, torch.Tensor) and o.is_floating_point() and o.dtype != torch.float64:
                key = f"{func}->{o.dtype}"
                self.non_fp64[key] = self.non_fp64.get(key, 0) + 1
        return out


def _rms_norm_fp64(self, hidden_states):
    # HF's Llama/Qwen2 RMSNorm with the float32 upcast replaced by float64
    input_dtype = hidden_states.dtype
    hidden_states = hidden_states.to(torch.float64)
    variance = hidden_states.pow(2).mean(-1, keepdim=True)
    hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
    return self.weight * hidden_states.to(input_dtype)


def _rope_fp64(self, x, position_ids):
    # HF's default RoPE (compute_default_rope_parameters + forward) with inv_freq, freqs, cos, sin in float64
    cfg = self.config
    base = cfg.rope_parameters["rope_theta"]
    dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(torch.float64) / dim))
    freqs = position_ids[..., None].to(torch.float64) * inv_freq.to(x.device)
    emb = torch.cat((freqs, freqs), dim=-1)
    return (emb.cos() * self.attention_scaling).to(x.dtype), (emb.sin() * self.attention_scaling).to(x.dtype)


@contextlib.contextmanager
def full_float64(model):
    """Makes a float64 Llama/Qwen2 HF model compute in float64 end to end: HF keeps RMSNorm statistics,
    the eager softmax and RoPE in float32 even for float64 weights. Instance forwards are replaced for
    RMSNorm and rotary modules; the modeling module's eager_attention_forward is swapped for the
    duration (same code, softmax in the query dtype)."""
    mod = sys.modules[type(model).__module__]
    repeat_kv = mod.repeat_kv

    def eager_attention_forward(module, query, key, value, attention_mask, scaling, dropout=0.0, **kwargs):
        key_states = repeat_kv(key, module.num_key_value_groups)
        value_states = repeat_kv(value, module.num_key_value_groups)
        attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling
        if attention_mask is not None:
            attn_weights = attn_weights + attention_mask
        attn_weights = torch.nn.functional.softmax(attn_weights, dim=-1, dtype=query.dtype)
        attn_weights = torch.nn.functional.dropout(attn_weights, p=dropout, training=module.training)
        attn_output = torch.matmul(attn_weights, value_states)
        return attn_output.transpose(1, 2).contiguous(), attn_weights

    n_norm = n_rope = 0
    for m in model.modules():
        cls = type(m).__name__
        if cls.endswith("RMSNorm"):
            m.forward = types.MethodType(_rms_norm_fp64, m)
            n_norm += 1
        elif cls.endswith("RotaryEmbedding"):
            if m.rope_type != "default" or m.attention_scaling != 1.0:
                raise SystemExit(f"{cls}: rope_type {m.rope_type!r} is not handled by full_float64")
            m.forward = types.MethodType(_rope_fp64, m)
            n_rope += 1
    if n_norm == 0 or n_rope != 1:
        raise SystemExit(f"full_float64: found {n_norm} RMSNorm and {n_rope} rotary modules")
    orig = mod.eager_attention_forward
    mod.eager_attention_forward = eager_attention_forward
    try:
        yield
    finally:
        mod.eager_attention_forward = orig


@torch.no_grad()
def fp64_last_logits(model_dir, ids_t, full, k=LAST_POSITIONS):
    """float64 eager logits (k x vocab, float64) at the last k positions; lm_head only on those
    (logits_to_keep). full=True: with full_float64. Returns (logits, audit of non-float64 results, seconds)."""
    t = time.time()
    m = load(model_dir, torch.float64, "eager")
    audit = FloatAudit()
    with (full_float64(m) if full else contextlib.nullcontext()), audit:
        out = m(input_ids=ids_t, use_cache=False, logits_to_keep=k)
    logits = out.logits[0].detach().clone()
    if logits.dtype != torch.float64 or logits.shape[0] != k:
        raise SystemExit(f"fp64 logits: unexpected {logits.dtype} {tuple(logits.shape)}")
    del m, out
    gc.collect()
    return logits, audit.non_fp64, round(time.time() - t, 1)


def fp64_fields(name, model_dir, ids, top_ids, stored):
    """The FP64_KEYS entries. top_ids: 64x20 ids; stored: {"logits_fp32": ..., "logits_fp32_sdpa": ...,
    "logits_bf16": ...} as the 64x20 lists written to the file (float32 values as read back)."""
    ids_t = torch.tensor([ids])
    top = torch.tensor(top_ids, dtype=torch.int64)
    full, audit, t_full = fp64_last_logits(model_dir, ids_t, True)
    if audit:
        raise SystemExit(f"[{name}] float64 run has non-float64 results: {audit}")
    log(f"[{name}] fp64 (full float64, audit clean) {t_full}s")
    stock, stock_audit, t_stock = fp64_last_logits(model_dir, ids_t, False)
    log(f"[{name}] fp64 (HF stock) {t_stock}s; its non-float64 results: {stock_audit}")
    g64 = torch.gather(full, 1, top)
    agree = int((full.argmax(-1) == top[:, 0]).sum())
    log(f"[{name}] fp64 argmax over the vocabulary == float32 top-1 at {agree}/{top.shape[0]} positions")
    doc = {"logits_fp64": [[float(v) for v in row] for row in g64.tolist()]}
    for key, field in (("fp32_eager", "logits_fp32"), ("fp32_sdpa", "logits_fp32_sdpa"), ("bf16", "logits_bf16")):
        d = (torch.tensor(stored[field], dtype=torch.float64) - g64).abs()
        doc[f"{key}_vs_fp64_max_abs"] = float(d.max())
        doc[f"{key}_vs_fp64_mean_abs"] = float(d.mean())
    doc["hf_stock_fp64_vs_fp64_max_abs"] = float((torch.gather(stock, 1, top) - g64).abs().max())
    doc["fp64_note"] = (
        "logits_fp64: the same checkpoint loaded with dtype=torch.float64, attn_implementation='eager', "
        "forward over prompt_ids with logits_to_keep=64 (lm_head on the last 64 hidden states), gathered at "
        "top_ids, written as Python float repr (full float64). HF keeps three float32 islands in a float64 "
        "model (RMSNorm upcasts to float32, eager softmax uses dtype=float32, RoPE inv_freq/cos/sin in "
        "float32); these were replaced by the same code in float64, and a TorchDispatchMode audit found no "
        "floating result other than float64. hf_stock_fp64_vs_fp64_max_abs: the plain HF float64 run "
        "(float32 islands kept) against logits_fp64, over the 64x20 stored ids. X_vs_fp64_max_abs / "
        "_mean_abs: max / mean over the 64x20 entries of |X - logits_fp64| in float64, X being the stored "
        "logits_fp32 (eager), logits_fp32_sdpa, logits_bf16 values as written in this file. CPU, "
        f"{torch.get_num_threads()} threads, transformers {__import__('transformers').__version__}, torch "
        f"{torch.__version__}.")
    doc["fp64_wall_times"] = {"fp64_full_s": t_full, "fp64_hf_stock_s": t_stock}
    assert list(doc) == FP64_KEYS
    return doc


def add_fp64(name, model_dir, shared, out_path, check_fp32):
    """Adds / replaces the FP64_KEYS of an existing reference.json; the other keys stay byte-identical."""
    from transformers import AutoTokenizer

    t0 = time.time()
    with open(out_path, encoding="utf-8") as f:
        original = f.read()
    doc = json.loads(original)
    old = {k: v for k, v in doc.items() if k not in FP64_KEYS}
    if dump(doc) != original:
        raise SystemExit(f"{out_path}: not in this script's dump() layout; refusing to rewrite it")
    if doc.get("model") != name:
        raise SystemExit(f"{out_path}: model {doc.get('model')!r} != {name!r}")
    sha = gguf_sha256(model_dir)
    if doc.get("gguf_sha256") != sha:
        raise SystemExit(f"{out_path}: gguf_sha256 {doc.get('gguf_sha256')} != model folder's {sha}")
    ids, top_ids = doc["prompt_ids"], doc["top_ids"]
    tok = AutoTokenizer.from_pretrained(model_dir)
    if build_prompt(tok, shared)[4] != ids:
        raise SystemExit(f"[{name}] prompt_ids in {out_path} are not reproduced by the prompt recipe")
    if len(top_ids) != LAST_POSITIONS or any(len(r) != TOP_K for r in top_ids):
        raise SystemExit(f"{out_path}: top_ids is not {LAST_POSITIONS}x{TOP_K}")
    if check_fp32:
        t = time.time()
        m = load(model_dir, torch.float32, "eager")
        eager, _ = last_logits(m, torch.tensor([ids]))
        del m
        gc.collect()
        top = torch.topk(eager, TOP_K, dim=-1)
        if top.indices.tolist() != top_ids:
            raise SystemExit(f"[{name}] float32 eager rerun does not reproduce top_ids")
        vals = [[f32(v) for v in row] for row in top.values.tolist()]
        if vals != doc["logits_fp32"]:
            diff = (torch.tensor(vals, dtype=torch.float64) - torch.tensor(doc["logits_fp32"], dtype=torch.float64))
            raise SystemExit(f"[{name}] float32 eager rerun: logits_fp32 differ, max abs {float(diff.abs().max())}")
        log(f"[{name}] float32 eager rerun reproduces top_ids and logits_fp32 exactly ({round(time.time() - t, 1)}s)")
    new = fp64_fields(name, model_dir, ids, top_ids, doc)
    for k in FP64_KEYS:  # existing fp64 keys keep their place, new ones go to the end
        doc[k] = new[k]
    text = dump(doc)
    check = {k: v for k, v in json.loads(text).items() if k not in FP64_KEYS}
    if dump(check) != dump(old):
        raise SystemExit("internal error: old keys changed")
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(text)
    report_fp64(name, doc, out_path, time.time() - t0)


def report_fp64(name, doc, out_path, total):
    log(f"[{name}] vs fp64 max/mean abs: fp32 eager {doc['fp32_eager_vs_fp64_max_abs']!r} / "
        f"{doc['fp32_eager_vs_fp64_mean_abs']!r}, fp32 sdpa {doc['fp32_sdpa_vs_fp64_max_abs']!r} / "
        f"{doc['fp32_sdpa_vs_fp64_mean_abs']!r}, bf16 {doc['bf16_vs_fp64_max_abs']!r} / "
        f"{doc['bf16_vs_fp64_mean_abs']!r}; HF stock fp64 vs fp64 {doc['hf_stock_fp64_vs_fp64_max_abs']!r}; "
        f"{os.path.getsize(out_path)} bytes -> {os.path.relpath(out_path, ROOT)}; {round(total, 1)}s")


def run_model(name, model_dir, shared, out_path):
    import tokenizers
    import transformers
    from transformers import AutoTokenizer

    times = {}
    t0 = time.time()
    tok = AutoTokenizer.from_pretrained(model_dir)
    prompt, question, text, full_ids, ids = build_prompt(tok, shared)
    ids_t = torch.tensor([ids])
    log(f"[{name}] prompt: {len(text)} chars, {len(full_ids)} ids -> {len(ids)}")

    gguf_sha = gguf_sha256(model_dir)

    # float32, eager: reference logits + greedy continuation
    t = time.time()
    m = load(model_dir, torch.float32, "eager")
    eager, past = last_logits(m, ids_t, use_cache=True)
    times["fp32_eager_prefill_s"] = round(time.time() - t, 1)
    log(f"[{name}] fp32 eager prefill {times['fp32_eager_prefill_s']}s")
    t = time.time()
    new_tokens, margins = greedy(m, eager[-1], past, NEW_TOKENS)
    times["fp32_eager_greedy_s"] = round(time.time() - t, 1)
    # cross-check the explicit loop against generate() up to the first EOS
    t = time.time()
    gen = m.generate(ids_t, max_new_tokens=NEW_TOKENS, do_sample=False)[0, len(ids):].tolist()
    times["fp32_eager_generate_check_s"] = round(time.time() - t, 1)
    if new_tokens[:len(gen)] != gen:
        raise SystemExit(f"[{name}] explicit greedy loop {new_tokens} != generate() {gen}")
    log(f"[{name}] greedy {times['fp32_eager_greedy_s']}s: {tok.decode(new_tokens, skip_special_tokens=False)!r}")
    del m, past

    # float32, sdpa
    t = time.time()
    m = load(model_dir, torch.float32, "sdpa")
    sdpa, _ = last_logits(m, ids_t)
    times["fp32_sdpa_prefill_s"] = round(time.time() - t, 1)
    del m
    # bfloat16, eager
    t = time.time()
    m = load(model_dir, torch.bfloat16, "eager")
    bf16, _ = last_logits(m, ids_t)
    times["bf16_eager_prefill_s"] = round(time.time() - t, 1)
    del m
    log(f"[{name}] sdpa {times['fp32_sdpa_prefill_s']}s, bf16 {times['bf16_eager_prefill_s']}s")

    top = torch.topk(eager, TOP_K, dim=-1)
    top_ids = top.indices
    gather = lambda x: torch.gather(x, 1, top_ids)  # noqa: E731
    bf16_top, fp32_top = gather(bf16), top.values
    doc = {
        "model": name,
        "gguf_sha256": gguf_sha,
        "versions": {"transformers": transformers.__version__, "torch": torch.__version__,
                     "tokenizers": tokenizers.__version__, "python": platform.python_version()},
        "attn_implementation": {"reference": "eager", "logits_fp32_sdpa": "sdpa", "logits_bf16": "eager"},
        "dtype": {"reference": "float32", "logits_bf16": "bfloat16 (the float32 checkpoint loaded with "
                  "dtype=torch.bfloat16; logits converted to float32)"},
        "prompt_recipe": (
            "MiniLongBench_qasper.json record \"0\" (shared data/longbench/mini): its origin_prompt is "
            f"{MINI_PREFIX!r} + context + {MINI_MIDDLE!r} + question + {MINI_SUFFIX!r}; context and question are cut "
            "out of it and formatted with LongBench's dataset2prompt.json['qasper'] (prompt = "
            "template.format(context=context, input=question)); text = tokenizer.apply_chat_template("
            "[{'role':'user','content':prompt}], add_generation_prompt=True, tokenize=False) with the model "
            "folder's chat_template; full_ids = tokenizer(text, add_special_tokens=False).input_ids; if "
            f"len(full_ids) > {PROMPT_TOKENS}: prompt_ids = full_ids[:{PROMPT_TOKENS // 2}] + "
            f"full_ids[-{PROMPT_TOKENS - PROMPT_TOKENS // 2}:] (middle cut on ids, no re-tokenization; chat "
            "template tokens at both ends stay)"),
        "prompt_text_chars": len(text),
        "prompt_text_utf8_bytes": len(text.encode("utf-8")),
        "prompt_text_sha256": sha256_bytes(text.encode("utf-8")),
        "prompt_longbench_sha256": sha256_bytes(prompt.encode("utf-8")),
        "question": question,
        "n_ids_before_truncation": len(full_ids),
        "full_ids_sha256": sha256_bytes(np.asarray(full_ids, dtype="<i4").tobytes()),
        "prompt_ids": ids,
        "greedy": "32 argmax tokens after prompt_ids, float32 eager, explicit KV-cache loop, not stopping at EOS",
        "greedy_new_tokens": new_tokens,
        "greedy_margins": margins,
        "greedy_text": tok.decode(new_tokens, skip_special_tokens=False),
        "positions": f"the last {LAST_POSITIONS} prompt positions ({len(ids) - LAST_POSITIONS}..{len(ids) - 1}), "
                     "row i = position len(prompt_ids) - 64 + i; logits predict the next token",
        "top_ids": top_ids.tolist(),
        "logits_fp32": [[f32(v) for v in row] for row in fp32_top.tolist()],
        "logits_fp32_sdpa": [[f32(v) for v in row] for row in gather(sdpa).tolist()],
        "logits_bf16": [[f32(v) for v in row] for row in bf16_top.tolist()],
        "eager_vs_sdpa_max_abs": f32((eager - sdpa).abs().max()),
        "eager_vs_sdpa_max_abs_scope": f"all {eager.shape[1]} vocab logits at the {LAST_POSITIONS} positions",
        "bf16_vs_fp32_max_abs": f32((bf16_top - fp32_top).abs().max()),
        "bf16_vs_fp32_mean_abs": f32((bf16_top - fp32_top).abs().mean()),
        "bf16_vs_fp32_scope": "the stored top-20 values",
        "bf16_top1_agreement": f32((bf16.argmax(-1) == eager.argmax(-1)).float().mean()),
        "threads": torch.get_num_threads(),
        "wall_times": times,
    }
    doc.update(fp64_fields(name, model_dir, ids, doc["top_ids"], doc))
    times["total_s"] = round(time.time() - t0, 1)
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(dump(doc))
    log(f"[{name}] eager_vs_sdpa_max_abs {doc['eager_vs_sdpa_max_abs']}, bf16_vs_fp32 max "
        f"{doc['bf16_vs_fp32_max_abs']} mean {doc['bf16_vs_fp32_mean_abs']}, top1 agreement "
        f"{doc['bf16_top1_agreement']}; {os.path.getsize(out_path)} bytes -> {os.path.relpath(out_path, ROOT)}; "
        f"times {times}")
    report_fp64(name, doc, out_path, time.time() - t0)


def dump(doc):
    """JSON with one line per matrix row (diff-friendly, compact)."""
    lines = ["{"]
    items = list(doc.items())
    for i, (k, v) in enumerate(items):
        comma = "," if i + 1 < len(items) else ""
        if isinstance(v, list) and v and isinstance(v[0], list):
            rows = ",\n".join("    " + json.dumps(r, separators=(",", ":")) for r in v)
            lines.append(f"  {json.dumps(k)}: [\n{rows}\n  ]{comma}")
        else:
            sep = (",", ":") if isinstance(v, list) else (", ", ": ")
            lines.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False, separators=sep)}{comma}")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == json.loads(json.dumps(doc))
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", action="append", choices=MODELS, help="default: both")
    ap.add_argument("--models-dir", default=os.environ.get(
        "RIPPLEKV_MODEL_CACHE", os.path.expanduser("~/.cache/ripplekv/models")))
    ap.add_argument("--shared", default=os.path.normpath(os.path.join(ROOT, "..", "shared")))
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "fixtures", "real"))
    ap.add_argument("--add-fp64", action="store_true",
                    help="only add/replace the float64 keys of the existing <out>/<NAME>/reference.json")
    ap.add_argument("--check-fp32", action="store_true",
                    help="with --add-fp64: rerun float32 eager and require top_ids/logits_fp32 to match exactly")
    args = ap.parse_args()
    if args.check_fp32 and not args.add_fp64:
        ap.error("--check-fp32 goes with --add-fp64")
    torch.set_num_threads(2)
    torch.manual_seed(0)
    for name in args.model or MODELS:
        d = os.path.join(args.models_dir, name)
        if not os.path.exists(os.path.join(d, ".complete")):
            raise SystemExit(f"{d} is not a finished conversion: run scripts/get_model.sh {name} first")
        out_path = os.path.join(args.out, name, "reference.json")
        if args.add_fp64:
            add_fp64(name, d, args.shared, out_path, args.check_fp32)
        else:
            run_model(name, d, args.shared, out_path)


if __name__ == "__main__":
    main()
