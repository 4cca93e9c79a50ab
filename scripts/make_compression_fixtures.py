#!/usr/bin/env python3
"""Write reference fixtures for ripplekv's KV-cache compression methods.

The script

  * builds a tiny random LlamaForCausalLM with `transformers` (float32, eager attention,
    fixed seed; vocab 256, hidden 64, 4 layers, 8 query heads, 2 KV heads, head_dim 16,
    intermediate 128, rope_theta 10000, initializer_range 0.2, RMSNorm weights ~ U[0.5, 1.5))
    and saves it with `save_pretrained(safe_serialization=True)` to `<out>/model/`,
  * runs a 160-token seeded prompt (BOS=1 first) through a re-implementation of the HF Llama
    forward that uses the saved model's own modules (its logits are asserted equal to HF's
    within 1e-5), capturing per layer the post-RoPE query states [1,8,T,16], the post-RoPE key
    states [1,2,T,16] (not repeated), the value states and the hidden states before the layer
    and after the attention residual,
  * applies ports of the reference compression methods (KVCache-Factory SnapKV / PyramidKV /
    H2O / StreamingLLM clusters, NVIDIA kvpress KnormPress, CAKE, SqueezeAttention) to get the
    kept prompt positions per layer and KV head,
  * decodes one token (the greedy argmax of the prefill's last logits) at position T against
    each compressed cache and records its logits, and
  * writes everything to `<out>/reference.json`.

Conventions (the C++ side computes exactly the same torch ops in the same order):
  * B ("budget") = prompt tokens a layer keeps INCLUDING the observation window W
    (KVCache-Factory's max_capacity_prompt); the window = the last W prompt tokens.
  * Window attention probabilities per layer:
        q = Q[:, :, T-W:, :].float(); k = repeat_kv(K, 4).float()
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(16)
        scores.masked_fill_(~mask, float('-inf'))   # mask[i, j] = j <= T-W+i, shape [W, T]
        probs = torch.softmax(scores, -1)            # [1, 8, W, T]
  * Kept positions are written per layer per KV head in ascending order; decoding attends with
    each KV head's own kept tokens (original RoPE'd keys, original positions) plus the new token
    at position T.

Everything is seeded; re-running reproduces the files byte for byte with the same torch /
transformers versions. CPU only, one thread.

Usage:
    .venv/bin/python scripts/make_compression_fixtures.py --out tests/fixtures/compression
"""

import argparse
import hashlib
import inspect
import json
import math
import os
import platform
import random
import shutil
import sys

import numpy as np
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
torch.set_num_interop_threads(1)
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import transformers  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM  # noqa: E402
from transformers.utils import logging as hf_logging  # noqa: E402
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb, repeat_kv  # noqa: E402

hf_logging.disable_progress_bar()

FORMAT_VERSION = 1

# ----------------------------------------------------------------------------- model / prompt
VOCAB = 256
HIDDEN = 64
LAYERS = 4
HEADS = 8
KV_HEADS = 2
GROUPS = HEADS // KV_HEADS
HEAD_DIM = 16
INTERMEDIATE = 128
ROPE_THETA = 10000.0
RMS_EPS = 1e-6
BOS_ID = 1
EOS_ID = 2
T = 160  # prompt length
W = 8  # observation window used by every windowed case

# Picked once with --search-seeds 8 (model seeds 0..7 x prompt seeds 20250101..20250103): fewest
# top-k boundary ties over all cases (21), then the largest smallest untied boundary gap (6.0e-5);
# it also has a clear squeeze k-means optimum and argmax margins >= 0.11 for every logits row.
MODEL_SEED = 6
PROMPT_SEED = 20250102

FP32_SIG_DIGITS = 9  # round-trips every float32

# Reference sources (commits are the ones read for this port).
SRC_KVF = "Zefan-Cai/KVCache-Factory@5fb995d72366fff6d00620cd33fad99b38725907:pyramidkv/pyramidkv_utils.py"
SRC_KVF_LLAMA = "Zefan-Cai/KVCache-Factory@485af3cb33433f7d8814388d5125c7813e3bc458:pyramidkv/llama_model.py"
SRC_SNAPKV = "FasterDecoding/SnapKV@395b54dce7866cb2cffdebdc9f641fd0821a2c30:snapkv/monkeypatch/snapkv_utils.py"
SRC_SNAPKV_PRESS = "NVIDIA/kvpress@00dd63a37802be24d89ebb96505999fc738c7e5c:kvpress/presses/snapkv_press.py"
SRC_KNORM_PRESS = "NVIDIA/kvpress@08a43bfc934e741c7bff984edf1614f0763940e0:kvpress/presses/knorm_press.py"
SRC_SCORER_PRESS = "NVIDIA/kvpress@0603dec4626985bc8c2b05a268ee4a3f4193a0b3:kvpress/presses/scorer_press.py"
SRC_CAKE_UTILS = "qtris123/cakekv@e6adc5e237ed78874923b355399c1ffe0a789db1:cake/utils.py"
SRC_CAKE_CACHE = "qtris123/cakekv@e6adc5e237ed78874923b355399c1ffe0a789db1:cake/cake_cache.py"
SRC_CAKE_LLAMA = "qtris123/cakekv@e6adc5e237ed78874923b355399c1ffe0a789db1:cake/model/modify_llama.py"
SRC_CAKE_PRED = "qtris123/cakekv@2f96c96d47348db81dd54b31f3ce405e55f2ca42:experiments/LongBench/pred_cake.py"
SRC_SQUEEZE = "hetailang/SqueezeAttention@22c976e9cda95396079a3ab21cb0e62e32658fab:utils_hh/modify_llama_drop.py"
SRC_SQUEEZE_PRED = "hetailang/SqueezeAttention@9e782459fc84f1f0e5e90433e6c575df301e4667:pred.py"


def make_config():
    return LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=HIDDEN,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        num_key_value_heads=KV_HEADS,
        head_dim=HEAD_DIM,  # q_proj: 64 -> 128 != hidden_size
        intermediate_size=INTERMEDIATE,
        rms_norm_eps=RMS_EPS,
        max_position_embeddings=256,
        initializer_range=0.2,
        hidden_act="silu",
        bos_token_id=BOS_ID,
        eos_token_id=EOS_ID,
        tie_word_embeddings=False,
        rope_parameters={"rope_type": "default", "rope_theta": ROPE_THETA},
    )


