"""Runs one turn's request into its Turn: the text as it streams, searches and reasoning as they finish, the
final response and figures, and each way a turn ends (completed, incomplete, failed, stopped).

Qt-free, so the Playground and Compare run turns the same way. The text is buffered here and handed over on
`flush()`, which the owner calls on a ~30 ms timer: inserting every delta as it arrives is quadratic
(measured: ~150 s for 20,000 deltas, against about 1 s buffered; docs/stack.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from app.api.errors import ApiError, ConnectionFailed, RateLimited
from app.core.playground.function_calls import FunctionCall
from app.core.playground.turns import ErrorKind, TimelineEntry, Turn, TurnStatus, failure_of, final_status

if TYPE_CHECKING:  # httpx and pydantic load with the first turn
    from app.api.client import ServiceClient
    from app.api.requests import ResponseCreateParams
    from app.api.socket_mode import SocketStream
    from app.api.streaming import ResponseStream
    from app.api.wire import Response
    from app.core.playground.socket_channel import SocketChannel
    from app.schema.items import FunctionCallItem


def record_error(turn: Turn, error: ApiError) -> None:
    """What an error means for the turn; a stream that broke after text arrived keeps it, incomplete."""
    failure = failure_of(error)
    turn.error, turn.error_kind = failure.message, failure.kind
    turn.source_ip, turn.retry_after = failure.source_ip, failure.retry_after
    if failure.headers:
        turn.headers = dict(failure.headers)
    turn.status = TurnStatus.INCOMPLETE if turn.text else TurnStatus.FAILED


class ConnectionReports(Protocol):
    """What a finished turn tells the session's connection state (ConsoleSession has both)."""

    def report_blocked(self, source_ip: str | None, key: str = "project") -> None: ...

    def report_unblocked(self) -> None: ...


def report_connection(session: ConnectionReports, turn: Turn) -> None:
    """The toolbar follows a finished turn without Check: blocked at a 403, checked again once a request is
    answered. The Playground and Compare both say it here."""
    if turn.error_kind == ErrorKind.BLOCKED:
        session.report_blocked(turn.source_ip)
    elif turn.response is not None:
        session.report_unblocked()


