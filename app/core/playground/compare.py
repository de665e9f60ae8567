"""Compare mode without Qt: a conversation's prompts re-run turn by turn on another model, as a thread of
their own (each re-run turn sends the re-run's own history, never the original answers).

The rows pair each original turn with its re-run; `CompareRun` streams the re-runs one after the other
through the same turn runner as the Playground, and tells a listener what happened to which row.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from app.core.playground.function_calls import FunctionCall, with_saved_outputs
from app.core.playground.function_loop import Answerer, run_turn
from app.core.playground.reasoning import is_reasoning_model
from app.core.playground.turn_runner import TurnRun
from app.core.playground.turns import Attachment, ErrorKind, RequestOptions, Turn, build_request
from app.core.saved_values import saved_number

if TYPE_CHECKING:
    from app.api.client import ServiceClient
    from app.core.playground.socket_channel import SocketChannel


def options_for(sent: Mapping[str, Any], model: str) -> tuple[RequestOptions, list[str]]:
    """The options a turn was sent with, for `model`, and a sentence for each that cannot go along.

    Read tolerantly: they come from a saved file. The re-run never chains on the server: it sends its own
    thread's history, so an answer follows `model`'s earlier answers in it and nothing else.
    """
    notes: list[str] = []
    text = sent.get("text")
    text_format = text.get("format") if isinstance(text, dict) else None
    schema, name = None, "answer"
    if isinstance(text_format, dict) and text_format.get("type") == "json_schema":
        schema = text_format.get("schema") if isinstance(text_format.get("schema"), dict) else None
        name = str(text_format.get("name") or "answer")
    tools = sent.get("tools")
    web_search = isinstance(tools, list) and any(
        isinstance(tool, dict) and str(tool.get("type", "")).startswith("web_search") for tool in tools
    )
    reasoning = sent.get("reasoning")
    effort = reasoning.get("effort") if isinstance(reasoning, dict) else None
    if isinstance(effort, str) and effort and not is_reasoning_model(model):
        notes.append(f"Reasoning effort “{effort}” not sent: {model} does not reason.")
        effort = None
    tokens = saved_number(sent.get("max_output_tokens"))
    options = RequestOptions(
        model=model,
        instructions=str(sent.get("instructions") or ""),
        temperature=saved_number(sent.get("temperature")),
        top_p=saved_number(sent.get("top_p")),
        max_output_tokens=int(tokens) if tokens is not None else None,
        web_search=web_search,
        schema=schema,
        schema_name=name,
        chain_on_server=False,
        reasoning_effort=effort if isinstance(effort, str) and effort else None,
    )
    return options, notes


@dataclass
class SourceTurn:
    """One turn of the conversation to compare: the original, and what is needed to send its prompt again."""

    original: Turn
    attachments: list[Attachment] = field(default_factory=list)  # images still at hand (sent this session)
    missing_images: list[str] = field(default_factory=list)  # labels of images the saved file did not keep
    options: dict[str, Any] = field(default_factory=dict)  # as sent_options() gives them


@dataclass
class CompareSource:
    conversation_id: str
    title: str
    model: str
    turns: list[SourceTurn]


@dataclass
class CompareRow:
    original: Turn
    attachments: list[Attachment]
    options: RequestOptions
    notes: list[str]  # how the re-run's request differs from the original's, in sentences
    rerun: Turn | None = None
    skipped: str = ""  # why the turn was not run


def compare_title(title: str, model: str) -> str:
    """The re-run's title, as "Tea · on service-think". A re-run compared again is named after the first
    conversation, not "Tea · on service-think · on service-ultra"."""
    return f"{title.split(' · on ')[0]} · on {model}"


def default_model(models: Sequence[str], original: str) -> str:
    """The model offered first: the first one that is not the conversation's own."""
    return next((name for name in models if name != original), models[0] if models else "")


def plan_rows(source: CompareSource, model: str) -> list[CompareRow]:
    rows = []
    for turn in source.turns:
        options, notes = options_for(turn.options, model)
        if turn.missing_images:
            names = ", ".join(turn.missing_images)
            notes.insert(0, f"Sent without its image ({names}): a saved conversation keeps no image data.")
        if turn.original.tools.functions:  # the functions it offered, with their saved outputs
            options.tools = turn.original.tools
        rows.append(CompareRow(turn.original, list(turn.attachments), options, notes))
    return rows


