"""Streaming into the Playground: 20,000 deltas from a sandbox in its own process.

Figures, all in the same run:
- a bare httpx-sse consumer of the same stream (no Qt) against the Playground tab showing the whole answer;
- the longest UI stall during the tab's run (the largest gap of a 10 ms timer);
- the cost of one delta with about 100,000 tokens already in the conversation against about 1,000.
Run: python -m tests.perf.bench_stream   (offscreen; not a timed test)
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import httpx
from httpx_sse import aconnect_sse

from tests.sandbox_process import spawn_sandbox

DELTAS = 20_000
PROMPT = f"Write {DELTAS} words"


async def bare_consumer(creds: dict) -> tuple[float, int]:
    body = {"model": "service-pro", "input": PROMPT, "stream": True}
    headers = {"authorization": f"Bearer {creds['api_key']}"}
    count = 0
    started = time.perf_counter()
    async with (
        httpx.AsyncClient(timeout=60) as client,
        aconnect_sse(client, "POST", creds["base_url"] + "/responses", json=body, headers=headers) as source,
    ):
        async for event in source.aiter_sse():
            if event.event == "response.output_text.delta":
                count += 1
    return time.perf_counter() - started, count


def console_run(creds: dict, home: Path) -> dict:
    import qasync
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.asyncloop import install_asyncgen_hooks
    from app.bootstrap import Paths, make_session
    from app.services.playground import Turn
    from app.services.profiles import Profile
    from app.ui.playground.tab import PlaygroundTab

    app = QApplication.instance() or QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    install_asyncgen_hooks(loop)
    session = make_session(Paths.under(home), interactive=False)
    profile = Profile(id="bench", name="bench", base_url=creds["base_url"], org_id=creds["org_id"])
    session.profiles.save(profile)
    session.secrets.set("bench", "api_key", creds["api_key"], session_only=True)
    tab = PlaygroundTab(session)
    tab.resize(1100, 800)
    tab.show()
    results: dict = {}

    def prefill(tokens: int) -> None:
        tab.service.new_conversation()
        app.processEvents()
        words_per_turn = 2_000
        for _ in range(max(1, tokens // words_per_turn)):
            text = " ".join(["word"] * min(tokens, words_per_turn))
            tab.service.turns.append(Turn("earlier", [], "service-pro", True, text=text, status="completed"))
            index = len(tab.service.turns) - 1
            tab._add_view(index)
            tab._finish_view(index)
        app.processEvents()

    async def stream_once(prompt: str) -> tuple[float, float]:
        gaps: list[float] = []
        last = time.perf_counter()

        def tick() -> None:
            nonlocal last
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

        timer = QTimer()
        timer.setInterval(10)
        timer.timeout.connect(tick)
        timer.start()
        started = time.perf_counter()
        index = tab.service.send(prompt, [], tab.options())
        while tab.service.turns[index].status in ("pending", "streaming"):
            await asyncio.sleep(0.005)
        app.processEvents()  # the final paint of the whole answer
        elapsed = time.perf_counter() - started
        timer.stop()
        assert tab.service.turns[index].status == "completed", tab.service.turns[index].error
        return elapsed, max(gaps) if gaps else 0.0

    async def main() -> None:
        await session.activate("bench")
        tab.reload_models()
        elapsed, stall = await stream_once(PROMPT)
        results["tab_s"], results["stall_s"] = elapsed, stall
        per_delta = {}
        for tokens in (1_000, 100_000):
            prefill(tokens)
            elapsed, _ = await stream_once("Write 5000 words")
            per_delta[tokens] = elapsed / 5_000
        results["per_delta"] = per_delta
        await session.shutdown()

    with loop:
        loop.run_until_complete(main())
    return results


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        process, creds = spawn_sandbox(Path(folder), "--rate-limit", "100000")
        try:
            bare_s, count = asyncio.run(bare_consumer(creds))
            results = console_run(creds, Path(folder) / "home")
        finally:
            process.terminate()
            process.wait()
    ratio = results["tab_s"] / bare_s
    per_delta = results["per_delta"]
    print(f"deltas in the stream:            {count:,}")
    print(f"bare httpx-sse consumer:         {bare_s:.2f} s")
    print(f"Playground tab, whole answer:    {results['tab_s']:.2f} s  ({ratio:.2f}x, goal 1.5x)")
    print(f"longest UI stall (10 ms timer):  {results['stall_s'] * 1000:.0f} ms  (goal < 50 ms)")
    print(f"one delta, ~1,000 tokens before:   {per_delta[1_000] * 1e6:.0f} µs")
    print(
        f"one delta, ~100,000 tokens before: {per_delta[100_000] * 1e6:.0f} µs  "
        f"({per_delta[100_000] / per_delta[1_000]:.2f}x, goal 1.25x)"
    )


if __name__ == "__main__":
    main()