class TurnRun:
    """One turn on its way: `await run(client)` streams it; `flush()` hands the buffered text over."""

    def __init__(
        self,
        turn: Turn,
        on_text: Callable[[str], None],
        on_update: Callable[[], None],
        on_sent: Callable[[], None] | None = None,
    ) -> None:
        self.turn = turn
        self._on_text = on_text  # text arrived since the last flush (already added to turn.text)
        self._on_update = (
            on_update  # a search or reasoning finished, or a wait for Retry-After began or ended
        )
        self._on_sent = on_sent  # a request of the turn was written: the server works on it now
        self._pending: list[str] = []
        self.error: ApiError | None = None  # what ended the turn, when a request or stream failed
        self.no_client = ""  # why there is no client, when the session knows (a profile that cannot be used)
        self.channel: SocketChannel | None = None  # the conversation's socket, in WebSocket mode
        # The request as a new chain with the whole conversation, when its parent is no longer known.
        self.unchained: Callable[[ResponseCreateParams], ResponseCreateParams] | None = None

    def flush(self) -> None:
        if not self._pending:
            return
        chunk = "".join(self._pending)
        self._pending.clear()
        self.turn.text += chunk
        self._on_text(chunk)

    def _add_call(self, item: FunctionCallItem) -> None:
        turn = self.turn
        if any(call.call_id == item.call_id for call in turn.calls):
            return
        turn.calls.append(
            FunctionCall(item.call_id, item.name, item.arguments, item.id or "", round=turn.rounds)
        )

    async def run(self, client: ServiceClient | None, body: ResponseCreateParams | None = None) -> None:
        """To the end of the turn (or of this round of it: `body` sends function outputs back); a cancel
        (Stop) marks it stopped and is raised again."""
        import asyncio  # here: a turn runs in the event loop; the Playground is built before asyncio loads

        turn = self.turn
        started = time.perf_counter()
        # A later round (function outputs sent back) adds to the turn's figures: the turn is one exchange.
        before = turn.figures if turn.rounds > 1 else None
        base_duration = (before.duration or 0.0) if before else 0.0
        base_tokens = (
            (before.input_tokens, before.output_tokens, before.total_tokens) if before else (0, 0, 0)
        )
        base_details = (before.cached_tokens, before.reasoning_tokens) if before else (0, 0)
        if before is not None:
            turn.response = None  # the round's own response comes; its request was built from the last one
        turn.status = TurnStatus.STREAMING
        turn.waiting_since = time.monotonic()
        if client is not None:
            turn.proxy = client.transport.proxy_name("/responses")
        try:
            await self._stream_waiting_once(client, started, body)
        except asyncio.CancelledError:
            self.flush()
            turn.status = TurnStatus.STOPPED
            raise
        except ApiError as error:
            self.flush()
            self.error = error
            record_error(turn, error)
        finally:
            turn.figures.duration = base_duration + time.perf_counter() - started
            usage = turn.response.usage if turn.response is not None else None
            if usage is not None:
                turn.figures.input_tokens = base_tokens[0] + usage.input_tokens
                turn.figures.output_tokens = base_tokens[1] + usage.output_tokens
                turn.figures.total_tokens = base_tokens[2] + usage.total_tokens
                turn.figures.cached_tokens = base_details[0] + usage.cached_tokens
                turn.figures.reasoning_tokens = base_details[1] + usage.reasoning_tokens

    async def _stream_waiting_once(
        self, client: ServiceClient | None, started: float, body: ResponseCreateParams | None
    ) -> None:
        """Stream the turn; a 429 before any text is waited out once, in view (a countdown; Stop cancels)."""
        import asyncio

        turn = self.turn
        try:
            await self._stream(client, started, body)
        except RateLimited as error:
            self.flush()
            wait = error.retry_after
            if wait is None or turn.text:
                raise
            turn.status, turn.retry_after = TurnStatus.WAITING, wait
            turn.retry_at = time.monotonic() + wait
            self._on_update()
            await asyncio.sleep(wait)
            turn.status, turn.retry_at = TurnStatus.STREAMING, None
            self._on_update()
            await self._stream(client, started, body)

    async def _stream(
        self, client: ServiceClient | None, started: float, body: ResponseCreateParams | None
    ) -> None:
        from app.api.errors import StatusError
        from app.core.playground.socket_channel import CHAIN_LOST

        turn = self.turn
        if client is None:
            raise ConnectionFailed(self.no_client or "No connection: choose a profile first.")
        request = body or turn.request_body
        assert request is not None  # a turn that runs was built with its request
        try:
            final = await self._send(client, request, started)
        except StatusError as error:
            # A `store: false` parent kept only by a socket that closed since: a new chain, never the same
            # parent again (the service's WebSocket guide).
            if error.code != CHAIN_LOST or "previous_response_id" not in request or self.unchained is None:
                raise
            self._note(
                "The server no longer knew the response this turn continues (previous_response_not_found): "
                "the whole conversation was sent again as a new chain."
            )
            final = await self._send(client, self.unchained(request), started)
        turn.response = final
        turn.text = final.output_text or turn.text
        turn.status = final_status(final)
        from app.api.wire import function_calls

        for item in function_calls(final.output):  # a server that sent no item events for them
            self._add_call(item)
        if turn.status == TurnStatus.COMPLETED and turn.pending_calls:
            turn.status = TurnStatus.CALLING
        if turn.status == TurnStatus.FAILED:
            turn.error = (
                final.error.message if final.error else ""
            ) or "The response failed (no reason given)."
            turn.error_kind = ErrorKind.OTHER

    async def _send(self, client: ServiceClient, request: ResponseCreateParams, started: float) -> Response:
        """The request over the conversation's socket in WebSocket mode (opened again once if it drops
        before anything of the answer came), else, or then, over HTTP; returns the final response."""
        from app.api.errors import StatusError
        from app.api.socket_mode import SocketDropped
        from app.core.playground.socket_channel import NO_SOCKET_STATUSES
        from app.core.playground.socket_log import SocketLog

        channel, turn = self.channel, self.turn
        if channel is None or not channel.in_use:
            return await self._read(client.responses.stream(request, self._on_sent), started)
        if turn.socket is None:
            turn.socket = SocketLog()
        why = ""
        for attempt in (1, 2):
            before = (turn.figures.text_deltas, len(turn.calls), len(turn.items))
            try:
                socket = channel.socket_for(client)
                return await self._read(socket.stream(request, self._on_sent, turn.socket), started)
            except SocketDropped as dropped:
                if (turn.figures.text_deltas, len(turn.calls), len(turn.items)) != before:
                    raise  # the partial answer is kept, as a dropped HTTP stream's is
                why = (
                    f"The WebSocket dropped twice ({dropped}): this request and the rest of the conversation "
                )
                why += "went over HTTP."
                if attempt == 1:
                    self._note(
                        f"The WebSocket dropped ({dropped}): it was opened again and the request sent again."
                    )
            except StatusError as refused:
                if refused.status not in NO_SOCKET_STATUSES:
                    raise  # a 401, 403 or 429 at the upgrade is the same error as over HTTP
                why = f"The server offers no WebSocket mode ({refused.status} at the upgrade): this conversation "
                why += "goes over HTTP."
                break
        channel.fall_back(why)
        self._note(why)
        return await self._read(client.responses.stream(request, self._on_sent), started)

    def _note(self, text: str) -> None:
        """What the socket did, for the inspector and the person (the Playground posts new notes)."""
        from app.core.playground.socket_log import SocketLog

        if self.turn.socket is None:
            self.turn.socket = SocketLog()
        self.turn.socket.notes.append(text)

    async def _read(self, stream: ResponseStream | SocketStream, started: float) -> Response:
        from app.api.events import OutputItemEvent, TextDeltaEvent
        from app.schema.items import FunctionCallItem, ReasoningItem, WebSearchCall

        turn = self.turn
        # Leaving the block (the end, Stop, a fault in the loop) closes the response: the server hears it now.
        async with stream:
            turn.headers = stream.state.headers
            async for event in stream:
                turn.timeline.append(TimelineEntry(event.received_at - started, event.type))
                match event:
                    case TextDeltaEvent():
                        if turn.figures.time_to_first_token is None:
                            turn.figures.time_to_first_token = event.received_at - started
                        turn.figures.last_token_at = event.received_at - started
                        turn.figures.text_deltas += 1
                        self._pending.append(event.delta)
                    case OutputItemEvent(item=WebSearchCall() | ReasoningItem()) if event.done:
                        self.flush()
                        turn.items.append(event.item)
                        self._on_update()
                    case OutputItemEvent(item=FunctionCallItem() as call) if event.done:
                        self.flush()
                        self._add_call(call)
                        self._on_update()
        self.flush()
        final = stream.state.response
        assert final is not None  # the stream raises when it ends without a final response
        return final