def build_model(seed):
    torch.manual_seed(seed)
    cfg = make_config()
    cfg._attn_implementation = "eager"
    model = LlamaForCausalLM(cfg).to(torch.float32).eval()
    g = torch.Generator().manual_seed(seed + 7777)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            if name.endswith("norm.weight"):
                p.copy_(0.5 + torch.rand(p.shape, generator=g))  # U[0.5, 1.5)
    return model


def make_prompt(seed):
    rng = random.Random(seed)
    # ids 0..2 are pad/bos/eos-like; keep them out of the body of the prompt
    return [BOS_ID] + [rng.randrange(3, VOCAB) for _ in range(T - 1)]


def to_legacy_config(cfg):
    """transformers>=5 config dict -> the pre-v5 layout real Hub checkpoints use (top-level
    rope_theta + rope_scaling, torch_dtype), as tests/fixtures/hf does."""
    cfg = dict(cfg)
    rp = dict(cfg.pop("rope_parameters"))
    theta = rp.pop("rope_theta")
    out = {}
    for k, v in cfg.items():
        out["torch_dtype" if k == "dtype" else k] = v
    out["rope_theta"] = theta
    out["rope_scaling"] = None if rp.get("rope_type", "default") == "default" else rp
    return dict(sorted(out.items()))


def save_model(model, model_dir):
    if os.path.isdir(model_dir):
        shutil.rmtree(model_dir)
    model.save_pretrained(model_dir, safe_serialization=True)
    cfg_path = os.path.join(model_dir, "config.json")
    with open(cfg_path) as f:
        cfg = json.load(f)
    with open(cfg_path, "w") as f:
        json.dump(to_legacy_config(cfg), f, indent=2, sort_keys=True)
        f.write("\n")
    reloaded = LlamaForCausalLM.from_pretrained(model_dir, dtype=torch.float32, attn_implementation="eager")
    return reloaded.eval()


# ----------------------------------------------------------------------------- forward
class Prefill:
    """Per-layer captures of the prompt forward pass."""

    def __init__(self):
        self.Q, self.K, self.V = [], [], []  # [1,8,T,16], [1,2,T,16], [1,2,T,16]
        self.h_in, self.h_attn = [], []  # [1,T,64]: before the layer / after attention residual
        self.logits = None  # [T, 256]


def _attn_eager(q, k, v, mask_add):
    """transformers.models.llama.modeling_llama.eager_attention_forward (no dropout)."""
    k_r = repeat_kv(k, GROUPS)
    v_r = repeat_kv(v, GROUPS)
    w = torch.matmul(q, k_r.transpose(2, 3)) * (HEAD_DIM ** -0.5)
    if mask_add is not None:
        w = w + mask_add
    w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
    return torch.matmul(w, v_r).transpose(1, 2).contiguous()


def _qkv(layer, x, cos, sin):
    attn = layer.self_attn
    bsz, n, _ = x.shape
    q = attn.q_proj(x).view(bsz, n, HEADS, HEAD_DIM).transpose(1, 2)
    k = attn.k_proj(x).view(bsz, n, KV_HEADS, HEAD_DIM).transpose(1, 2)
    v = attn.v_proj(x).view(bsz, n, KV_HEADS, HEAD_DIM).transpose(1, 2)
    q, k = apply_rotary_pos_emb(q, k, cos, sin)
    return q, k, v


@torch.no_grad()
def run_prefill(model, ids):
    m = model.model
    input_ids = torch.tensor([ids], dtype=torch.long)
    n = input_ids.shape[1]
    h = m.embed_tokens(input_ids)
    pos = torch.arange(n).unsqueeze(0)
    cos, sin = m.rotary_emb(h, pos)
    causal = torch.full((n, n), torch.finfo(torch.float32).min).triu(1)[None, None]
    out = Prefill()
    for layer in m.layers:
        out.h_in.append(h)
        x = layer.input_layernorm(h)
        q, k, v = _qkv(layer, x, cos, sin)
        out.Q.append(q)
        out.K.append(k)
        out.V.append(v)
        a = _attn_eager(q, k, v, causal).reshape(1, n, HEADS * HEAD_DIM)
        h = h + layer.self_attn.o_proj(a)
        out.h_attn.append(h)
        h = h + layer.mlp(layer.post_attention_layernorm(h))
    out.logits = model.lm_head(m.norm(h))[0]
    return out


@torch.no_grad()
def decode_one(model, pre, token, kept):
    """Logits [256] of `token` at position T attending, per layer and KV head, to the prompt
    positions kept[layer][kv_head] (None = the full cache) plus itself."""
    m = model.model
    h = m.embed_tokens(torch.tensor([[token]], dtype=torch.long))
    cos, sin = m.rotary_emb(h, torch.tensor([[T]]))
    for li, layer in enumerate(m.layers):
        x = layer.input_layernorm(h)
        q, k_new, v_new = _qkv(layer, x, cos, sin)
        K, V = pre.K[li], pre.V[li]
        if kept is None:
            Kc, Vc = K, V
        else:
            idx = torch.tensor(kept[li], dtype=torch.long)  # [2, n] (equal counts per head)
            gi = idx.unsqueeze(-1).expand(-1, -1, HEAD_DIM)
            Kc = K[0].gather(1, gi).unsqueeze(0)
            Vc = V[0].gather(1, gi).unsqueeze(0)
        Kc = torch.cat([Kc, k_new], dim=2)
        Vc = torch.cat([Vc, v_new], dim=2)
        a = _attn_eager(q, Kc, Vc, None).reshape(1, 1, HEADS * HEAD_DIM)
        h = h + layer.self_attn.o_proj(a)
        h = h + layer.mlp(layer.post_attention_layernorm(h))
    return model.lm_head(m.norm(h))[0, 0]


# ----------------------------------------------------------------------------- scores
def window_probs(Q, K, w):
    """[1, 8, w, T] softmax attention of the last w prompt queries over all T keys."""
    n = K.shape[2]
    q = Q[:, :, n - w:, :].float()
    k = repeat_kv(K, GROUPS).float()
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(HEAD_DIM)
    mask = torch.arange(n)[None, :] <= torch.arange(n - w, n)[:, None]  # [w, T]
    scores.masked_fill_(~mask, float("-inf"))
    return torch.softmax(scores, -1)


def full_probs(Q, K):
    """[1, 8, T, T] causal softmax attention of every prompt query (H2O)."""
    n = K.shape[2]
    q = Q.float()
    k = repeat_kv(K, GROUPS).float()
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(HEAD_DIM)
    mask = torch.arange(n)[None, :] <= torch.arange(n)[:, None]  # [T, T]
    scores.masked_fill_(~mask, float("-inf"))
    return torch.softmax(scores, -1)


