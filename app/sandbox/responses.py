"""`POST /responses` and `GET /responses/{id}`: engine steps become output items, a response, and SSE events."""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator
from typing import Any

import jsonschema
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from .engines.base import Citations, Conversation, Engine, Reasoning, Search, TextDelta
from .errors import ApiError
from .gateway import RequestContext
from .store import new_id
from .validate import Message, ResponseRequest, parse_json_body, parse_request

_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """An estimate, about one token per word or punctuation mark: enough for usage figures offline."""
    return len(_TOKEN.findall(text))


def project_of(request: Request) -> str:
    context: RequestContext = request.scope["state"]["gateway"]
    if context.key.kind != "project" or context.key.project_id is None:
        raise ApiError(
            403,
            "An admin key cannot call the Responses API: use a project API key.",
            "insufficient_permissions",
        )
    return context.key.project_id


def history_items(messages: list[Message]) -> list[dict[str, Any]]:
    return [{"role": message.role, "content": message.parts} for message in messages]


def messages_from_history(items: list[dict[str, Any]]) -> list[Message]:
    return [Message(item["role"], item["content"]) for item in items]


class ResponseBuilder:
    """Accumulates engine steps into the response object, and yields the matching stream events."""

    def __init__(self, request: ResponseRequest, delta_event: str) -> None:
        self.request = request
        self.delta_event = delta_event
        self.sequence = 0
        self.output: list[dict[str, Any]] = []
        self.message: dict[str, Any] | None = None
        self.text = ""
        self.reasoning_tokens = 0
        self.response: dict[str, Any] = {
            "id": new_id("resp"),
            "object": "response",
            "created_at": int(time.time()),
            "status": "in_progress",
            "model": request.model,
            "output": self.output,
            "previous_response_id": request.previous_response_id,
            "instructions": request.instructions,
            "tools": request.tools,
            "text": {"format": request.text_format},
            "temperature": request.temperature,
            "top_p": request.top_p,
            "max_output_tokens": request.max_output_tokens,
            "store": request.store,
            "metadata": request.metadata,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "usage": None,
            "error": None,
            "incomplete_details": None,
        }

    def event(self, kind: str, **fields: Any) -> dict[str, Any]:
        event = {"type": kind, "sequence_number": self.sequence, **fields}
        self.sequence += 1
        return event

    def snapshot(self) -> dict[str, Any]:
        snapshot: dict[str, Any] = json.loads(json.dumps(self.response))
        return snapshot

    def start(self) -> list[dict[str, Any]]:
        return [
            self.event("response.created", response=self.snapshot()),
            self.event("response.in_progress", response=self.snapshot()),
        ]

    def reasoning(self, step: Reasoning) -> list[dict[str, Any]]:
        index = len(self.output)
        item: dict[str, Any] = {"type": "reasoning", "id": new_id("rs"), "summary": []}
        part = {"type": "summary_text", "text": step.summary}
        self.reasoning_tokens += step.tokens
        events = [self.event("response.output_item.added", output_index=index, item=dict(item))]
        item["summary"] = [part]
        self.output.append(item)
        common = {"item_id": item["id"], "output_index": index, "summary_index": 0}
        events += [
            self.event(
                "response.reasoning_summary_part.added", **common, part={"type": "summary_text", "text": ""}
            ),
            self.event("response.reasoning_summary_text.delta", **common, delta=step.summary),
            self.event("response.reasoning_summary_text.done", **common, text=step.summary),
            self.event("response.reasoning_summary_part.done", **common, part=part),
            self.event("response.output_item.done", output_index=index, item=item),
        ]
        return events

    def search(self, step: Search) -> list[dict[str, Any]]:
        index = len(self.output)
        item: dict[str, Any] = {
            "type": "web_search_call",
            "id": new_id("ws"),
            "status": "in_progress",
            "action": {"type": "search", "query": step.query},
        }
        common = {"item_id": item["id"], "output_index": index}
        events = [self.event("response.output_item.added", output_index=index, item=dict(item))]
        events += [
            self.event(f"response.web_search_call.{phase}", **common)
            for phase in ("in_progress", "searching")
        ]
        item["status"] = "completed"
        self.output.append(item)
        events.append(self.event("response.web_search_call.completed", **common))
        events.append(self.event("response.output_item.done", output_index=index, item=item))
        return events

    def _open_message(self) -> list[dict[str, Any]]:
        self.message = {
            "type": "message",
            "id": new_id("msg"),
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        }
        index = len(self.output)
        self.output.append(self.message)
        events = [
            self.event(
                "response.output_item.added", output_index=index, item=json.loads(json.dumps(self.message))
            )
        ]
        self.message["content"].append({"type": "output_text", "text": "", "annotations": []})
        events.append(
            self.event(
                "response.content_part.added",
                item_id=self.message["id"],
                output_index=index,
                content_index=0,
                part={"type": "output_text", "text": "", "annotations": []},
            )
        )
        return events

    def delta(self, step: TextDelta) -> list[dict[str, Any]]:
        events = self._open_message() if self.message is None else []
        assert self.message is not None
        self.text += step.text
        events.append(
            self.event(
                self.delta_event,
                item_id=self.message["id"],
                output_index=len(self.output) - 1,
                content_index=0,
                delta=step.text,
                logprobs=[],
            )
        )
        return events

    def citations(self, step: Citations) -> list[dict[str, Any]]:
        if self.message is None:
            return []
        part = self.message["content"][0]
        events = []
        for citation in step.items:
            annotation = {
                "type": "url_citation",
                "url": citation.url,
                "title": citation.title,
                "start_index": citation.start_index,
                "end_index": citation.end_index,
            }
            events.append(
                self.event(
                    "response.output_text.annotation.added",
                    item_id=self.message["id"],
                    output_index=len(self.output) - 1,
                    content_index=0,
                    annotation_index=len(part["annotations"]),
                    annotation=annotation,
                )
            )
            part["annotations"].append(annotation)
        return events

    def finish(self, input_tokens: int, incomplete: bool) -> list[dict[str, Any]]:
        events = [] if self.message is not None else self._open_message()
        assert self.message is not None
        part = self.message["content"][0]
        part["text"] = self.text
        self.message["status"] = "incomplete" if incomplete else "completed"
        index = len(self.output) - 1
        common = {"item_id": self.message["id"], "output_index": index, "content_index": 0}
        events += [
            self.event("response.output_text.done", **common, text=self.text, logprobs=[]),
            self.event("response.content_part.done", **common, part=part),
            self.event("response.output_item.done", output_index=index, item=self.message),
        ]
        output_tokens = count_tokens(self.text) + self.reasoning_tokens
        self.response["usage"] = {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": self.reasoning_tokens},
            "total_tokens": input_tokens + output_tokens,
        }
        if incomplete:
            self.response["status"] = "incomplete"
            self.response["incomplete_details"] = {"reason": "max_output_tokens"}
            events.append(self.event("response.incomplete", response=self.snapshot()))
        else:
            self.response["status"] = "completed"
            events.append(self.event("response.completed", response=self.snapshot()))
        return events