def answer_like(original: Turn) -> Answerer:
    """Answer a re-run's calls as the original's were answered: each function's outputs in the order it
    was called there, then its saved output; a call neither covers waits (the row says so)."""

    def answer(turn: Turn, calls: list[FunctionCall]) -> bool:
        given: dict[str, list[str]] = {}
        for call in original.calls:
            if call.output is not None:
                given.setdefault(call.name, []).append(call.output)
        used: dict[str, int] = {}  # outputs of each function already given in this re-run's earlier rounds
        for call in turn.calls:
            if call.answered:
                used[call.name] = used.get(call.name, 0) + 1
        for call in calls:
            outputs, position = given.get(call.name, []), used.get(call.name, 0)
            if position < len(outputs):
                call.output, used[call.name] = outputs[position], position + 1
        return with_saved_outputs(calls, turn.tools)

    return answer


def halt_reason(turn: Turn) -> str:
    """Why the turns after this one are not run: a refusal that every later request would meet too."""
    if turn.error_kind == ErrorKind.BLOCKED:
        return "Not run: the IP allowlist refused the turn before (403)."
    if turn.error_kind == ErrorKind.UNAUTHORIZED:
        return "Not run: the API key was refused on the turn before (401)."
    return ""


class CompareListener(Protocol):
    def row_started(self, index: int) -> None: ...
    def row_text(self, index: int, chunk: str) -> None: ...
    def row_updated(self, index: int) -> None: ...
    def row_finished(self, index: int) -> None: ...


class CompareRun:
    """Re-runs the rows one after the other on `model`; `flush()` hands the streaming row's text over.
    `channel`: the re-run's socket when the profile uses WebSocket mode, as the Playground's conversations
    have theirs (None: over HTTP)."""

    def __init__(
        self,
        rows: list[CompareRow],
        model: str,
        listener: CompareListener,
        channel: SocketChannel | None = None,
    ) -> None:
        self.rows = rows
        self.model = model
        self.listener = listener
        self.channel = channel
        self.current: TurnRun | None = None

    def flush(self) -> None:
        if self.current is not None:
            self.current.flush()

    def thread_before(self, index: int) -> list[Turn]:
        """The re-run's thread so far: the re-runs before row `index` (never the original answers)."""
        return [row.rerun for row in self.rows[:index] if row.rerun is not None]

    async def run(self, client: ServiceClient | None) -> None:
        """Every row in order; a 403 or 401 ends the run (each later turn would meet it), any other
        failure is that row's alone. Stop (a cancel) leaves the rows not reached marked, and is raised."""
        import asyncio  # here: runs in the event loop; the Playground is built before asyncio loads

        for index, row in enumerate(self.rows):
            plan = build_request(self.thread_before(index), row.original.prompt, row.attachments, row.options)
            turn = Turn(
                row.original.prompt,
                list(row.attachments),
                self.model,
                plan.chained,
                request_body=plan.body,
                schema=row.options.schema,
                tools=row.options.tools,
                chain_requested=False,
            )
            row.rerun = turn
            self.listener.row_started(index)
            self.current = TurnRun(
                turn,
                functools.partial(self.listener.row_text, index),
                functools.partial(self.listener.row_updated, index),
            )
            self.current.channel = self.channel
            try:
                await run_turn(
                    self.current,
                    client,
                    functools.partial(self.thread_before, index),
                    answer_like(row.original),
                )
            except asyncio.CancelledError:
                self._skip_after(index, "Not run: the comparison was stopped.")
                raise
            finally:
                self.current = None
                self.listener.row_finished(index)
            reason = halt_reason(turn)
            if reason:
                self._skip_after(index, reason)
                return

    def _skip_after(self, index: int, reason: str) -> None:
        for later in range(index + 1, len(self.rows)):
            self.rows[later].skipped = reason
            self.listener.row_finished(later)
