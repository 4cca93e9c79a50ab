#!/usr/bin/env python3
"""HF transformers side of scripts/bench.sh: the same model shape (random weights), prompt
lengths, threads and timing protocol as build/ripplekv_bench (PyTorch eager, SDPA attention,
prefill computing only the last token's logits as generate() does), printing
"RESULT impl=hf ..." lines: prefill tok/s, decode ms/token, the step time of a batch of V
sequences with caches of about the same size as ripplekv_bench's variant rows, peak RSS."""
import argparse
import resource
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

# name -> (config class, model class, layers, hidden, heads, kv heads, intermediate, vocab,
#          max positions, rope theta, tied embeddings); the same table as random_model.h.
SHAPES = {
    "tinyllama": ("llama", 22, 2048, 32, 4, 5632, 32000, 16384, 10000.0, False),
    "smollm2": ("llama", 30, 576, 9, 3, 1536, 49152, 16384, 100000.0, True),
    "qwen2.5-1.5b": ("qwen2", 28, 1536, 12, 2, 8960, 151936, 32768, 1000000.0, True),
}


def build(shape, layers, dtype, device):
    kind, n_layers, hidden, heads, kv, inter, vocab, max_pos, theta, tied = SHAPES[shape]
    cfg_cls, model_cls = (LlamaConfig, LlamaForCausalLM) if kind == "llama" else (Qwen2Config, Qwen2ForCausalLM)
    cfg = cfg_cls(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers or n_layers,
                  num_attention_heads=heads, num_key_value_heads=kv, intermediate_size=inter, rms_norm_eps=1e-5,
                  rope_theta=theta, max_position_embeddings=max_pos, tie_word_embeddings=tied)
    with torch.device(device):
        model = model_cls._from_config(cfg, attn_implementation="sdpa", dtype=dtype).eval()
    return cfg, model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="tinyllama", choices=sorted(SHAPES))
    ap.add_argument("--lengths", default="2048,8192")
    ap.add_argument("--dtypes", default="float32,bfloat16")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--layers", type=int, default=0)
    ap.add_argument("--decode-steps", type=int, default=16)
    ap.add_argument("--prefill-repeats", type=int, default=3,
                    help="prefills timed per length; the fastest is reported (the first touches fresh memory)")
    ap.add_argument("--variants", default="1,4,16,25")
    ap.add_argument("--variant-budget", type=int, default=256)
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    cuda = a.device.startswith("cuda")
    sync = (lambda: torch.cuda.synchronize()) if cuda else (lambda: None)
    print(f"# bench_hf: {a.shape}, torch {torch.__version__}, threads={torch.get_num_threads()}, device={a.device}")
    for dname in a.dtypes.split(","):
        dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dname]
        cfg, model = build(a.shape, a.layers, dtype, a.device)
        print(f"RESULT impl=hf shape={a.shape} dtype={dname}", flush=True)
        for t in [int(x) for x in a.lengths.split(",")]:
            tokens = torch.randint(1, cfg.vocab_size, (1, t), device=a.device)
            with torch.inference_mode():
                model(tokens[:, :min(t, 64)], use_cache=True, logits_to_keep=1)  # warm-up
                prefill_s = float("inf")
                for _ in range(max(1, a.prefill_repeats)):  # the same protocol as ripplekv_bench
                    out = None
                    t0 = time.perf_counter()
                    out = model(tokens, use_cache=True, logits_to_keep=1)
                    nxt = out.logits[:, -1:].argmax(-1)
                    sync()
                    prefill_s = min(prefill_s, time.perf_counter() - t0)
                past = out.past_key_values
                t0 = time.perf_counter()
                for _ in range(a.decode_steps):
                    out = model(nxt, past_key_values=past, use_cache=True)
                    past = out.past_key_values
                    nxt = out.logits[:, -1:].argmax(-1)
                    nxt.cpu()
                decode_ms = (time.perf_counter() - t0) / a.decode_steps * 1e3
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"RESULT impl=hf shape={a.shape} dtype={dname} tokens={t} prefill_tok_s={t / prefill_s:.1f} "
                  f"decode_ms={decode_ms:.2f} peak_rss_mib={rss:.0f}", flush=True)
        # V sequences decoded as one batch, each with a cache of variant-budget tokens (HF's
        # cache holds one length per batch, so its rows are not padded).
        one = 0.0
        for v in [int(x) for x in a.variants.split(",") if x]:
            with torch.inference_mode():
                prompt = torch.randint(1, cfg.vocab_size, (v, a.variant_budget), device=a.device)
                out = model(prompt, use_cache=True, logits_to_keep=1)
                past, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
                out = model(nxt, past_key_values=past, use_cache=True)  # warm-up step
                times = []
                for _ in range(max(4, a.decode_steps // 2)):
                    t0 = time.perf_counter()
                    out = model(nxt, past_key_values=out.past_key_values, use_cache=True)
                    nxt = out.logits[:, -1:].argmax(-1)
                    nxt.cpu()
                    times.append(time.perf_counter() - t0)
            ms = sorted(times)[len(times) // 2] * 1e3
            one = ms if v == 1 else one
            print(f"RESULT impl=hf-batch shape={a.shape} dtype={dname} rows={v} budget={a.variant_budget} "
                  f"step_ms={ms:.2f} x_one_row={ms / one if one else 0:.2f}", flush=True)
        del model


if __name__ == "__main__":
    main()
