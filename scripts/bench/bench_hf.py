#!/usr/bin/env python3
"""HF transformers side of scripts/bench.sh: the same TinyLlama-1.1B-shaped random model,
prompt lengths, threads and timing protocol as build/ripplekv_bench (PyTorch eager, SDPA
attention, prefill computing only the last token's logits as generate() does), printing
"RESULT impl=hf ..." lines."""
import argparse
import resource
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lengths", default="512,2048,8192")
    ap.add_argument("--dtypes", default="float32,bfloat16")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--layers", type=int, default=22)
    ap.add_argument("--decode-steps", type=int, default=16)
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=32000, hidden_size=2048, num_hidden_layers=a.layers, num_attention_heads=32,
                      num_key_value_heads=4, intermediate_size=5632, rms_norm_eps=1e-5, rope_theta=10000.0,
                      max_position_embeddings=16384, tie_word_embeddings=False)
    print(f"# bench_hf: torch {torch.__version__}, threads={torch.get_num_threads()}, device={a.device}")
    for dname in a.dtypes.split(","):
        dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dname]
        with torch.device(a.device):
            model = LlamaForCausalLM._from_config(cfg, attn_implementation="sdpa", dtype=dtype).eval()
        print(f"RESULT impl=hf dtype={dname}", flush=True)
        for t in [int(x) for x in a.lengths.split(",")]:
            tokens = torch.randint(1, cfg.vocab_size, (1, t), device=a.device)
            with torch.inference_mode():
                model(tokens[:, :min(t, 64)], use_cache=True, logits_to_keep=1)  # warm-up
                sync = (lambda: torch.cuda.synchronize()) if a.device.startswith("cuda") else (lambda: None)
                t0 = time.perf_counter()
                out = model(tokens, use_cache=True, logits_to_keep=1)
                nxt = out.logits[:, -1:].argmax(-1)
                sync()
                prefill_s = time.perf_counter() - t0
                past = out.past_key_values
                t0 = time.perf_counter()
                for _ in range(a.decode_steps):
                    out = model(nxt, past_key_values=past, use_cache=True)
                    past = out.past_key_values
                    nxt = out.logits[:, -1:].argmax(-1)
                    nxt.cpu()
                decode_ms = (time.perf_counter() - t0) / a.decode_steps * 1e3
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"RESULT impl=hf dtype={dname} tokens={t} prefill_tok_s={t / prefill_s:.1f} "
                  f"decode_ms={decode_ms:.2f} peak_rss_mib={rss:.0f}", flush=True)
        del model


if __name__ == "__main__":
    main()