def pool(s, pooling, kernel):
    if pooling == "maxpool":
        return F.max_pool1d(s, kernel, stride=1, padding=kernel // 2)
    if pooling == "avgpool":
        return F.avg_pool1d(s, kernel, stride=1, padding=kernel // 2)
    if pooling == "none":
        return s
    raise ValueError(pooling)


def gqa_combine(s, combine):
    """[1, 8, L] -> [1, 2, L] over the 4 query heads of each KV head."""
    s = s.view(1, KV_HEADS, GROUPS, s.shape[-1])
    if combine == "mean":
        return s.mean(2)
    if combine == "max":
        return s.amax(2)
    if combine == "sum":
        return s.sum(2)
    raise ValueError(combine)


def snapkv_scores(probs, w, pooling, kernel, combine):
    """KVCache-Factory SnapKVCluster.update_kv scoring (SRC_KVF; identical in SRC_SNAPKV) plus the GQA combine of
    kvpress SnapKVPress.score (SRC_SNAPKV_PRESS): [1, 2, T-w]."""
    n = probs.shape[-1]
    s = probs[..., : n - w].sum(dim=-2)  # [1, 8, T-w]
    s = pool(s, pooling, kernel)
    return gqa_combine(s, combine)


def topk_with_window(s, n_top, w, n_total):
    """kept per KV head: sorted(topk(s, n_top)) + window; plus boundary diagnostics."""
    idx = s.topk(n_top, dim=-1).indices[0]  # [2, n_top]
    kept, diag = [], []
    for h in range(KV_HEADS):
        top = sorted(int(i) for i in idx[h])
        kept.append(top + list(range(n_total - w, n_total)))
        diag.append(boundary(s[0, h], n_top))
    return kept, diag


def boundary(scores_1d, n_top):
    """Gap between the n_top-th and (n_top+1)-th largest score; ties = how many positions share
    the n_top-th value (>1 means torch.topk's tie-breaking decides membership)."""
    v = scores_1d.double()
    if n_top >= v.numel() or n_top <= 0:
        return {"gap": None, "tied": 0, "tie_positions": []}
    srt = torch.sort(v, descending=True).values
    kth = srt[n_top - 1]
    gap = float(kth - srt[n_top])
    # only a problem when the tied group straddles the boundary
    if not bool(srt[n_top] == kth):
        return {"gap": gap, "tied": 0, "tie_positions": []}
    pos = sorted(int(i) for i in torch.nonzero(v == kth).flatten())
    return {"gap": gap, "tied": len(pos), "tie_positions": pos}


# ----------------------------------------------------------------------------- methods
def method_snapkv(pre, budget, w, pooling, kernel, combine):
    layers = []
    for li in range(LAYERS):
        probs = window_probs(pre.Q[li], pre.K[li], w)
        s = snapkv_scores(probs, w, pooling, kernel, combine)
        kept, diag = topk_with_window(s, budget - w, w, T)
        layers.append(dict(budget=budget, kept=kept, diag=diag))
    return layers, {}


def pyramid_schedule(q_len, w, max_capacity_prompt, num_layers, beta):
    """PyramidKVCluster.update_kv capacity schedule (SRC_KVF, class PyramidKVCluster).
    Returns (mode, per-layer count of non-window tokens kept)."""
    min_num = (max_capacity_prompt - w) // beta
    max_num = (max_capacity_prompt - w) * 2 - min_num
    if max_num >= q_len - w:
        max_num = q_len - w
        min_num = (max_capacity_prompt - w) * 2 - max_num
    steps = (max_num - min_num) // (num_layers - 1)
    caps = [max_num - layer_idx * steps for layer_idx in range(num_layers)]
    if q_len < max_capacity_prompt:
        return "no_compression", [q_len - w] * num_layers, dict(min_num=min_num, max_num=max_num, steps=steps)
    if q_len < (max_capacity_prompt - w) * 2:
        return "fallback_uniform", [max_capacity_prompt - w] * num_layers, dict(min_num=min_num, max_num=max_num, steps=steps)
    return "pyramid", caps, dict(min_num=min_num, max_num=max_num, steps=steps)


def method_pyramidkv(pre, budget, w, pooling, kernel, combine, beta):
    mode, caps, sched = pyramid_schedule(T, w, budget, LAYERS, beta)
    layers = []
    for li in range(LAYERS):
        if mode == "no_compression":
            layers.append(dict(budget=T, kept=[list(range(T))] * KV_HEADS, diag=[{"gap": None, "tied": 0, "tie_positions": []}] * KV_HEADS))
            continue
        probs = window_probs(pre.Q[li], pre.K[li], w)
        s = snapkv_scores(probs, w, pooling, kernel, combine)
        kept, diag = topk_with_window(s, caps[li], w, T)
        layers.append(dict(budget=caps[li] + w, kept=kept, diag=diag))
    return layers, dict(schedule_mode=mode, non_window_capacity=caps, **sched)


def method_h2o(pre, budget, w, combine):
    """H2OKVCluster.update_kv (SRC_KVF): causal softmax of ALL prompt queries, summed over
    queries for keys [:T-w], no pooling; GQA combine; top-(B-w) + window."""
    layers = []
    for li in range(LAYERS):
        probs = full_probs(pre.Q[li], pre.K[li])
        s = probs[..., : T - w].sum(dim=-2)  # [1, 8, T-w]
        s = gqa_combine(s, combine)
        kept, diag = topk_with_window(s, budget - w, w, T)
        layers.append(dict(budget=budget, kept=kept, diag=diag))
    return layers, {}


def method_streaming(budget, sinks):
    """StreamingLLMKVCluster.update_kv (SRC_KVF) keeps range(B-W) + the last W; in general
    `sinks` first tokens + the last B-sinks tokens."""
    recent = budget - sinks
    kept = list(range(sinks)) + list(range(T - recent, T))
    layers = [dict(budget=budget, kept=[kept] * KV_HEADS, diag=[{"gap": None, "tied": 0, "tie_positions": []}] * KV_HEADS) for _ in range(LAYERS)]
    return layers, dict(recent=recent)


def method_knorm(pre, budget):
    """kvpress KnormPress.score = -keys.norm(dim=-1) (SRC_KNORM_PRESS) with ScorerPress.compress
    top-k over all T positions (SRC_SCORER_PRESS): no observation window is forced."""
    layers = []
    for li in range(LAYERS):
        s = -pre.K[li].float().norm(dim=-1)  # [1, 2, T]
        idx = s.topk(budget, dim=-1).indices[0]
        kept = [sorted(int(i) for i in idx[h]) for h in range(KV_HEADS)]
        diag = [boundary(s[0, h], budget) for h in range(KV_HEADS)]
        layers.append(dict(budget=budget, kept=kept, diag=diag))
    return layers, {}


def cake_adjust_budgets(budget_list, total_budget, seq_len, layer_nums):
    """Port of cake.utils.adjust_budgets (SRC_CAKE_UTILS)."""
    budget_list = np.array(budget_list, dtype=int)
    excess = np.maximum(budget_list - seq_len, 0)
    budget_list = np.minimum(budget_list, seq_len)
    total_excess = np.sum(excess)
    if total_excess > 0:
        valid_indices = budget_list < seq_len
        num_valid = np.sum(valid_indices)
        if num_valid > 0:
            distribute_per_layer = total_excess // num_valid
            remainder = total_excess % num_valid
            budget_list[valid_indices] += distribute_per_layer
            budget_list[np.where(valid_indices)[0][:remainder]] += 1
    current_total_budget = np.sum(budget_list)
    budget_diff = total_budget - current_total_budget
    if budget_diff != 0:
        if budget_diff > 0:
            valid_indices = budget_list < seq_len
        else:
            valid_indices = budget_list > 1
        num_valid = np.sum(valid_indices)
        if num_valid > 0:
            adjust_per_layer = abs(budget_diff) // num_valid
            remainder = abs(budget_diff) % num_valid
            if budget_diff > 0:
                budget_list[valid_indices] += adjust_per_layer
                budget_list[np.where(valid_indices)[0][:remainder]] += 1
            else:
                budget_list[valid_indices] -= adjust_per_layer
                budget_list[np.where(valid_indices)[0][:remainder]] -= 1
    return budget_list.tolist()


def method_cake(pre, budget, w, tau1, tau2, gamma, kernel=5):
    """CAKE, non-cascading prefill eviction (pred_cake.py without --cascading).

    Per layer (SRC_CAKE_LLAMA, llama_attn_forward_cake, prefill branch), with
    A = window attention probabilities [1, 8, w, T] (softmax over all T keys):
        disp = -sum(A[..., :T-w] * log(A[..., :T-w] + 1e-10))       over ALL elements (utils.calculate_entropy)
        var  = torch.var(A[..., :T-w], dim=-2).sum(0).sum(0).sum(0)  (unbiased, over the w queries,
                                                                      then summed over batch, heads, keys)
        pref = disp ** (1/tau1) * var ** (1/tau2)                    (float32, .cpu().numpy())
        hh   = avg_pool1d((A.mean(-2) + gamma * A.var(-2))[..., :T-w], 5, pad 2, stride 1)
               .reshape(1, 2, 4, -1).mean(-2)                          (eviction indicator)
    Budgets (SRC_CAKE_CACHE, CakeprefillKVCache.__call__): total = (B - w) * L;
        b_l = pref_l / sum(pref) * total   (numpy float32), adjust_budgets(b, total, T - w, L),
        clamp to T - w; keep topk(hh_l, b_l) + the last w tokens.
    No compression when T <= B + w (CakeprefillKVCache.__call__ condition)."""
    if T <= budget + w:
        raise ValueError("CAKE does not compress when seq_len <= cache_size + window_size")
    pref_scores, hh_scores, ent, var_l = [], [], [], []
    for li in range(LAYERS):
        A = window_probs(pre.Q[li], pre.K[li], w)
        sl = A[:, :, -w:, :-w]
        a32 = sl.to(torch.float32)
        disp = -torch.sum(a32 * torch.log(a32 + 1e-10))
        disp = disp.to(dtype=torch.float32)
        var = torch.var(sl, dim=-2).sum(0).sum(0).sum(0)
        pref = (disp ** (1 / tau1) * var ** (1 / tau2)).cpu().numpy()
        attention_score = A[:, :, -w:, :]
        attn_mean = attention_score.mean(dim=-2)
        attn_var = attention_score.var(dim=-2)
        attn_cache = attn_mean + gamma * attn_var
        attn_cache = attn_cache[:, :, :-w]
        attn_cache = F.avg_pool1d(attn_cache, kernel_size=kernel, padding=kernel // 2, stride=1)
        attn_cache = attn_cache.reshape(1, KV_HEADS, GROUPS, -1)
        hh = attn_cache.mean(dim=-2)
        pref_scores.append(pref)
        hh_scores.append(hh)
        ent.append(float(disp))
        var_l.append(float(var))
    total_size = (budget - w) * LAYERS
    layer_budgets = [pref_score / sum(pref_scores) * total_size for pref_score in pref_scores]
    raw = [float(b) for b in layer_budgets]
    layer_budgets = cake_adjust_budgets(layer_budgets, total_size, T - w, LAYERS)
    layers = []
    for li in range(LAYERS):
        b = layer_budgets[li]
        if b >= T - w:
            b = T - w
        hh = hh_scores[li]
        if b > hh.shape[-1]:
            b = hh.shape[-1]
        kept, diag = topk_with_window(hh, b, w, T)
        layers.append(dict(budget=b + w, kept=kept, diag=diag))
    frac = [abs(x - round(x)) for x in raw]
    extra = dict(
        raw_budget_min_distance_to_integer=f32(min(frac)),
        entropy=[f32(x) for x in ent],
        variance=[f32(x) for x in var_l],
        pref_score=[f32(float(p)) for p in pref_scores],
        raw_budget_float32=[f32(x) for x in raw],
        non_window_budget=[int(b) for b in layer_budgets],
        total_non_window_budget=total_size,
    )
    return layers, extra


def kmeans_1d(values, k=3):
    """Exact 1-D k-means: the minimum within-cluster sum of squares over all partitions into k
    contiguous runs of the sorted values (optimal 1-D k-means clusters are contiguous). Returns
    clusters sorted by centre ascending, the best SSE and the SSE difference to the runner-up."""
    n = len(values)
    order = sorted(range(n), key=lambda i: (values[i], i))

    def sse(group):
        mu = sum(values[i] for i in group) / len(group)
        return sum((values[i] - mu) ** 2 for i in group)

    results = []

    def rec(start, parts_left, acc):
        if parts_left == 1:
            g = order[start:]
            results.append((sum(sse(x) for x in acc + [g]), acc + [g]))
            return
        for end in range(start + 1, n - parts_left + 2):
            rec(end, parts_left - 1, acc + [order[start:end]])

    rec(0, k, [])
    results.sort(key=lambda r: r[0])
    best = results[0]
    margin = (results[1][0] - best[0]) if len(results) > 1 else float("inf")
    return best[1], best[0], margin


def squeeze_budgets(pre, budget, p):
    """SqueezeAttention layer budgets (SRC_SQUEEZE, LlamaModel_squeeze.forward + the decoder
    layer's hidd_data):
        cos_l = mean_t cosine_similarity(h_in[t], h_attn[t])   (h_attn = h_in + attention output)
        KMeans(n_clusters=3) on the L values (1-D); classes sorted by centre ascending;
        class3 (highest similarity = least important) gets int(KV_class3 * T) tokens,
        the others int(a * T) with a = (L * ini_size - |class3| * KV_class3) / (|class1| + |class2|).
    ini_size = B / T and KV_class3 = p * ini_size (the code takes both as fractions of the prompt
    length; --KV_class3 has default 1.0 = no squeeze, so p is a fixture choice)."""
    cos = []
    for li in range(LAYERS):
        vec1 = pre.h_in[li].squeeze()
        vec2 = pre.h_attn[li].squeeze()
        c = torch.nn.functional.cosine_similarity(vec1, vec2, dim=1)
        cos.append(float(torch.mean(c)))
    clusters, best_sse, margin = kmeans_1d(cos, 3)
    ini_size = budget / T
    percent = p * ini_size
    class1, class2, class3 = clusters
    len_a = len(class1) + len(class2)
    a = (LAYERS * ini_size - len(class3) * percent) / len_a
    sizes = [0] * LAYERS
    for i in class1 + class2:
        sizes[i] = int(a * T)
    for i in class3:
        sizes[i] = int(percent * T)
    info = dict(
        cosine_similarity=[float(x) for x in cos],
        classes=[sorted(c) for c in clusters],
        kmeans_sse=best_sse,
        kmeans_runner_up_sse_margin=margin,
        ini_size=ini_size,
        kv_class3=percent,
        a=a,
        layer_budget=sizes,
    )
    return sizes, info


def method_squeeze(pre, budget, p, selection, w=None, pooling=None, kernel=None, combine=None, sinks=None):
    sizes, info = squeeze_budgets(pre, budget, p)
    layers = []
    for li in range(LAYERS):
        b = sizes[li]
        if b >= T:
            layers.append(dict(budget=T, kept=[list(range(T))] * KV_HEADS, diag=[{"gap": None, "tied": 0, "tie_positions": []}] * KV_HEADS))
            continue
        if selection == "snapkv":
            probs = window_probs(pre.Q[li], pre.K[li], w)
            s = snapkv_scores(probs, w, pooling, kernel, combine)
            kept, diag = topk_with_window(s, b - w, w, T)
        elif selection == "streamingllm":
            kept1 = list(range(sinks)) + list(range(T - (b - sinks), T))
            kept, diag = [kept1] * KV_HEADS, [{"gap": None, "tied": 0, "tie_positions": []}] * KV_HEADS
        else:
            raise ValueError(selection)
        layers.append(dict(budget=b, kept=kept, diag=diag))
    return layers, info


# ----------------------------------------------------------------------------- cases
def case_list():
    cases = []
    for comb in ("mean", "max", "sum"):
        cases.append(dict(name=f"snapkv_maxpool_k7_{comb}_b64", method="snapkv", budget=64, window=W,
                          kernel=7, pooling="maxpool", gqa_combine=comb))
    cases.append(dict(name="snapkv_avgpool_k5_mean_b32", method="snapkv", budget=32, window=W,
                      kernel=5, pooling="avgpool", gqa_combine="mean"))
    # B=64, W=8, beta=20, L=4: min 2, max 110, steps 36 -> 110/74/38/2 (+W), total exactly L*(B-W).
    cases.append(dict(name="pyramidkv_maxpool_k7_mean_b64", method="pyramidkv", budget=64, window=W,
                      kernel=7, pooling="maxpool", gqa_combine="mean", beta=20))
    # B=32: min 1, max 47, steps 15 -> 47/32/17/2: integer steps give 98 != L*(B-W) = 96.
    cases.append(dict(name="pyramidkv_maxpool_k7_mean_b32", method="pyramidkv", budget=32, window=W,
                      kernel=7, pooling="maxpool", gqa_combine="mean", beta=20))
    # B=88: max_num = 160 - 4 = 156 >= T-W = 152 -> clamp branch: max 152, min 8, steps 48 -> 152/104/56/8.
    cases.append(dict(name="pyramidkv_maxpool_k7_mean_b88_clamp", method="pyramidkv", budget=88, window=W,
                      kernel=7, pooling="maxpool", gqa_combine="mean", beta=20))
    # B=96: T=160 < (B-W)*2 = 176 -> KVCache-Factory's short-prompt fallback (uniform top-(B-W)).
    cases.append(dict(name="pyramidkv_maxpool_k7_mean_b96_fallback", method="pyramidkv", budget=96, window=W,
                      kernel=7, pooling="maxpool", gqa_combine="mean", beta=20))
    cases.append(dict(name="h2o_mean_b64", method="h2o", budget=64, window=W, pooling="none", gqa_combine="mean"))
    cases.append(dict(name="streamingllm_kvfactory_b64", method="streamingllm", budget=64, window=W, sinks=64 - W))
    cases.append(dict(name="streamingllm_sink4_b64", method="streamingllm", budget=64, window=0, sinks=4))
    # B=32 would put the top-k boundary inside a 3-way exact tie of one repeated token's layer-0
    # key norm (RoPE preserves norms), which a differently rounded RoPE could break; B=64 is tie-free.
    cases.append(dict(name="knorm_b64", method="knorm", budget=64, window=0))
    cases.append(dict(name="cake_b64_tau1.6_0.4", method="cake", budget=64, window=W, kernel=5, pooling="avgpool",
                      gqa_combine="mean", tau1=1.6, tau2=0.4, gamma=200.0))
    cases.append(dict(name="cake_b32_tau1_1", method="cake", budget=32, window=W, kernel=5, pooling="avgpool",
                      gqa_combine="mean", tau1=1.0, tau2=1.0, gamma=200.0))
    cases.append(dict(name="squeeze_snapkv_maxpool_k7_mean_b64", method="squeeze", budget=64, window=W, p=0.3,
                      selection="snapkv", kernel=7, pooling="maxpool", gqa_combine="mean"))
    cases.append(dict(name="squeeze_streamingllm_sink4_b64", method="squeeze", budget=64, window=0, p=0.3,
                      selection="streamingllm", sinks=4))
    return cases


REFERENCES = {
    "snapkv": [SRC_KVF + " SnapKVCluster.update_kv", SRC_SNAPKV + " SnapKVCluster.update_kv", SRC_SNAPKV_PRESS + " SnapKVPress.score (GQA combine)"],
    "pyramidkv": [SRC_KVF + " PyramidKVCluster.update_kv"],
    "h2o": [SRC_KVF + " H2OKVCluster.update_kv"],
    "streamingllm": [SRC_KVF + " StreamingLLMKVCluster.update_kv"],
    "knorm": [SRC_KNORM_PRESS + " KnormPress.score", SRC_SCORER_PRESS + " ScorerPress.compress"],
    "cake": [SRC_CAKE_LLAMA + " llama_attn_forward_cake", SRC_CAKE_CACHE + " CakeprefillKVCache",
             SRC_CAKE_UTILS + " calculate_entropy, adjust_budgets", SRC_CAKE_PRED + " (cache_size/window_size/tau/gamma wiring)"],
    "squeeze": [SRC_SQUEEZE + " LlamaDecoderLayer_squeeze.forward, LlamaModel_squeeze.forward", SRC_SQUEEZE_PRED],
}


def run_case(pre, c):
    m = c["method"]
    if m == "snapkv":
        return method_snapkv(pre, c["budget"], c["window"], c["pooling"], c["kernel"], c["gqa_combine"])
    if m == "pyramidkv":
        return method_pyramidkv(pre, c["budget"], c["window"], c["pooling"], c["kernel"], c["gqa_combine"], c["beta"])
    if m == "h2o":
        return method_h2o(pre, c["budget"], c["window"], c["gqa_combine"])
    if m == "streamingllm":
        return method_streaming(c["budget"], c["sinks"])
    if m == "knorm":
        return method_knorm(pre, c["budget"])
    if m == "cake":
        return method_cake(pre, c["budget"], c["window"], c["tau1"], c["tau2"], c["gamma"], c["kernel"])
    if m == "squeeze":
        return method_squeeze(pre, c["budget"], c["p"], c["selection"], w=c.get("window"), pooling=c.get("pooling"),
                              kernel=c.get("kernel"), combine=c.get("gqa_combine"), sinks=c.get("sinks"))
    raise ValueError(m)


# ----------------------------------------------------------------------------- output helpers
def f32(x):
    """Shortest decimal (<= 9 significant digits) that round-trips the float32 value of x."""
    v = np.float32(x)
    for d in range(6, FP32_SIG_DIGITS + 1):
        s = "%.*g" % (d, v)
        if np.float32(s) == v:
            return float(s)
    return float("%.9g" % v)


def f32_list(t):
    return [f32(x) for x in t.detach().to(torch.float32).tolist()]


def dump_json(obj, indent=1):
    """json with one line per list of scalars."""

    def enc(o, level):
        pad = " " * (indent * level)
        pad_in = " " * (indent * (level + 1))
        if isinstance(o, dict):
            if not o:
                return "{}"
            items = [f"{pad_in}{json.dumps(k)}: {enc(v, level + 1)}" for k, v in o.items()]
            return "{\n" + ",\n".join(items) + "\n" + pad + "}"
        if isinstance(o, (list, tuple)):
            if all(x is None or isinstance(x, (int, float)) for x in o):
                return "[" + ",".join(json.dumps(x) for x in o) + "]"
            items = [f"{pad_in}{enc(v, level + 1)}" for v in o]
            return "[\n" + ",\n".join(items) + "\n" + pad + "]"
        return json.dumps(o)

    return enc(obj, 0) + "\n"


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def argmax_margin(logits):
    top = torch.topk(logits.float(), 2)
    return int(top.indices[0]), float(top.values[0] - top.values[1])


# ----------------------------------------------------------------------------- main
def compute(model, ids):
    pre = run_prefill(model, ids)
    next_token, _ = argmax_margin(pre.logits[-1])
    results = []
    for c in case_list():
        layers, extra = run_case(pre, c)
        kept = [L["kept"] for L in layers]
        for L in layers:
            assert len({len(k) for k in L["kept"]}) == 1, "equal kept counts per KV head expected"
            assert all(len(k) == L["budget"] for k in L["kept"]), (c["name"], L["budget"])
            assert all(len(set(k)) == len(k) for k in L["kept"])
        logits = decode_one(model, pre, next_token, kept)
        results.append((c, layers, extra, logits))
    return pre, next_token, results


def stats(results):
    ties, min_gap, squeeze_margin, min_logit_margin = 0, float("inf"), float("inf"), float("inf")
    for c, layers, extra, logits in results:
        for L in layers:
            for d in L["diag"]:
                ties += 1 if d["tied"] else 0
                if d["gap"] is not None and not d["tied"]:
                    min_gap = min(min_gap, d["gap"])
        if c["method"] == "squeeze":
            squeeze_margin = min(squeeze_margin, extra["kmeans_runner_up_sse_margin"])
        min_logit_margin = min(min_logit_margin, argmax_margin(logits)[1])
    return ties, min_gap, squeeze_margin, min_logit_margin


def search_seeds(n):
    rows = []
    for ms in range(n):
        model = build_model(ms)
        for ps in (PROMPT_SEED, PROMPT_SEED + 1, PROMPT_SEED + 2):
            ids = make_prompt(ps)
            _, _, results = compute(model, ids)
            rows.append((stats(results), ms, ps))
            print(ms, ps, rows[-1][0], flush=True)
    rows.sort(key=lambda r: (r[0][0], -r[0][1]))
    print("best:", rows[:5])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="tests/fixtures/compression")
    ap.add_argument("--search-seeds", type=int, default=0, help="try model seeds 0..N-1 and print stats")
    args = ap.parse_args()
    if args.search_seeds:
        search_seeds(args.search_seeds)
        return

    os.makedirs(args.out, exist_ok=True)
    model_dir = os.path.join(args.out, "model")
    model = save_model(build_model(MODEL_SEED), model_dir)
    ids = make_prompt(PROMPT_SEED)

    # HF reference forward: our re-implementation must agree.
    with torch.no_grad():
        hf_logits = model(torch.tensor([ids]), use_cache=False).logits[0]
    pre, next_token, results = compute(model, ids)
    err = float((pre.logits - hf_logits).abs().max())
    assert err <= 1e-5, f"prefill re-implementation differs from HF by {err}"
    full_logits = decode_one(model, pre, next_token, None)
    with torch.no_grad():
        hf_pre = model(torch.tensor([ids]), use_cache=True)
        cache_kw = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"
        hf_next = model(torch.tensor([[next_token]]), use_cache=True, **{cache_kw: hf_pre.past_key_values}).logits[0, -1]
        hf_next_nocache = model(torch.tensor([ids + [next_token]]), use_cache=False).logits[0, -1]
    err_dec = float((full_logits - hf_next).abs().max())
    err_dec_nocache = float((full_logits - hf_next_nocache).abs().max())
    assert err_dec <= 1e-5, f"full-cache decode differs from HF's cached decode by {err_dec}"
    assert err_dec_nocache <= 1e-4, f"full-cache decode differs from HF's uncached forward by {err_dec_nocache}"
    # every compressed cache that keeps everything must reproduce the full logits
    ties, min_gap, sq_margin, min_lm = stats(results)
    nt_full, margin_full = argmax_margin(full_logits)

    cases_out = []
    for c, layers, extra, logits in results:
        cfg = {k: v for k, v in c.items() if k != "name"}
        nt, margin = argmax_margin(logits)
        cases_out.append(dict(
            name=c["name"],
            config=cfg,
            reference=REFERENCES[c["method"]],
            layer_budgets=[L["budget"] for L in layers],
            total_kept=sum(L["budget"] for L in layers),
            layers=[dict(
                budget=L["budget"],
                kept=L["kept"],
                boundary_gap=[None if d["gap"] is None else f32(d["gap"]) for d in L["diag"]],
                boundary_tied=[d["tied"] for d in L["diag"]],
                boundary_tie_positions=[d["tie_positions"] for d in L["diag"]],
            ) for L in layers],
            method_info=extra,
            next_token_logits=f32_list(logits),
            next_token_argmax=nt,
            next_token_argmax_margin=f32(margin),
        ))

    st = os.path.join(model_dir, "model.safetensors")
    ref = dict(
        format_version=FORMAT_VERSION,
        generator="scripts/make_compression_fixtures.py",
        versions=dict(python=platform.python_version(), torch=torch.__version__,
                      transformers=transformers.__version__, numpy=np.__version__),
        model=dict(dir="model", seed=MODEL_SEED, layers=LAYERS, heads=HEADS, kv_heads=KV_HEADS,
                   head_dim=HEAD_DIM, hidden=HIDDEN, intermediate=INTERMEDIATE, vocab=VOCAB,
                   rope_theta=ROPE_THETA, rms_norm_eps=RMS_EPS, dtype="float32",
                   safetensors_sha256=sha256(st)),
        prompt=dict(seed=PROMPT_SEED, length=T, ids=ids),
        window=W,
        next_token=next_token,
        prefill_last_logits=f32_list(pre.logits[-1]),
        full_cache=dict(next_token_logits=f32_list(full_logits), next_token_argmax=nt_full,
                        next_token_argmax_margin=f32(margin_full),
                        max_abs_diff_vs_hf_cached_decode=err_dec,
                        max_abs_diff_vs_hf_uncached_forward=err_dec_nocache),
        checks=dict(prefill_max_abs_diff_vs_hf=err, boundary_ties=ties, min_untied_boundary_gap=min_gap,
                    squeeze_kmeans_sse_margin=sq_margin, min_compressed_argmax_margin=min_lm),
        conventions=CONVENTIONS,
        cases=cases_out,
        notes=NOTES,
    )
    with open(os.path.join(args.out, "reference.json"), "w") as f:
        f.write(dump_json(ref))
    total = sum(os.path.getsize(os.path.join(dp, fn)) for dp, _, fns in os.walk(args.out) for fn in fns)
    print(f"wrote {args.out}: {len(cases_out)} cases, next_token={next_token}, prefill err {err:.2e}, "
          f"decode err {err_dec:.2e} (uncached {err_dec_nocache:.2e}), boundary ties {ties}, min untied gap {min_gap:.3e}, "
          f"squeeze k-means margin {sq_margin:.3e}, min argmax margin {min_lm:.3e}, total {total} bytes")


CONVENTIONS = {
    "budget": "B = prompt tokens a layer keeps per KV head INCLUDING the observation window W (KVCache-Factory max_capacity_prompt); layer_budgets / layers[i].budget = kept count per KV head of layer i",
    "window_probs": "q = Q[:, :, T-W:, :].float(); k = repeat_kv(K, 4).float(); scores = torch.matmul(q, k.transpose(-1,-2)) / math.sqrt(16); mask[i, j] = (j <= T-W+i) as [W, T] bool; scores.masked_fill_(~mask, float('-inf')); probs = torch.softmax(scores, -1)  # [1, 8, W, T]",
    "snapkv_score": "s = probs[..., :T-W].sum(dim=-2) [1,8,T-W]; maxpool: F.max_pool1d(s, k, stride=1, padding=k//2) / avgpool: F.avg_pool1d(s, k, stride=1, padding=k//2) (count_include_pad default); s.view(1, 2, 4, T-W).mean(2) | .amax(2) | .sum(2); idx = s.topk(n, dim=-1).indices; kept = sorted(idx) + [T-W, ..., T-1]",
    "h2o_score": "probs over ALL T prompt queries: scores = torch.matmul(Q.float(), repeat_kv(K,4).float().transpose(-1,-2)) / math.sqrt(16); mask[i, j] = j <= i ([T, T]); masked_fill_ -inf; softmax(-1); s = probs[..., :T-W].sum(dim=-2); s.view(1,2,4,T-W).mean(2); topk(B-W) + window",
    "knorm_score": "s = -K.float().norm(dim=-1) [1, 2, T]; idx = s.topk(B, dim=-1).indices; kept = sorted(idx) (no window)",
    "streamingllm": "kept = [0, sinks) + [T - (B - sinks), T)",
    "kept": "layers[i].kept[h] = ascending prompt positions kept for KV head h of layer i",
    "decode": "the next token (argmax of the prefill's last logits) at position T; per layer it attends, per KV head, to that head's kept (original RoPE'd) keys/values plus its own key/value; next_token_logits = its 256 logits (float32, 9 significant digits at most)",
    "boundary_gap": "score of the n-th best minus the (n+1)-th best (float64 of the float32 scores) where n = number of top-k positions selected; boundary_tied = number of positions sharing the n-th score when that tie straddles the top-k boundary (0 = membership does not depend on torch.topk tie-breaking), boundary_tie_positions = those positions (kept minus them is tie-independent; how many of them are kept is fixed too)",
}

NOTES = [
    "GQA: KVCache-Factory@485af3c (pyramidkv/llama_model.py) calls repeat_kv BEFORE kv_cluster.update_kv, so upstream its clusters select per QUERY head (8 index sets, cache stored repeated). These fixtures instead combine the 4 query heads of each KV head after pooling (kvpress SnapKVPress.score: scores.view(bsz, kv_heads, groups, L).mean(2), see FasterDecoding/SnapKV issue 22) and keep KV-head-granular caches; gqa_combine names the reduction (mean | max | sum).",
    "Masking: KVCache-Factory adds torch.finfo(dtype).min to the last WxW block instead of masked_fill(-inf); in float32 both give bit-identical softmax outputs (exp underflows to exactly 0).",
    "kvpress SnapKVPress averages over the window queries (mean instead of sum) and uses avgpool only; with W=8 the mean is an exact power-of-two rescale of the sum, so the selection equals snapkv_avgpool (kernel 5, gqa mean) here. kvpress keeps the window by padding its scores with scores.max() (+1 in kvpress 0.5.5) and taking topk(n_kept) over all T; n_kept = max(1, int(T * (1 - compression_ratio))) which is float-fragile (compression_ratio 0.8 at T=160 gives int(31.99..) = 31), so these fixtures are parameterised by the kept count B directly.",
    "PyramidKV (KVCache-Factory PyramidKVCluster.update_kv): min_num = (B-W)//beta; max_num = 2(B-W) - min_num; if max_num >= T-W: max_num = T-W, min_num = 2(B-W) - max_num; steps = (max_num - min_num)//(L-1); layer l keeps topk(max_num - l*steps) + W. No compression if T < B; if T < 2(B-W) every layer falls back to uniform SnapKV top-(B-W) + W. Python floor division (//) throughout. B in {32, 64} cannot reach the fallback at T=160, so the fallback case uses B=96 (2*(96-8)=176 > 160) and B=88 exercises the max_num clamp branch (2*80-4=156 >= 152: max 152, min 8, steps 48 -> 152/104/56/8). B=32 shows the schedule's integer steps not summing to L*(B-W) (47+32+17+2 = 98 vs 96). KVCache-Factory's run_longbench defaults (window 8, kernel 7, maxpool) are used for PyramidKV's pooling; the cluster's own constructor defaults are avgpool k5.",
    "H2O: KVCache-Factory's H2OKVCluster is a one-shot prefill version (sum over all prompt queries of the causal softmax, no pooling); the original H2O paper evicts greedily token by token during generation. Ported as in KVCache-Factory.",
    "StreamingLLM: KVCache-Factory's StreamingLLMKVCluster keeps the first B-W tokens plus the last W (streamingllm_kvfactory_b64, sinks = B-W). streamingllm_sink4_b64 is the usual 4 sinks + B-4 recent. Both keep the original RoPE positions (the original StreamingLLM and SqueezeAttention's llama code re-rotate cached keys by their position in the cache; not modelled here).",
    "knorm: kvpress KnormPress scores -||k|| on all T positions (lowest key norm kept) with no forced window (KVCache-Factory's L2NormCluster argsorts ascending norms and keeps the first max_capacity_prompt, the same set barring ties).",
    "CAKE: ported from qtris123/cakekv (a public copy of the official antgroup/cakekv; qqtang-code/cakekv@767dd5c cake/cake_cache.py is identical). Non-cascading mode (pred_cake.py without --cascading): all layers' preference scores are collected during prefill, then every layer is evicted once with its final budget. In cascading mode upstream re-evicts already-evicted layers with interim budgets (topk of topk); that generally gives the same sets when the final budget does not exceed an interim one, but it is not modelled. cache_size = B (includes the window), key_size = B - W, total = (B - W) * L non-window tokens. Budget arithmetic is numpy float32 exactly as upstream: pref_score is a 0-d float32 ndarray, b_l = float32(float32(pref_l / sum_f32(pref)) * total), then np.array(dtype=int) truncation and adjust_budgets. Eviction indicator: mean + gamma * var (unbiased) over the W window queries of the softmax over all T keys, sliced to [:T-W], avg_pool1d(kernel 5, padding 2, count_include_pad), then GQA mean over groups; topk(budget) + window (this is CAKE's own indicator, not SnapKV's sum). tau values: cake_b64 uses model2tau.json's llama3.1-8b-128k/1024 entry (tau1 1.6, tau2 0.4); cake_b32 uses pred_cake.py's fallback (1.0, 1.0); gamma = 200 (pred_cake.py default). Upstream does nothing when seq_len <= cache_size + window_size. CAKE's decode-time eviction (CakeDecodingKVCache_LayerWise) only changes the cache AFTER the first decoded token's attention, so it does not affect next_token_logits.",
    "SqueezeAttention: ported from hetailang/SqueezeAttention (the repository the paper links), utils_hh/modify_llama_drop.py@22c976e. cosine similarity is per token between the layer input and the hidden state after the attention residual, then averaged over ALL prompt tokens (float(torch.mean(...))). Upstream uses sklearn KMeans(n_clusters=3) with its default random k-means++ init and no random_state (not reproducible; with 4 points a bad init can stop at a local optimum); these fixtures use the exact 1-D k-means optimum (best of all contiguous 3-partitions of the sorted values by within-cluster SSE) and record its SSE margin to the runner-up. Budgets: ini_size = B/T, KV_class3 = p*ini_size with p = 0.3 (the code's --KV_class3 is an absolute fraction of the prompt length with default 1.0, i.e. no squeeze; the paper's p is relative to the initial budget), class3 (highest similarity) gets int(KV_class3*T), the rest int(a*T), a = (L*ini_size - |class3|*KV_class3)/(|class1|+|class2|), all in float64. Upstream's llama code pairs the budgets with StreamingLLM (start_size 4, default) -> squeeze_streamingllm_sink4_b64; squeeze_snapkv_* pairs them with the SnapKV selection above (budget includes W).",
    "topk tie-breaking: maxpool creates plateaus of equal scores; where boundary_tied > 0 the kept set depends on torch.topk's CPU tie-breaking (torch 2.11); the C++ side, built against the same LibTorch, should reproduce it when it calls topk on an identically shaped contiguous tensor, but a tolerant test may compare those layers by score instead.",
    "All computations are float32 on CPU with one thread; the model's prefill logits from the script's own forward equal HF eager's within checks.prefill_max_abs_diff_vs_hf, and the full-cache decode equals HF's DynamicCache decode of next_token within full_cache.max_abs_diff_vs_hf_cached_decode (HF's uncached forward on prompt+[next_token] uses other matmul shapes: full_cache.max_abs_diff_vs_hf_uncached_forward).",
]


if __name__ == "__main__":
    main()
