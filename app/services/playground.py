"""Runs Playground turns: builds the request, streams it, buffers deltas, keeps figures and the exchange.

Deltas are buffered and flushed on a ~30 ms timer: inserting each one as it arrives is quadratic and
stalls the UI (STACK-FACTS.md: 151 s for 20,000 deltas, against about 1 s buffered).
"""

from __future__ import annotations

import asyncio
import copy
import time
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.api.errors import (
    ApiError,
    ConnectionFailed,
    IpNotAllowed,
    RateLimited,
    StatusError,
    StreamError,
    Unauthorized,
)
from app.api.output import citations, output_text, reasoning_summary, search_queries

from .session import ConsoleSession

FLUSH_INTERVAL_MS = 30


@dataclass
class Attachment:
    """An image ready to send: a data URL (already checked and scaled) or a remote URL."""

    url: str
    label: str
    tokens: int


@dataclass
class Figures:
    time_to_first_token: float | None = None
    duration: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0

    @property
    def tokens_per_second(self) -> float | None:
        if not self.duration or not self.output_tokens:
            return None
        streaming = self.duration - (self.time_to_first_token or 0)
        return self.output_tokens / streaming if streaming > 0 else None


@dataclass
class Turn:
    """One exchange: what was sent, what came back, and how it went."""

    prompt: str
    attachments: list[Attachment]
    model: str
    chain_on_server: bool
    request_body: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    response: dict[str, Any] | None = None
    status: str = "pending"  # pending, streaming, completed, incomplete, failed, stopped
    error: str = ""
    error_kind: str = ""  # blocked, unauthorized, rate_limited, connection, other
    source_ip: str | None = None
    retry_after: float | None = None
    headers: dict[str, str] = field(default_factory=dict)
    timeline: list[tuple[float, str]] = field(default_factory=list)  # (seconds since start, event type)
    figures: Figures = field(default_factory=Figures)

    @property
    def response_id(self) -> str | None:
        return self.response.get("id") if self.response else None


@dataclass
class RequestOptions:
    model: str
    instructions: str = ""
    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = None
    web_search: bool = False
    schema: dict[str, Any] | None = None  # a JSON schema for structured outputs
    schema_name: str = "answer"
    chain_on_server: bool = True


def redacted_body(body: dict[str, Any]) -> dict[str, Any]:
    """What the inspector shows; request bodies carry no key, but long image data is shortened."""
    shown = copy.deepcopy(body)
    for message in shown.get("input", []) if isinstance(shown.get("input"), list) else []:
        for part in message.get("content", []) if isinstance(message.get("content"), list) else []:
            url = part.get("image_url", "")
            if isinstance(url, str) and url.startswith("data:") and len(url) > 80:
                part["image_url"] = url[:60] + f"…({len(url):,} characters)"
    return shown


