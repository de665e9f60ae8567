"""What a model engine gives the Responses route: a stream of steps, turned into items and events there.

A local-weights engine (llama.cpp, say) only has to yield `TextDelta`s: it fits this interface as is.

What an engine reads (app/sandbox/request/parsed.py): `conversation.messages` (earlier turns first), each a
`Message` with `.role`, `.text()`, `.parts` and `.images`; `conversation.request` is a `EngineRequest`
with `.model`, `.instructions`, `.max_output_tokens`, `.temperature`, `.top_p`, `.text_format` (a dict:
{"type": "text" | "json_object"} or {"type": "json_schema", "name", "schema", "strict"}), `.web_search`,
`.force_search`, `.tools` (a `ToolPlan`: the functions this turn may call, and how), `.reasoning_effort`, `.reasoning_summary`, `.verbosity` ("low" | "medium" | "high") and
`.body`, the whole validated `contract.CreateResponse`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Protocol

from app.sandbox.request.engine_request import EngineRequest, Message


@dataclass(frozen=True)
class Reasoning:
    summary: str  # "" when no summary was asked for
    tokens: int
    text: str = ""  # the reasoning itself: handed out only sealed (`reasoning.encrypted_content`)


@dataclass(frozen=True)
class SearchResult:
    url: str
    title: str
    snippet: str


@dataclass(frozen=True)
class Search:
    query: str
    results: tuple[SearchResult, ...]


@dataclass(frozen=True)
class TokenLogprob:
    """One sampled token: its log probability and the most likely alternatives (best first)."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()
    # The tokens' own UTF-8 bytes, where a token is part of a character (else: the text's encoding).
    token_bytes: bytes | None = None
    top_bytes: tuple[bytes, ...] = ()


@dataclass(frozen=True)
class TextDelta:
    text: str
    logprobs: tuple[TokenLogprob, ...] = ()  # the tokens of `text`, when logprobs were asked for


@dataclass(frozen=True)
class Citation:
    url: str
    title: str
    start_index: int
    end_index: int


@dataclass(frozen=True)
class Citations:
    """Sent after the text: the citations' indexes refer to the finished text."""

    items: tuple[Citation, ...] = field(default=())


@dataclass(frozen=True)
class TokenizerUsage:
    """Real token counts, from an engine with a tokenizer (sent last); without it the route estimates them."""

    input_tokens: int
    output_tokens: int
    incomplete: bool = False  # the answer hit max_output_tokens


@dataclass(frozen=True)
class FunctionCallDelta:
    """A piece of a function call's arguments (a JSON text). The first piece of a call (a new `index`)
    opens its item, named `name`; the call ends when the answer does or another call begins."""

    index: int
    name: str
    arguments: str
    namespace: str | None = None


@dataclass(frozen=True)
class Incomplete:
    """The engine's source cut the answer at max_output_tokens and sent no token counts (else: TokenizerUsage)."""


Step = Reasoning | Search | TextDelta | Citations | TokenizerUsage | FunctionCallDelta | Incomplete


@dataclass
class Conversation:
    """The request with its history resolved: earlier turns first, this turn's messages last."""

    request: EngineRequest
    history: list[Message]
    # Whether the client sees the answer as it is made (a stream, a socket, a background run that may be
    # read live); False when it waits for the whole answer, which an engine may then fetch in one piece.
    live: bool = True

    @property
    def messages(self) -> list[Message]:
        return [*self.history, *self.request.messages]

    def last_user_text(self) -> str:
        for message in reversed(self.request.messages):
            if message.role == "user" and message.text().strip():
                return message.text().strip()
        return ""


class Engine(Protocol):
    name: str

    # A generator, not any iterator: the route closes it (aclose) the moment the client leaves.
    def run(self, conversation: Conversation) -> AsyncGenerator[Step, None]: ...
