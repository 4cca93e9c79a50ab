#!/usr/bin/env python3
"""The weights of a converted model (scripts/get_model.sh), rebuilt from its GGUF with gguf-py alone.

The lent GPU machine has no network and takes 64 MiB a call, so a real model travels there as
its GGUF (SmolLM2-135M-Instruct: 94 MiB, in two calls; scripts/device/real_model.sh) rather than
as the 513 MiB float32 safetensors. This writes the same model.safetensors as
scripts/gguf_to_hf.py (whose transformers version the GPU machine lacks): every tensor
dequantized by gguf-py with llama.cpp's block formulas, llama.cpp's q/k row permutation undone,
float32 (a model that gguf_to_hf.py stored in bfloat16 is refused). Needs numpy, safetensors
and the gguf wheel (the GPU machine has the first two). gguf_to_hf.py checks its transformers-loaded weights against exactly this dequantization.

    python3 scripts/device/gguf_weights.py --gguf F.gguf --out model.safetensors [--expect HEX]
    python3 scripts/device/gguf_weights.py --digest model.safetensors    # HEX of a file made here

The digest covers every tensor's name, dtype, shape and bytes (not the file's header layout), so
a rebuilt file must give the digest of the one get_model.sh made; --expect fails otherwise.
"""

import argparse
import hashlib
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gguf_to_hf import dequantized  # noqa: E402  (the converter's own dequantization and names)


def unpermute(w, n_head):
    """Inverse of gguf_to_hf.llama_cpp_permute: GGUF q/k rows -> HF rows."""
    return (w.reshape(n_head, w.shape[0] // n_head // 2, 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def digest(tensors):
    h = hashlib.sha256()
    for name in sorted(tensors):
        t = np.ascontiguousarray(tensors[name])
        h.update(f"{name}|{t.dtype.str}|{t.shape}|".encode())
        h.update(t.tobytes())
    return h.hexdigest()


def load(path):
    from safetensors import safe_open
    from safetensors.numpy import load_file
    with safe_open(path, "np") as f:  # numpy has no bfloat16: name what else the file holds first
        other = sorted({f.get_slice(k).get_dtype() for k in f.keys()} - {"F32"})
    if other:
        sys.exit(f"gguf_weights.py: {path} holds {', '.join(other)} tensors; this rebuild writes float32 only "
                 "(gguf_to_hf.py stores bfloat16 where every value fits), so it cannot stand in for this model")
    return load_file(path)


def rebuild(gguf_path):
    import gguf
    reader = gguf.GGUFReader(gguf_path)
    arch = reader.fields["general.architecture"].contents()
    heads = int(reader.fields[f"{arch}.attention.head_count"].contents())
    kv_heads = int(reader.fields[f"{arch}.attention.head_count_kv"].contents())
    out = {}
    for _, name, w in dequantized(reader):
        if arch == "llama" and name.endswith(("q_proj.weight", "k_proj.weight")):
            w = unpermute(w, heads if "q_proj" in name else kv_heads)
        out[name] = np.ascontiguousarray(w)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gguf", help="the GGUF to rebuild from")
    ap.add_argument("--out", help="model.safetensors to write")
    ap.add_argument("--expect", help="the digest the rebuilt tensors must have (from --digest)")
    ap.add_argument("--digest", metavar="SAFETENSORS", help="print the digest of a safetensors file and exit")
    a = ap.parse_args()
    if a.digest:
        print(digest(load(a.digest)))
        return 0
    if not a.gguf or not a.out:
        ap.error("give --gguf and --out (or --digest FILE)")
    if not os.path.isfile(a.gguf):
        sys.exit(f"gguf_weights.py: --gguf {a.gguf}: no such file (make_kit.sh splits the GGUF of "
                 "REAL_MODEL into device_gguf/; real_model.sh joins the parts)")
    tensors = rebuild(a.gguf)
    got = digest(tensors)
    if a.expect and got != a.expect:
        sys.exit(f"gguf_weights.py: tensors rebuilt from {a.gguf} have digest {got}, expected {a.expect}: "
                 "the GGUF or gguf-py differs from the one get_model.sh used; do not run on these weights")
    from safetensors.numpy import save_file
    save_file(tensors, a.out, metadata={"format": "pt"})
    print(f"{a.out}: {len(tensors)} tensors, digest {got}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
