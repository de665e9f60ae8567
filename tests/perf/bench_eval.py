"""An eval of 100 rows × 3 variants on the simulated engine, 8 requests at a time, against a sandbox in its
own process.

Figures, in the same run:
- the eval (EvalRun: each answer graded as it arrives, the cells kept) against a baseline, the same 300
  request bodies sent by the official client 8 at a time with nothing else done; goal at most 10 s;
- the saved run reopened from its JSON file; goal at most 300 ms;
- the same eval run from the Evals window (offscreen, its grid filling, each answer compared with the run
  before), with the longest the GUI thread
  went without running its event loop (a 5 ms timer's widest gap); goal at most 50 ms.
Run: python -m tests.perf.bench_eval   (BENCH_SIZE=tiny: 5 rows, a check that it runs; not a timed test)
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, cast

from tests.sandbox_process import spawn_sandbox

ROWS = 5 if os.environ.get("BENCH_SIZE") == "tiny" else 100
MODELS = ("service-pro", "service-ultra", "service-pro")  # the third with temperature 0.2
CONCURRENCY = 8
GOAL_SECONDS, GOAL_REOPEN_MS, GOAL_GAP_MS = 10.0, 300.0, 50.0


def dataset() -> Any:
    from app.core.evals.dataset import Dataset, Row

    return Dataset([Row({"city": f"City {i}", "days": str(i % 7 + 1)}, f"City {i}") for i in range(ROWS)])


async def baseline(creds: dict[str, Any], bodies: list[dict[str, Any]]) -> float:
    from openai import AsyncOpenAI

    gate = asyncio.Semaphore(CONCURRENCY)
    async with AsyncOpenAI(base_url=creds["base_url"], api_key=creds["api_key"], max_retries=0) as client:

        async def one(body: dict[str, Any]) -> None:
            async with gate:
                await client.responses.create(**body)

        started = time.perf_counter()
        await asyncio.gather(*(one(body) for body in bodies))
        return time.perf_counter() - started


async def evaluate(creds: dict[str, Any], saved: Path) -> tuple[float, Any]:
    from app.api.client import ServiceClient
    from app.api.requests import ResponseCreateParams
    from app.api.transport import ConnectionSettings
    from app.core.evals.graders import parse_grader
    from app.core.evals.run import Answer, EvalRun, Variant

    settings = ConnectionSettings(
        base_url=creds["base_url"], admin_key=creds["admin_key"], api_key=creds["api_key"]
    )
    async with ServiceClient(settings, creds["org_id"]) as client:
        stored = await client.prompts.create(
            {
                "name": "Trip",
                "instructions": "You plan trips to {{city}}.",
                "input": "Plan {{days}} days in {{city}}.",
            }
        )
        variants = [
            Variant(stored, model, {"temperature": 0.2} if index == 2 else {})
            for index, model in enumerate(MODELS)
        ]
        run = EvalRun(
            dataset(),
            variants,
            [parse_grader("contains"), parse_grader(r"regex:\w+")],
            concurrency=CONCURRENCY,
        )

        async def send(body: dict[str, Any]) -> Answer:
            response = await client.responses.create(cast(ResponseCreateParams, body))
            usage = response.usage
            return Answer(
                response.output_text, usage.input_tokens if usage else 0, usage.output_tokens if usage else 0
            )

        started = time.perf_counter()
        await run.run(send)
        seconds = time.perf_counter() - started
    saved.write_text(json.dumps(run.to_json()))
    return seconds, run


def in_the_window(creds: dict[str, Any], previous: Any) -> tuple[float, float]:
    """(seconds, the widest gap of a 5 ms timer) of the eval run by the Evals window's service and grid."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtCore import QObject, QTimer, Signal
    from PySide6.QtWidgets import QApplication

    from app.api.client import ServiceClient
    from app.api.transport import ConnectionSettings
    from app.core.evals.graders import parse_grader
    from app.core.evals.run import EvalRun, Variant
    from app.core.tasks import TaskRegistry
    from app.services.prompts.evals import EvalService
    from app.ui.prompts.eval_dialog import EvalDialog

    app = cast(QApplication, QApplication.instance() or QApplication([]))
    app.setQuitOnLastWindowClosed(False)  # the dialog closing at the end must not stop the loop
    loop = qasync.QEventLoop(app)
    settings = ConnectionSettings(
        base_url=creds["base_url"], admin_key=creds["admin_key"], api_key=creds["api_key"]
    )
    client = ServiceClient(settings, creds["org_id"])
    gaps: list[float] = []

    class WindowSession(QObject):
        """What the window's service reads of a console's session, its price source's too (a child of it)."""

        client_changed = Signal()

        def __init__(self) -> None:
            super().__init__()
            self.client, self.tasks, self.profile = client, TaskRegistry(), None
            self.model_details: dict[str, Any] = {}

    async def measure() -> float:
        stored = await client.prompts.create({"name": "Trip", "input": "Plan {{days}} days in {{city}}."})
        session = WindowSession()
        service = EvalService(cast(Any, session))
        dialog = EvalDialog(service, [stored], list(MODELS))
        dialog.show()
        variants = [Variant(stored, model) for model in MODELS]
        run = EvalRun(dataset(), variants, [parse_grader("contains")], concurrency=CONCURRENCY)
        # The run before it shown first: each answer is compared with it as it arrives (the worst case).
        dialog.show_run(previous)
        dialog.show_run(run)
        finished: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def ended(completed: bool) -> None:
            if not finished.done():
                finished.set_result(completed)

        service.finished.connect(ended)
        last = time.perf_counter()

        def tick() -> None:
            nonlocal last
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

        timer = QTimer(interval=5)
        timer.timeout.connect(tick)
        timer.start()
        started = time.perf_counter()
        service.start(run)
        completed = await finished
        seconds = time.perf_counter() - started
        timer.stop()
        dialog.close()
        await client.aclose()
        assert completed and len(run.cells) == run.size and not run.failures, run.failures[:1]
        return seconds

    with loop:
        seconds = loop.run_until_complete(measure())
    return seconds, max(gaps, default=0.0)