def input_tokens(conversation: Conversation) -> int:
    total = count_tokens(conversation.request.instructions or "")
    for message in conversation.messages:
        total += 4 + count_tokens(message.text()) + sum(image.tokens() for image in message.images)
    return total


class ResponsesRoutes:
    def __init__(self, app_state: Any) -> None:
        self.state = app_state

    async def create(self, request: Request) -> Response:
        project_id = project_of(request)
        body = parse_json_body(await request.body())
        config = self.state.config
        parsed = parse_request(body, config.models, config.max_image_bytes)
        engine: Engine = self.state.engine
        if getattr(engine, "passthrough", False):
            forwarded: Response = await engine.forward(body, parsed)  # type: ignore[attr-defined]
            return forwarded

        history: list[Message] = []
        if parsed.previous_response_id:
            stored = self.state.store.load_response(project_id, parsed.previous_response_id)
            if stored is None:
                raise ApiError(
                    400,
                    f"Previous response with id '{parsed.previous_response_id}' not found.",
                    "previous_response_not_found",
                    "previous_response_id",
                )
            history = messages_from_history(stored[1])
        conversation = Conversation(parsed, history)
        builder = ResponseBuilder(parsed, config.delta_event_type)
        if parsed.stream:
            return StreamingResponse(
                self._stream(project_id, conversation, builder, engine),
                media_type="text/event-stream",
                headers={"cache-control": "no-cache", "x-request-id": new_id("req")},
            )
        async for _ in self._run(project_id, conversation, builder, engine):
            pass
        return JSONResponse(builder.response, headers={"x-request-id": new_id("req")})

    async def _run(
        self, project_id: str, conversation: Conversation, builder: ResponseBuilder, engine: Engine
    ) -> AsyncIterator[dict[str, Any]]:
        request = conversation.request
        for event in builder.start():
            yield event
        budget = request.max_output_tokens
        incomplete = False
        text_tokens = 0  # a running count: re-counting the whole text per delta was quadratic
        async for step in engine.run(conversation):
            if isinstance(step, Reasoning):
                events = builder.reasoning(step)
            elif isinstance(step, Search):
                events = builder.search(step)
            elif isinstance(step, TextDelta):
                step_tokens = count_tokens(step.text)
                if budget is not None and text_tokens + step_tokens + builder.reasoning_tokens > budget:
                    incomplete = True
                    break
                text_tokens += step_tokens
                events = builder.delta(step)
            else:
                events = builder.citations(step)
            for event in events:
                yield event
        failure = self._check_format(request, builder.text) if not incomplete else None
        if failure:
            builder.response["status"] = "failed"
            builder.response["error"] = {"code": "invalid_json_output", "message": failure}
            yield builder.event("response.failed", response=builder.snapshot())
            return
        for event in builder.finish(input_tokens(conversation), incomplete):
            yield event
        self.state.count_tokens(project_id, builder.response["usage"]["total_tokens"])
        if request.store:
            history = history_items(conversation.messages)
            history.append({"role": "assistant", "content": [{"type": "output_text", "text": builder.text}]})
            self.state.store.save_response(project_id, builder.response, history)

    @staticmethod
    def _check_format(request: ResponseRequest, text: str) -> str | None:
        text_format = request.text_format
        if text_format["type"] == "text":
            return None
        try:
            value = json.loads(text)
        except ValueError:
            return "The model's answer is not valid JSON."
        if text_format["type"] == "json_schema":
            errors = list(
                jsonschema.validators.validator_for(text_format["schema"])(text_format["schema"]).iter_errors(
                    value
                )
            )
            if errors:
                return f"The model could not satisfy the schema: {errors[0].message}."
        return None

    async def _stream(
        self, project_id: str, conversation: Conversation, builder: ResponseBuilder, engine: Engine
    ) -> AsyncIterator[bytes]:
        try:
            async for event in self._run(project_id, conversation, builder, engine):
                yield f"event: {event['type']}\ndata: {json.dumps(event, separators=(',', ':'))}\n\n".encode()
        except Exception as error:  # a failure after the stream began is an `error` event, then the end
            event = builder.event(
                "error", code="server_error", message=f"The stream failed: {error}", param=None
            )
            yield f"event: error\ndata: {json.dumps(event)}\n\n".encode()

    async def retrieve(self, request: Request) -> Response:
        project_id = project_of(request)
        response_id = request.path_params["response_id"]
        stored = self.state.store.load_response(project_id, response_id)
        if stored is None:
            raise ApiError(404, f"No response with id '{response_id}' was found.", "response_not_found")
        return JSONResponse(stored[0])
