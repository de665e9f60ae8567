"""Playground turns as plain data, and the pure rules around them (no Qt): which request a turn sends,
what an error means for the person, whether a JSON schema can be used.

The PlaygroundService runs turns; everything here can be tested without an event loop.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.api.errors import (
    ApiError,
    ConnectionFailed,
    IpNotAllowed,
    RateLimited,
    StatusError,
    StreamError,
    Unauthorized,
)
from app.api.requests import (
    AssistantMessage,
    FunctionToolParam,
    InputImageParam,
    InputItem,
    InputTextParam,
    JsonSchema,
    ResponseCreateParams,
    UserMessage,
    WebSearchToolParam,
)
from app.core.playground.figures import Figures as Figures
from app.core.playground.function_calls import FunctionCall
from app.core.playground.functions import ToolSettings
from app.core.playground.reasoning import is_reasoning_model
from app.core.playground.status import RUNNING as RUNNING
from app.core.playground.status import ErrorKind as ErrorKind
from app.core.playground.status import TurnStatus as TurnStatus

if TYPE_CHECKING:  # pydantic loads with the first answer, not when the Playground is built
    from app.api.wire import OutputItem, Response
    from app.core.playground.socket_log import SocketLog
    from app.core.refusal import Refusal


@dataclass
class Attachment:
    """An image ready to send: a data URL (already checked and scaled) or a remote URL."""

    url: str
    label: str
    tokens: int
    sent: str = ""  # what goes out, short, for the chip: "PNG 2048×1365, 12 KB" ("" for a remote URL)


@dataclass(frozen=True)
class TimelineEntry:
    """One event of a turn's stream, by when it came (the inspector's timeline)."""

    seconds: float  # since the turn started
    type: str  # the event type


@dataclass
class Turn:
    """One exchange: what was sent, what came back, and how it went."""

    prompt: str
    attachments: list[Attachment]
    model: str
    chain_on_server: bool
    request_body: ResponseCreateParams | None = None  # None for a turn reopened from the file
    text: str = ""
    response: Response | None = None  # the final response, once it came
    items: list[OutputItem] = field(default_factory=list)  # searches and reasoning as they finish
    status: TurnStatus = TurnStatus.PENDING
    error: str = ""
    error_kind: ErrorKind = ErrorKind.NONE
    source_ip: str | None = None
    refusal: Refusal | None = (
        None  # after a 403 from the allowlist: which list refused, once the lists are read
    )
    retry_after: float | None = None
    retry_at: float | None = None  # time.monotonic() when a WAITING turn tries again
    chain_note: str = ""  # why a turn meant to chain on the server sent the whole history instead
    schema: JsonSchema | None = None  # the JSON schema the answer was asked to match
    prompt_id: str = ""  # the stored prompt the turn's text came from, if any
    prompt_version: int | None = None
    prompt_name: str = ""  # the prompt's name when the turn was sent ("from prompt NAME vN")
    headers: dict[str, str] = field(default_factory=dict)
    timeline: list[TimelineEntry] = field(default_factory=list)
    figures: Figures = field(default_factory=Figures)
    waiting_since: float | None = None  # time.monotonic() when the round's request set off
    proxy: str = ""  # the proxy (host:port) the turn's requests go through; "" for none
    tools: ToolSettings = field(default_factory=ToolSettings)  # the functions this turn offered
    calls: list[FunctionCall] = field(default_factory=list)  # every function call, over every round
    rounds: int = 1  # requests made for this turn: one, and one more for each set of outputs sent
    round_note: str = ""  # why the function loop ended early (its bound reached)
    followups: list[ResponseCreateParams] = field(default_factory=list)  # the requests that sent outputs back
    chain_requested: bool = True  # the person asked to chain on the server (function outputs chain too)
    # The profile whose server made the turn's responses: its chain lives there. "" when not known (a turn
    # saved before this was kept), taken to be the server in use.
    server: str = ""
    socket: SocketLog | None = None  # in WebSocket mode: the frames and what the socket did (the inspector's)

    def output_items(self) -> list[OutputItem]:
        """Every output item of the turn over all its rounds: the searches and reasoning as they finished,
        then the last response's other items (its message, with the sources)."""
        seen = {item_id for item in self.items if (item_id := getattr(item, "id", ""))}
        latest = self.response.output if self.response is not None else ()
        return [
            *self.items,
            *(item for item in latest if getattr(item, "id", "") not in seen),
        ]

    @property
    def pending_calls(self) -> list[FunctionCall]:
        return [call for call in self.calls if not call.answered]

    @property
    def response_id(self) -> str | None:
        return self.response.id if self.response is not None and self.response.id else None

    def chains_on(self, server: str) -> bool:
        """Whether a request to `server` (a profile id) can chain on this turn's response."""
        return bool(self.response_id) and (not self.server or not server or self.server == server)

    @property
    def in_history(self) -> bool:
        """Whether the turn is part of the conversation the next turn continues."""
        return self.status in (TurnStatus.COMPLETED, TurnStatus.INCOMPLETE) or bool(self.text)