class PlaygroundService(QObject):
    turn_added = Signal(int)
    text_flushed = Signal(int, str)  # turn index, the text that arrived since the last flush
    turn_updated = Signal(int)  # search, reasoning or status changed
    turn_finished = Signal(int)
    totals_changed = Signal()
    conversation_reset = Signal()

    def __init__(self, session: ConsoleSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.turns: list[Turn] = []
        self._pending: list[str] = []
        self._pending_turn = -1
        self._timer = QTimer(self)
        self._timer.setInterval(FLUSH_INTERVAL_MS)
        self._timer.timeout.connect(self._flush)

    # -- requests ---------------------------------------------------------------------------------

    def _history_messages(self, upto: int) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        for turn in self.turns[:upto]:
            if turn.status not in ("completed", "incomplete") and not turn.text:
                continue
            messages.append(self._user_message(turn.prompt, turn.attachments))
            messages.append({"role": "assistant", "content": [{"type": "output_text", "text": turn.text}]})
        return messages

    @staticmethod
    def _user_message(prompt: str, attachments: list[Attachment]) -> dict[str, Any]:
        if not attachments:
            return {"role": "user", "content": prompt}
        parts: list[dict[str, Any]] = [{"type": "input_text", "text": prompt}] if prompt else []
        parts += [{"type": "input_image", "image_url": image.url} for image in attachments]
        return {"role": "user", "content": parts}

    def build_body(
        self, prompt: str, attachments: list[Attachment], options: RequestOptions, index: int | None = None
    ) -> dict[str, Any]:
        index = len(self.turns) if index is None else index
        body: dict[str, Any] = {"model": options.model}
        previous = next(
            (t for t in reversed(self.turns[:index]) if t.response_id and t.status != "failed"), None
        )
        if options.chain_on_server and previous is not None:
            body["previous_response_id"] = previous.response_id
            body["input"] = [self._user_message(prompt, attachments)] if attachments else prompt
        else:
            history = self._history_messages(index)
            body["input"] = (
                [*history, self._user_message(prompt, attachments)] if history or attachments else prompt
            )
        if options.instructions.strip():
            body["instructions"] = options.instructions.strip()
        for name in ("temperature", "top_p", "max_output_tokens"):
            value = getattr(options, name)
            if value is not None:
                body[name] = value
        if options.web_search:
            body["tools"] = [{"type": "web_search_preview"}]
        if options.schema is not None:
            body["text"] = {
                "format": {
                    "type": "json_schema",
                    "name": options.schema_name,
                    "schema": options.schema,
                    "strict": False,
                }
            }
        return body

    def send(self, prompt: str, attachments: list[Attachment], options: RequestOptions) -> int:
        """Start a new turn; returns its index. A turn already streaming is stopped first."""
        self.stop()
        body = self.build_body(prompt, attachments, options)
        turn = Turn(
            prompt,
            list(attachments),
            options.model,
            options.chain_on_server and "previous_response_id" in body,
            request_body=body,
        )
        self.turns.append(turn)
        index = len(self.turns) - 1
        self.turn_added.emit(index)
        task = self.session.tasks.start("playground.stream", self._run(index))
        task.add_done_callback(lambda _task: self._never_started(index))
        return index

    def _never_started(self, index: int) -> None:
        """A turn cancelled before its task ran a single step still ends, as stopped."""
        if index < len(self.turns) and self.turns[index].status == "pending":
            self.turns[index].status = "stopped"
            self.turn_finished.emit(index)

    def resend_from(self, index: int, prompt: str, options: RequestOptions) -> int:
        """Edit an earlier message (or regenerate the last answer): drop it and the turns after, send again."""
        attachments = self.turns[index].attachments if index < len(self.turns) else []
        self.stop()
        del self.turns[index:]
        self.conversation_reset.emit()
        for i in range(len(self.turns)):
            self.turn_added.emit(i)
            self.turn_finished.emit(i)
        return self.send(prompt, attachments, options)

    def new_conversation(self) -> None:
        self.stop()
        self.turns.clear()
        self.conversation_reset.emit()
        self.totals_changed.emit()

    def stop(self) -> bool:
        return self.session.tasks.cancel("playground.stream")

    @property
    def streaming(self) -> bool:
        return self.session.tasks.running("playground.stream")

    # -- the stream -------------------------------------------------------------------------------

    async def _run(self, index: int) -> None:
        turn = self.turns[index]
        client = self.session.client
        started = time.perf_counter()
        turn.status = "streaming"
        self._pending_turn = index
        self._timer.start()
        stream = None
        try:
            if client is None:
                raise ConnectionFailed("No connection: choose a profile first.")
            stream = client.responses.stream(turn.request_body)  # the turn keeps a timeline
            async for event in stream:
                turn.timeline.append((event.received_at - started, event.type))
                if event.is_text_delta:
                    if turn.figures.time_to_first_token is None:
                        turn.figures.time_to_first_token = event.received_at - started
                    self._pending.append(event.delta)
                elif event.type == "response.output_item.done":
                    item = event.data.get("item") or {}
                    if item.get("type") in ("web_search_call", "reasoning"):
                        self._flush()
                        turn.response = {"output": [*(turn.response or {}).get("output", []), item]}
                        self.turn_updated.emit(index)
            self._flush()
            final = stream.state.response or {}
            turn.response = final
            turn.text = output_text(final) or turn.text
            turn.status = (
                "completed" if final.get("status") == "completed" else str(final.get("status", "failed"))
            )
            if final.get("status") == "failed":
                turn.error = str((final.get("error") or {}).get("message", "The response failed."))
                turn.error_kind = "other"
        except asyncio.CancelledError:
            self._flush()
            turn.status = "stopped"
            raise
        except ApiError as error:
            self._flush()
            self._record_error(turn, error)
        finally:
            self._timer.stop()
            if stream is not None:
                turn.headers = stream.state.headers
            turn.figures.duration = time.perf_counter() - started
            usage = (turn.response or {}).get("usage") or {}
            turn.figures.input_tokens = int(usage.get("input_tokens", 0))
            turn.figures.output_tokens = int(usage.get("output_tokens", 0))
            turn.figures.total_tokens = int(usage.get("total_tokens", 0))
            self.turn_finished.emit(index)
            self.totals_changed.emit()

    @staticmethod
    def _record_error(turn: Turn, error: ApiError) -> None:
        turn.error = str(error.message if isinstance(error, StatusError) else error)
        if isinstance(error, StatusError):
            turn.headers = dict(error.headers)
        if isinstance(error, IpNotAllowed):
            turn.error_kind, turn.source_ip = "blocked", error.source_ip
        elif isinstance(error, Unauthorized):
            turn.error_kind = "unauthorized"
        elif isinstance(error, RateLimited):
            turn.error_kind, turn.retry_after = "rate_limited", error.retry_after
        elif isinstance(error, ConnectionFailed | StreamError):
            turn.error_kind = "connection"
        else:
            turn.error_kind = "other"
        # A stream that broke after text arrived keeps it, marked incomplete.
        turn.status = "incomplete" if turn.text else "failed"

    def _flush(self) -> None:
        if not self._pending:
            return
        chunk = "".join(self._pending)
        self._pending.clear()
        turn = self.turns[self._pending_turn]
        turn.text += chunk
        self.text_flushed.emit(self._pending_turn, chunk)

    # -- reading a turn ---------------------------------------------------------------------------

    def totals(self) -> Figures:
        total = Figures()
        for turn in self.turns:
            total.input_tokens += turn.figures.input_tokens
            total.output_tokens += turn.figures.output_tokens
            total.total_tokens += turn.figures.total_tokens
        return total

    @staticmethod
    def details(turn: Turn) -> dict[str, Any]:
        response = turn.response or {}
        return {
            "searches": search_queries(response),
            "citations": citations(response),
            "reasoning": reasoning_summary(response),
        }
