"""An engine that fronts any OpenAI-compatible server: its Responses API where it has one, else Chat Completions.

Which of the two is found once, on first use, by a probe (or set with `--upstream-api`). Either way the
answer comes back as text deltas, so clients get the sandbox's own well-formed event stream, never the
upstream's bytes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass
from enum import Enum
from functools import partial
from typing import Any

import httpx

from app.sandbox.errors import ServiceError, one_line

from .base import Conversation, Step
from .chat_completions import (
    ChatForm,
    UpstreamFailure,
    chat_deltas,
    chat_request,
    responses_deltas,
    responses_request,
)
from .upstream_tools import WireNames
from .upstream_whole import chat_answer, responses_answer

# Upstream statuses that mean "this request", so the sandbox's client gets them as its own 4xx.
_CLIENT_STATUSES = {400, 413, 415, 422}


@dataclass(frozen=True)
class Reader:
    """How one API's answers are read into steps: as a stream of SSE lines, or whole (its JSON)."""

    stream: Callable[[AsyncIterator[str]], AsyncIterator[Step]]
    whole: Callable[[Any], list[Step]]


class UpstreamApi(Enum):
    """Which API the upstream is spoken to in."""

    RESPONSES = "responses"
    CHAT = "chat"
    AUTO = "auto"


def _upstream_message(response: httpx.Response) -> str:
    """The upstream's own reason, from the error shapes servers use, or the start of its body."""
    try:
        body = response.json()
    except ValueError:
        return one_line(response.text)
    if isinstance(body, dict):
        error = body.get("error", body.get("detail", body.get("message")))
        if isinstance(error, dict):
            error = error.get("message", error)
        if error is not None:
            return one_line(str(error))
    return one_line(json.dumps(body))


class UpstreamEngine:
    """Runs each conversation on the upstream server and yields its answer as text deltas."""

    name = "upstream"
    limits_output = True  # max_output_tokens goes upstream, which cuts the answer and says so itself

    def __init__(
        self, url: str, key: str | None, model_map: dict[str, str], api: UpstreamApi = UpstreamApi.AUTO
    ) -> None:
        self.url = url.rstrip("/")
        self.model_map = model_map
        self._api: UpstreamApi | None = None if api is UpstreamApi.AUTO else api
        self._chat_form = ChatForm()  # learnt from a chat server's refusals
        self._probe_lock = asyncio.Lock()
        headers = {"authorization": f"Bearer {key}"} if key else {}
        # No idle connections kept: the sandbox's loop ends with its server, and nothing would close them.
        limits = httpx.Limits(max_keepalive_connections=0)
        self.client = httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(10, read=300), limits=limits)

    async def api(self) -> UpstreamApi:
        """The API this upstream is spoken to in, probed once: a Responses server does not 404 `/responses`."""
        if self._api is not None:
            return self._api
        async with self._probe_lock:
            if self._api is None:
                try:
                    probe = await self.client.post(f"{self.url}/responses", json={})
                except httpx.HTTPError as error:
                    raise self._unreachable(error) from None
                missing = probe.status_code in (404, 405)
                self._api = UpstreamApi.CHAT if missing else UpstreamApi.RESPONSES
            return self._api

    async def run(self, conversation: Conversation) -> AsyncGenerator[Step, None]:
        api = await self.api()
        model = self.model_map.get(conversation.request.model, conversation.request.model)
        names = WireNames(conversation.request.tools)
        if api is UpstreamApi.RESPONSES:
            body = responses_request(conversation, model)
            read = Reader(partial(responses_deltas, names=names), partial(responses_answer, names=names))
            async for step in self._ask("/responses", body, read):
                yield step
            return
        read = Reader(partial(chat_deltas, names=names), partial(chat_answer, names=names))
        while True:
            answered = False
            try:
                body = chat_request(conversation, model, self._chat_form)
                async for step in self._ask("/chat/completions", body, read):
                    answered = True
                    yield step
                return
            except ServiceError as error:
                # Asked again only for a refusal before any answer, in the form the refusal points to.
                if answered or not self._learn(error, conversation):
                    raise

    def _learn(self, refusal: ServiceError, conversation: Conversation) -> bool:
        """Whether the refusal names a part of the request this server takes in another form (then kept)."""
        if refusal.code not in ("upstream_refused", "upstream_error"):
            return False
        form = self._chat_form
        if "stream_options" in refusal.message and form.usage_in_stream and conversation.live:
            self._chat_form = dataclasses.replace(form, usage_in_stream=False)
            return True
        # llama.cpp's servers take a schema only inside `json_object` (llama-cpp-python answers 500 for a
        # response format it does not know).
        wants_schema = conversation.request.text_format["type"] == "json_schema"
        if wants_schema and "response_format" in refusal.message and not form.schema_in_json_object:
            self._chat_form = dataclasses.replace(form, schema_in_json_object=True)
            return True
        return False

    async def _ask(self, path: str, body: dict[str, Any], read: Reader) -> AsyncIterator[Step]:
        """The upstream's answer as steps: read as it streams, or whole when the body asks for no stream."""
        try:
            if body["stream"]:
                async with self.client.stream("POST", self.url + path, json=body) as upstream:
                    if upstream.status_code >= 400:
                        await upstream.aread()
                        raise self._refused(path, upstream)
                    async for step in read.stream(upstream.aiter_lines()):
                        yield step
                return
            answer = await self.client.post(self.url + path, json=body)
            if answer.status_code >= 400:
                raise self._refused(path, answer)
            try:
                whole = answer.json()
            except ValueError:
                raise UpstreamFailure(f"it answered with no JSON: {answer.text[:80]!r}") from None
            for step in read.whole(whole):
                yield step
        except UpstreamFailure as failure:
            during = " mid-answer" if body["stream"] else ""
            raise ServiceError(
                502,
                f"The upstream server at {self.url} failed{during}: {one_line(failure.message)}",
                "upstream_error",
            ) from None
        except httpx.HTTPError as error:
            raise self._unreachable(error) from None

    def _refused(self, path: str, upstream: httpx.Response) -> ServiceError:
        status, reason = upstream.status_code, _upstream_message(upstream)
        where = f"The upstream server at {self.url}"
        if status in (404, 405):
            api = "Chat Completions API" if path == "/chat/completions" else "Responses API"
            message = f"{where} has no {api}: POST {path} answered {status} ({reason})."
            return ServiceError(502, message, "upstream_unsupported")
        if status == 429:
            headers = (
                {"retry-after": upstream.headers["retry-after"]} if "retry-after" in upstream.headers else {}
            )
            return ServiceError(
                429, f"{where} is rate limiting: {reason}", "rate_limit_exceeded", headers=headers
            )
        if status in _CLIENT_STATUSES:
            return ServiceError(
                400, f"{where} refused the request (POST {path}, {status}): {reason}", "upstream_refused"
            )
        return ServiceError(502, f"{where} failed (POST {path}, {status}): {reason}", "upstream_error")

    def _unreachable(self, error: httpx.HTTPError) -> ServiceError:
        reason = str(error) or type(error).__name__
        return ServiceError(
            502, f"The upstream server at {self.url} could not be reached: {reason}.", "upstream_unreachable"
        )

    async def aclose(self) -> None:
        await self.client.aclose()
