"""Eval runs for the Evals window: one run at a time, as a named task of the session (Stop cancels it, the
cells answered stay), each cell announced as it is graded; runs saved, reopened and exported as files."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, cast

from PySide6.QtCore import QObject, Signal

from app.api.errors import ApiError
from app.api.requests import ResponseCreateParams
from app.core.evals.dataset import Dataset, DatasetError, load
from app.core.evals.graders import VERDICT_SCHEMA, Judge
from app.core.evals.run import Answer, Cell, EvalRun
from app.services.prices import price_source
from app.services.session.session import ConsoleSession

TASK = "evals.run"


class EvalService(QObject):
    cell_done = Signal(int, int)  # row, variant: `run.cells` holds it
    finished = Signal(bool)  # False: stopped before the end
    failed = Signal(str)  # a sentence for the person

    def __init__(self, session: ConsoleSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.run: EvalRun | None = None
        self.running = False

    def start(self, run: EvalRun) -> None:
        if self.session.client is None:
            self.failed.emit("Connect to a service first.")
            return
        self.run, self.running = run, True
        # Announced when the task ends, however: a Stop before its first step never runs its `finally`.
        self.session.tasks.start(TASK, self._run(run)).add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        self.running = False
        self.finished.emit(not task.cancelled() and task.exception() is None)

    def stop(self) -> None:
        self.session.tasks.cancel(TASK)

    async def _run(self, run: EvalRun) -> None:
        client = self.session.client
        assert client is not None
        if not run.prices:  # each cell's cost, at the prices the Playground's answers show
            run.prices = (await price_source(self.session).read()).prices

        async def send(body: dict[str, Any]) -> Answer:
            return Answer.of(await client.responses.create(cast(ResponseCreateParams, body)))

        judge_model = run.variants[0].model if run.variants else ""

        async def judge(instructions: str, question: str, schema: dict[str, Any]) -> dict[str, Any]:
            text_format = {"type": "json_schema", "name": "verdict", "schema": schema or VERDICT_SCHEMA}
            body = {
                "model": judge_model,
                "instructions": instructions,
                "input": question,
                "text": {"format": text_format},
            }
            response = await client.responses.create(cast(ResponseCreateParams, body))
            verdict = json.loads(response.output_text)
            return verdict if isinstance(verdict, dict) else {}

        def announce(cell: Cell) -> None:
            self.cell_done.emit(cell.row, cell.variant)

        await run.run(send, cast(Judge, judge), announce)
        failure = next((e for e in run.failures if isinstance(e, ApiError)), None)
        if failure is not None and len(run.failures) == len(run.cells):
            self.failed.emit(f"No answer came back: {failure}")

    # -- files ----------------------------------------------------------------------------------------

    def load_dataset(self, path: Path) -> Dataset | None:
        try:
            return load(path)
        except DatasetError as error:
            self.failed.emit(str(error))
            return None

    def save(self, run: EvalRun, path: Path) -> None:
        self._write(path, json.dumps(run.to_json(), indent=1))

    def export_csv(self, run: EvalRun, path: Path) -> None:
        self._write(path, run.to_csv())

    def reopen(self, path: Path) -> EvalRun | None:
        try:
            return EvalRun.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as error:
            self.failed.emit(f"{path.name} is not a saved eval run: {error}")
            return None

    def _write(self, path: Path, text: str) -> None:
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as error:
            self.failed.emit(f"{path} could not be written: {error}")
