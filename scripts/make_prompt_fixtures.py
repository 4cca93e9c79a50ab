#!/usr/bin/env python3
"""Reference prompts for tests/eval/longbench/test_prompt_builder.cpp.

* Truncation: the official LongBench pred.py steps (THUDM/LongBench@2e00731f, get_pred)
  transliterated with the Llama-2 sentencepiece model (what LlamaTokenizer wraps:
  tokenizer(prompt) = [BOS] + sp.encode(prompt); decode(ids, skip_special_tokens=True) =
  sp.decode(ids without BOS/EOS/UNK); clean_up_tokenization_spaces is false in the
  Llama-2 / Mistral tokenizer configs).
* Chat templates: the Hugging Face chat_template strings of the models, rendered with
  Jinja2 the way transformers does (trim_blocks, lstrip_blocks, add_generation_prompt=True).

Run:  .venv/bin/python scripts/make_prompt_fixtures.py  (needs sentencepiece, jinja2)
"""
import json
import os
import sys

import jinja2
import sentencepiece as spm

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "longbench")
SHARED = os.environ.get("RIPPLEKV_SHARED_DATA", os.path.join(HERE, "..", "..", "..", "..", "shared", "data"))

# tokenizer_config.json chat_template of each model (see eval/chat_template.h).
TEMPLATES = {
    # meta-llama/Llama-2-7b-chat-hf
    "llama2": "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set system_message = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}{% set system_message = false %}{% endif %}{% for message in loop_messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if loop.index0 == 0 and system_message != false %}{% set content = '<<SYS>>\\n' + system_message + '\\n<</SYS>>\\n\\n' + message['content'] %}{% else %}{% set content = message['content'] %}{% endif %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ ' '  + content.strip() + ' ' + eos_token }}{% endif %}{% endfor %}",
    # mistralai/Mistral-7B-Instruct-v0.2 as released (same as v0.1 / Mixtral-8x7B-Instruct-v0.1)
    "mistral": "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token}}{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}",
    # meta-llama/Meta-Llama-3-8B-Instruct
    "llama3": "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}",
    # Qwen/Qwen2-7B-Instruct
    "chatml": "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}",
}
BOS = {"llama2": "<s>", "mistral": "<s>", "llama3": "<|begin_of_text|>", "chatml": ""}
PROMPTS = ["Hello", "  padded prompt \n\n", "\u3000ideographic space\u2003and em space\u00a0", "line1\nline2\n"]


def raise_exception(msg):
    raise jinja2.exceptions.TemplateError(msg)


def render(name, prompt):
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
    env.globals["raise_exception"] = raise_exception
    t = env.from_string(TEMPLATES[name])
    return t.render(messages=[{"role": "user", "content": prompt}], bos_token=BOS[name], eos_token="</s>",
                    add_generation_prompt=True)


def fnv1a64(data: bytes) -> str:
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def ids_hash(ids):
    return fnv1a64(",".join(str(i) for i in ids).encode())


def main():
    sp = spm.SentencePieceProcessor(model_file=os.path.join(SHARED, "tokenizers", "llama2", "tokenizer.model"))
    special = {sp.bos_id(), sp.eos_id(), sp.unk_id(), sp.pad_id()}

    def tok(text):  # tokenizer(text).input_ids
        return [sp.bos_id()] + sp.encode(text)

    def decode(ids):  # tokenizer.decode(ids, skip_special_tokens=True)
        return sp.decode([i for i in ids if i not in special])

    prompts = json.load(open(os.path.join(SHARED, "longbench", "config", "dataset2prompt.json")))
    rows = [json.loads(l) for l in open(os.path.join(SHARED, "longbench", "raw", "multi_news.jsonl"), encoding="utf-8")]
    lengths = [len(tok(prompts["multi_news"].format(**r))) for r in rows]
    longest = max(range(len(rows)), key=lambda i: lengths[i])

    truncation = []
    for index, max_length, template in [(longest, 3500, "llama2"), (longest, 500, "llama2-longbench"), (0, 100000, "llama2")]:
        prompt = prompts["multi_news"].format(**rows[index])
        ids = tok(prompt)
        original = len(ids)
        if len(ids) > max_length:
            half = int(max_length / 2)
            prompt = decode(ids[:half]) + decode(ids[-half:])
        if template == "llama2":  # <s> + '[INST] ' + strip + ' [/INST]', BOS a special token
            final = [sp.bos_id()] + sp.encode(render("llama2", prompt)[len("<s>"):])
        else:  # pred.py's build_chat for llama2 models, then tokenizer(prompt)
            final = tok(f"[INST]{prompt}[/INST]")
        truncation.append({
            "task": "multi_news", "sample_index": index, "sample_id": rows[index]["_id"], "max_length": max_length,
            "chat_template": template, "original_tokens": original, "truncated": original > max_length,
            "prompt_bytes": len(prompt.encode()), "prompt_fnv1a64": fnv1a64(prompt.encode()),
            "ids_count": len(final), "ids_fnv1a64": ids_hash(final), "ids_head": final[:48], "ids_tail": final[-48:],
        })

    chat = []
    for name in TEMPLATES:
        for p in PROMPTS:
            entry = {"template": name, "prompt": p, "rendered": render(name, p)}
            if name in ("llama2", "mistral"):
                entry["llama2_tokenizer_ids"] = [sp.bos_id()] + sp.encode(entry["rendered"][len("<s>"):])
            chat.append(entry)

    out = {
        "generated_by": "scripts/make_prompt_fixtures.py",
        "tokenizer": "tokenizers/llama2/tokenizer.model",
        "newline_id": sp.encode("\n")[-1],
        "truncation": truncation,
        "chat_templates": chat,
    }
    path = os.path.join(HERE, "prompt_reference.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    sys.exit(main())
