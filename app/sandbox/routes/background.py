"""Background responses: `background=true` answers `queued` at once and the answer is made by a task.

The task runs the same steps as a foreground response and keeps every event it makes, so a client can
follow the run (`GET /v1/responses/{id}?stream=true`), leave, and come back where it left off
(`starting_after=N` replays from sequence number N+1, then follows live). `POST .../cancel` stops the run
(`cancelled`). When the run ends, its final body and its events are written to the store in one durable
write, so a finished run can still be replayed after a restart; a run that a restart cut short is marked
`failed` when the sandbox starts again.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from app.sandbox.answer.builder import Event, ResponseBuilder
from app.sandbox.answer.truncation import input_tokens
from app.sandbox.contract.stateful_routes import RetrieveQuery
from app.sandbox.contract.validate import bad
from app.sandbox.engines.base import Conversation, Engine
from app.sandbox.errors import ServiceError, quote
from app.sandbox.ids import new_id
from app.sandbox.request.engine_request import EngineRequest
from app.sandbox.routes.conversations import query
from app.sandbox.routes.project import project_of
from app.sandbox.store.aggregates import Store

Runner = Callable[[str, Conversation, ResponseBuilder, Engine], AsyncGenerator[Event, None]]
_LIVE = ("queued", "in_progress")
_CUT_SHORT = "The sandbox stopped before this background response finished."


def sse(event: Event) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event, separators=(',', ':'))}\n\n".encode()


def check_background(request: EngineRequest) -> None:
    """Background needs the response stored: it is how the client gets its answer."""
    if request.body.background and not request.store:
        raise bad(
            "Background responses need store=true: the answer is fetched (or streamed) later from the "
            "stored response. Send store=true, or leave out background.",
            "store",
            "invalid_value",
        )


class BackgroundRun:
    """One background response: its builder (the live object), its events so far, its task."""

    def __init__(self, project_id: str, builder: ResponseBuilder) -> None:
        self.project_id = project_id
        self.builder = builder
        self.events: list[Event] = []
        self.done = False
        self.cancel_asked = False  # by POST .../cancel; any other cancellation is the server stopping
        self.task: asyncio.Task[None] | None = None
        self._changed = asyncio.Condition()

    async def add(self, event: Event) -> None:
        self.events.append(event)
        async with self._changed:
            self._changed.notify_all()

    async def finish(self) -> None:
        self.done = True
        async with self._changed:
            self._changed.notify_all()

    def _moved_past(self, index: int) -> bool:
        return self.done or index < len(self.events)

    async def follow(self, after: int) -> AsyncIterator[Event]:
        """The events with a sequence number above `after`, then each new one until the run ends."""
        index = after + 1  # sequence numbers count the run's events from 0
        while True:
            while index < len(self.events):
                yield self.events[index]
                index += 1
            if self.done:
                return
            async with self._changed:
                await self._changed.wait_for(partial(self._moved_past, index))


class BackgroundRuns:
    def __init__(self, store: Store, runner: Runner) -> None:
        self.store = store
        self.runner = runner
        self.runs: dict[str, BackgroundRun] = {}
        store.database.submit(
            _mark_cut_short
        ).result()  # before the server serves: runs an earlier process never finished

    def live(self, project_id: str, response_id: str) -> BackgroundRun | None:
        run = self.runs.get(response_id)
        return run if run is not None and run.project_id == project_id else None

    async def start(
        self, project_id: str, conversation: Conversation, builder: ResponseBuilder, engine: Engine
    ) -> Response:
        """Stored as `queued` (durably) before the answer says so; then the task takes it up."""
        request = conversation.request
        saved = {"history": [], "input_items": request.input_items}
        await self.store.responses.save(project_id, builder.snapshot(), saved)
        run = BackgroundRun(project_id, builder)
        self.runs[builder.response["id"]] = run
        run.task = asyncio.create_task(self._drive(run, conversation, engine))
        headers = {"x-request-id": new_id("req")}
        if request.stream:
            return _streaming(run.follow(-1), headers)
        return JSONResponse(builder.snapshot(), headers=headers)

    async def _drive(self, run: BackgroundRun, conversation: Conversation, engine: Engine) -> None:
        builder = run.builder
        try:
            async with aclosing(self.runner(run.project_id, conversation, builder, engine)) as events:
                async for event in events:
                    await run.add(event)
        except asyncio.CancelledError:
            if builder.response["status"] not in _LIVE:  # cancelled while storing a finished answer
                raise
            if not run.cancel_asked:  # the server is stopping: the run is cut short
                builder.response["status"] = "failed"
                builder.response["error"] = {"code": "server_error", "message": _CUT_SHORT}
                raise
            for event in builder.cancel(input_tokens(conversation)):  # the text so far, and the end
                await run.add(event)
        except Exception as error:  # the engine failed: the run fails, with its reason
            builder.response["status"] = "failed"
            builder.response["error"] = {"code": "server_error", "message": quote(str(error), 500)}
            await run.add(builder.event("response.failed", response=builder.snapshot()))
        finally:
            await self._settle(run)

    async def _settle(self, run: BackgroundRun) -> None:
        """The end of a run, however it ended: its body and events kept, its followers told."""
        if run.done:
            return
        body, events = run.builder.snapshot(), list(run.events)
        try:
            await self.store.database.write(_keep(run.project_id, body, events))
        finally:
            await run.finish()
            self.runs.pop(body["id"], None)

    # -- the routes -------------------------------------------------------------------------------

    async def cancel(self, project_id: str, response_id: str) -> dict[str, Any]:
        run = self.live(project_id, response_id)
        if run is not None:
            if run.task is not None and not run.task.done():
                if run.builder.response["status"] in _LIVE:  # an answer already finished is not undone
                    run.cancel_asked = True
                    run.task.cancel()
                await asyncio.wait({run.task})
            if run.builder.response["status"] in _LIVE:  # cancelled before its task took it up
                for event in run.builder.cancel(0):
                    await run.add(event)
            await self._settle(run)
            return run.builder.snapshot()
        stored = self.store.responses.load(project_id, response_id)
        if stored is None:
            raise ServiceError(
                404, f"No response with id '{quote(response_id)}' was found.", "response_not_found"
            )
        body = stored[0]
        if not body.get("background"):
            raise bad(
                "Only responses created with background=true can be cancelled.", None, "invalid_request"
            )
        return body  # already finished: cancelling it changes nothing

    def stream(self, project_id: str, response_id: str, params: RetrieveQuery) -> Response:
        after = -1 if params.starting_after is None else params.starting_after
        run = self.live(project_id, response_id)
        if run is not None:
            return _streaming(run.follow(after), {})
        if self.store.responses.load(project_id, response_id) is None:
            raise ServiceError(
                404, f"No response with id '{quote(response_id)}' was found.", "response_not_found"
            )
        kept = self.store.database.read(
            lambda db: db.execute(
                "SELECT events FROM response_events WHERE response_id = ? AND project_id = ?",
                (response_id, project_id),
            ).fetchone()
        )
        if kept is None:
            raise bad(
                "Only a background response can be streamed again: this one was not created with "
                "background=true.",
                "stream",
            )
        events: list[Event] = json.loads(kept[0])

        async def replay() -> AsyncIterator[Event]:
            for event in events[after + 1 :]:
                yield event

        return _streaming(replay(), {})

    async def retrieve(self, request: Request, stored: Callable[[Request], Any]) -> Response:
        """`GET /v1/responses/{id}`: the live object of a run, its events (`stream=true`), or the stored one."""
        params = query(RetrieveQuery, request)
        project_id = _project(request)
        response_id = request.path_params["response_id"]
        if params.stream == "true":
            return self.stream(project_id, response_id, params)
        run = self.live(project_id, response_id)
        if run is not None:
            return JSONResponse(run.builder.snapshot())
        answer: Response = await stored(request)
        return answer


def _project(request: Request) -> str:
    return project_of(request)


def _streaming(events: AsyncIterator[Event], headers: dict[str, str]) -> StreamingResponse:
    async def body() -> AsyncIterator[bytes]:
        async for event in events:
            yield sse(event)

    headers = {"cache-control": "no-cache", **headers}
    return StreamingResponse(body(), media_type="text/event-stream", headers=headers)


def _keep(project_id: str, body: dict[str, Any], events: list[Event]) -> Callable[[sqlite3.Connection], None]:
    """The run's final body and its events, in one write."""

    def work(db: sqlite3.Connection) -> None:
        db.execute("UPDATE responses SET body = ? WHERE id = ?", (json.dumps(body), body["id"]))
        db.execute(
            "INSERT OR REPLACE INTO response_events VALUES (?, ?, ?)",
            (body["id"], project_id, json.dumps(events)),
        )

    return work


def _mark_cut_short(db: sqlite3.Connection) -> None:
    rows = db.execute(
        "SELECT id, body FROM responses WHERE json_extract(body, '$.status') IN (?, ?)", _LIVE
    ).fetchall()
    for response_id, text in rows:
        body = json.loads(text)
        body["status"] = "failed"
        body["error"] = {"code": "server_error", "message": _CUT_SHORT}
        db.execute("UPDATE responses SET body = ? WHERE id = ?", (json.dumps(body), response_id))