@dataclass
class RequestOptions:
    """What the person chose for the next request: the model and every option sent with it."""

    model: str
    instructions: str = ""
    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = None
    web_search: bool = False
    schema: JsonSchema | None = None  # a JSON schema for structured outputs
    schema_name: str = "answer"
    chain_on_server: bool = True
    reasoning_effort: str | None = None  # sent to reasoning models only
    tools: ToolSettings = field(default_factory=ToolSettings)


@dataclass(frozen=True)
class RequestPlan:
    """The body of a turn's request, and how it continues the conversation."""

    body: ResponseCreateParams
    chained: bool  # previous_response_id was sent
    chain_note: str = ""


def user_message(prompt: str, attachments: Sequence[Attachment]) -> UserMessage:
    if not attachments:
        return {"role": "user", "content": prompt}
    parts: list[InputTextParam | InputImageParam] = [{"type": "input_text", "text": prompt}] if prompt else []
    parts += [InputImageParam(type="input_image", image_url=image.url) for image in attachments]
    return {"role": "user", "content": parts}


def call_items(calls: Sequence[FunctionCall]) -> list[InputItem]:
    """Each answered call and its output, as input items, in the order the model made them."""
    items: list[InputItem] = []
    for call in calls:
        if call.answered:
            items += [call.call_item(), call.output_item()]
    return items


def history_messages(turns: Sequence[Turn]) -> list[InputItem]:
    """The conversation so far; assistant text as a plain string (see AssistantMessage). A turn's function
    calls and their outputs go between its message and its answer, as the model saw them."""
    messages: list[InputItem] = []
    for turn in turns:
        if turn.in_history:
            messages.append(user_message(turn.prompt, turn.attachments))
            messages += call_items(turn.calls)
            if turn.text or not turn.calls:
                messages.append(AssistantMessage(role="assistant", content=turn.text))
    return messages


def _chain_note(previous: Turn) -> str:
    if previous.response_id:  # kept by another profile's server, which this one does not know
        return (
            "Not chained: the previous answer is on another server (the profile changed since), so the whole "
            "history was sent instead."
        )
    if previous.status == TurnStatus.STOPPED:
        return (
            "Not chained: the previous answer was stopped before it finished, so the server has no response "
            "to chain on. The whole history, with the partial answer, was sent instead."
        )
    how = "it failed" if previous.status == TurnStatus.FAILED else "the server sent none"
    return (
        f"Not chained: the previous answer has no response id ({how}), so the whole history was sent instead."
    )


def _left_out_note(earlier: Sequence[Turn]) -> str:
    """A message stopped before any answer is not part of the conversation: say so on the next turn, which
    would otherwise chain on the answer before it as if the stopped message had never been sent."""
    last = earlier[-1] if earlier else None
    if last is None or last.status != TurnStatus.STOPPED or last.in_history:
        return ""
    return "The previous message was stopped before any answer, so it is left out of the conversation."


def build_request(
    earlier: Sequence[Turn],
    prompt: str,
    attachments: Sequence[Attachment],
    options: RequestOptions,
    server: str = "",
) -> RequestPlan:
    """The request of a new turn after `earlier`, sent to `server` (a profile id): chained on the last
    answer's id when asked and possible (that server made it), else the whole history, saying why when
    chaining was asked for."""
    previous = next((turn for turn in reversed(earlier) if turn.in_history), None)
    note = _left_out_note(earlier) if options.chain_on_server else ""
    chain_on = previous.response_id if previous is not None and previous.chains_on(server) else None
    if options.chain_on_server and previous is not None and chain_on:
        chained_input: str | list[InputItem] = [user_message(prompt, attachments)] if attachments else prompt
        body = ResponseCreateParams(model=options.model, previous_response_id=chain_on, input=chained_input)
        if note:
            note += " This turn chains on the answer before it."
    else:
        if options.chain_on_server and previous is not None:
            note = " ".join(filter(None, (note, _chain_note(previous))))
        history = history_messages(earlier)
        whole = [*history, user_message(prompt, attachments)] if history or attachments else prompt
        body = ResponseCreateParams(model=options.model, input=whole)
    if options.instructions.strip():
        body["instructions"] = options.instructions.strip()
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.top_p is not None:
        body["top_p"] = options.top_p
    if options.max_output_tokens is not None:
        body["max_output_tokens"] = options.max_output_tokens
    if options.reasoning_effort and is_reasoning_model(options.model):
        body["reasoning"] = {"effort": options.reasoning_effort}
    add_tools(body, options)
    if options.schema is not None:
        body["text"] = {
            "format": {
                "type": "json_schema",
                "name": options.schema_name,
                "schema": options.schema,
                "strict": False,
            }
        }
    return RequestPlan(body, "previous_response_id" in body, note)


