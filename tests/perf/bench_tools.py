"""A function-call round trip on the simulated engine against two plain turns of the same length.

The round trip: a streamed turn that calls a function (its arguments about 2,000 deltas), then a streamed
turn that sends the function's output back by previous_response_id and gets the answer. The baseline: two
plain streamed turns, chained, each with as many deltas as its counterpart. Both go through the official
`openai` client to a sandbox in its own process; rounds are interleaved and the medians compared.
Target: the round trip takes at most 1.2x the baseline.
Run: python -m tests.perf.bench_tools   (not a timed test)
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import openai

from tests.perf.tiny import size
from tests.sandbox_process import spawn_sandbox

ROUNDS = size(7, 1)
TOOL: Any = {
    "type": "function",
    "name": "summarise_logs",
    "description": "Summarise log lines.",
    "parameters": {
        "type": "object",
        "properties": {"lines": {"type": "array", "minItems": size(250, 10), "items": {"type": "string"}}},
        "required": ["lines"],
        "additionalProperties": False,
    },
    "strict": True,
}
PROMPT = "Please call summarise_logs"
LOG_SUMMARY = "12 errors and 3 warnings in the gateway log; " * 10


def deltas(stream: Any) -> tuple[int, Any]:
    """Reads a stream to its end: the number of text or argument deltas, and the final response."""
    count = 0
    for event in stream:
        if event.type in ("response.output_text.delta", "response.function_call_arguments.delta"):
            count += 1
    return count, stream.get_final_response()


def round_trip(api: openai.OpenAI) -> tuple[float, int, int]:
    started = time.perf_counter()
    with api.responses.stream(model="service-pro", input=PROMPT, tools=[TOOL]) as stream:
        first, response = deltas(stream)
    call = next(item for item in response.output if item.type == "function_call")
    output: Any = {"type": "function_call_output", "call_id": call.call_id, "output": LOG_SUMMARY}
    with api.responses.stream(
        model="service-pro", input=[output], previous_response_id=response.id, tools=[TOOL]
    ) as stream:
        second, _ = deltas(stream)
    return time.perf_counter() - started, first, second


def plain_turns(api: openai.OpenAI, first_words: int, second_words: int) -> tuple[float, int, int]:
    started = time.perf_counter()
    with api.responses.stream(model="service-pro", input=f"Write {first_words} words") as stream:
        first, response = deltas(stream)
    with api.responses.stream(
        model="service-pro", input=f"Write {second_words} words", previous_response_id=response.id
    ) as stream:
        second, _ = deltas(stream)
    return time.perf_counter() - started, first, second


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        process, creds = spawn_sandbox(Path(folder), "--rate-limit", "100000")
        try:
            with openai.OpenAI(base_url=creds["base_url"], api_key=creds["api_key"], max_retries=0) as api:
                _, call_deltas, answer_deltas = round_trip(api)  # warm-up, and the lengths to match
                _, base_first, base_second = plain_turns(api, 0, 0)
                words = (max(0, call_deltas - base_first), max(0, answer_deltas - base_second))
                tools_s, plain_s = [], []
                first = second = 0
                for _ in range(ROUNDS):
                    tools_s.append(round_trip(api)[0])
                    elapsed, first, second = plain_turns(api, *words)
                    plain_s.append(elapsed)
        finally:
            process.terminate()
            process.wait()
    tools, plain = statistics.median(tools_s), statistics.median(plain_s)
    print(f"function-call round trip: {call_deltas} argument deltas + {answer_deltas} answer deltas")
    print(f"two plain turns:          {first} + {second} text deltas")
    print(f"round trip   {tools * 1000:8.1f} ms (median of {ROUNDS})")
    print(f"plain turns  {plain * 1000:8.1f} ms (median of {ROUNDS})")
    verdict = "ok" if tools <= 1.2 * plain else "OVER the 1.2x target"
    print(f"ratio        {tools / plain:8.2f}x   (target <= 1.2x: {verdict})")


if __name__ == "__main__":
    main()
