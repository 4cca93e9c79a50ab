#!/usr/bin/env python3
"""Reference chat renderings for tests/eval/longbench/test_chat_template.cpp: each real model's own
chat_template (from the tokenizer_config.json that scripts/get_model.sh writes from the GGUF)
rendered by transformers' apply_chat_template(messages, tokenize=False,
add_generation_prompt=True) over several conversations, with and without a system message.

Run:  .venv/bin/python scripts/make_chat_template_fixtures.py [--models smollm2-135m-instruct,...]
Writes tests/fixtures/real/chat_templates.json (the template sources and renderings; small).
"""
import argparse
import json
import os
import subprocess
import sys

from transformers import AutoTokenizer, __version__ as transformers_version

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "tests", "fixtures", "real", "chat_templates.json")

CONVERSATIONS = [
    [{"role": "user", "content": "What is the capital of France?"}],
    [{"role": "system", "content": "You are a terse assistant."}, {"role": "user", "content": "Hi"}],
    [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi! How can I help?"},
     {"role": "user", "content": "Tell me a joke."}],
    [{"role": "system", "content": "S"}, {"role": "user", "content": "u1"}, {"role": "assistant", "content": "a1"},
     {"role": "user", "content": "u2"}],
    [{"role": "system", "content": ""}, {"role": "user", "content": "empty system message"}],
    [{"role": "user", "content": "  padded prompt \n\n"}],
    [{"role": "user", "content": "line1\nline2\r\n\ttabbed \u00e9\u4e2d\u6587 \U0001F600"}],
]


def model_dir(name):
    out = subprocess.run([os.path.join(ROOT, "scripts", "get_model.sh"), name], check=True, capture_output=True,
                         text=True).stdout
    return out.strip().splitlines()[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="smollm2-135m-instruct,qwen2.5-coder-1.5b-instruct")
    args = ap.parse_args()
    result = {"generated_by": "scripts/make_chat_template_fixtures.py", "transformers": transformers_version,
              "models": {}}
    for name in args.models.split(","):
        d = model_dir(name)
        tok = AutoTokenizer.from_pretrained(d)
        with open(os.path.join(d, "tokenizer_config.json"), encoding="utf-8") as f:
            source = json.load(f)["chat_template"]
        cases = []
        for messages in CONVERSATIONS:
            for gen in (True, False):
                cases.append({"messages": messages, "add_generation_prompt": gen,
                              "rendered": tok.apply_chat_template(messages, tokenize=False,
                                                                  add_generation_prompt=gen)})
        result["models"][name] = {"chat_template": source, "cases": cases}
        print(f"{name}: {len(cases)} renderings", file=sys.stderr)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(OUT)


if __name__ == "__main__":
    main()