def main() -> None:
    from app.core.evals.run import EvalRun

    with tempfile.TemporaryDirectory() as folder:
        # The three runs send 900 requests within the minute: more than the default limit of 600 a minute.
        process, creds = spawn_sandbox(Path(folder), "--rate-limit", "100000")
        try:
            saved = Path(folder) / "run.json"  # the sandbox's default: no delay between streamed pieces
            seconds, run = asyncio.run(evaluate(creds, saved))
            bodies = [run.body(row, variant) for row in run.dataset.rows for variant in run.variants]
            floor = asyncio.run(baseline(creds, bodies))
            started = time.perf_counter()
            reopened = EvalRun.from_json(json.loads(saved.read_text()))
            reopen_ms = (time.perf_counter() - started) * 1000
            window_seconds, widest_gap = in_the_window(creds, reopened)
        finally:
            process.terminate()
            process.wait(10)
    assert len(reopened.cells) == run.size and not run.failures, run.failures[:1]
    print(
        f"load average {os.getloadavg()[0]:.2f}; {ROWS} rows × {len(MODELS)} variants, {CONCURRENCY} at a time"
    )
    print(
        f"eval run: {seconds:.2f} s (goal ≤ {GOAL_SECONDS:.0f} s); baseline, the official client alone: {floor:.2f} s"
    )
    print(f"  ratio {seconds / floor:.2f}x; pass rate {run.pass_rate():.0%}")
    print(f"saved run reopened: {reopen_ms:.1f} ms (goal ≤ {GOAL_REOPEN_MS:.0f} ms)")
    print(
        f"in the Evals window, compared with the run before as it fills: {window_seconds:.2f} s; the GUI thread's longest wait for its loop "
        f"{widest_gap * 1000:.0f} ms (goal ≤ {GOAL_GAP_MS:.0f} ms)"
    )


if __name__ == "__main__":
    main()