def add_tools(body: ResponseCreateParams, options: RequestOptions) -> None:
    """Web search and the functions offered, with how the model may call them."""
    tools: list[WebSearchToolParam | FunctionToolParam] = (
        [WebSearchToolParam(type="web_search_preview")] if options.web_search else []
    )
    settings = options.tools
    tools += [definition.tool() for definition in settings.functions]
    if tools:
        body["tools"] = tools
    if settings.functions:
        choice = settings.tool_choice()
        if choice is not None:
            body["tool_choice"] = choice
        if not settings.parallel_calls:
            body["parallel_tool_calls"] = False


def build_followup(earlier: Sequence[Turn], turn: Turn, server: str = "") -> ResponseCreateParams:
    """The request that sends a turn's function outputs back to `server` (a profile id; "" for the turn's
    own): chained on the response that made the calls when the turn chains on the server and that server
    made it, else the whole history with this turn's calls and outputs. The rest (model, tools, options) is
    the turn's first request's."""
    first = turn.request_body
    assert first is not None  # a turn waiting for outputs was sent in this session
    body = copy.copy(first)
    chained_first = body.pop("previous_response_id", None) is not None
    if turn.chain_requested and turn.response_id and turn.chains_on(server):
        body["previous_response_id"] = turn.response_id
        body["input"] = [call.output_item() for call in turn.calls if call.round == turn.rounds]
        return body
    sent = first["input"]
    history: list[InputItem]
    if chained_first or not isinstance(sent, list):
        history = [*history_messages(earlier), user_message(turn.prompt, turn.attachments)]
    else:
        history = list(sent)
    body["input"] = [*history, *call_items(turn.calls)]
    return body


@dataclass(frozen=True)
class Failure:
    """What an error means for the person: its kind decides what the turn offers (allow the IP, settings…)."""

    kind: ErrorKind
    message: str
    source_ip: str | None = None
    refusal: Refusal | None = (
        None  # after a 403 from the allowlist: which list refused, once the lists are read
    )
    retry_after: float | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


def failure_of(error: ApiError) -> Failure:
    message = str(error.message if isinstance(error, StatusError) else error) or type(error).__name__
    headers = dict(error.headers) if isinstance(error, StatusError) else {}
    if isinstance(error, IpNotAllowed):
        return Failure(ErrorKind.BLOCKED, message, source_ip=error.source_ip, headers=headers)
    if isinstance(error, Unauthorized):
        return Failure(ErrorKind.UNAUTHORIZED, message, headers=headers)
    if isinstance(error, RateLimited):
        return Failure(ErrorKind.RATE_LIMITED, message, retry_after=error.retry_after, headers=headers)
    if isinstance(error, ConnectionFailed | StreamError):  # a timeout is a ConnectionFailed
        return Failure(ErrorKind.CONNECTION, message, headers=headers)
    return Failure(ErrorKind.OTHER, message, headers=headers)


def final_status(response: Response) -> TurnStatus:
    """A response's own status as a turn's; one the console does not know counts as failed."""
    try:
        status = TurnStatus(response.status)
    except ValueError:
        return TurnStatus.FAILED
    return status if status in (TurnStatus.COMPLETED, TurnStatus.INCOMPLETE) else TurnStatus.FAILED


def redacted_body(body: Mapping[str, Any] | None) -> dict[str, Any]:
    """What the inspector shows; request bodies carry no key, but long image data is shortened."""
    shown = copy.deepcopy(dict(body or {}))
    for message in shown.get("input", []) if isinstance(shown.get("input"), list) else []:
        for part in message.get("content", []) if isinstance(message.get("content"), list) else []:
            url = part.get("image_url", "")
            if isinstance(url, str) and url.startswith("data:") and len(url) > 80:
                part["image_url"] = url[:60] + f"…({len(url):,} characters)"
    return shown
