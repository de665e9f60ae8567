"""`/v1/responses` routes: create (plain or streamed), retrieve, delete, and list a response's input items."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from app.common.jsonschema_check import mismatches
from app.sandbox.answer.builder import Event, ResponseBuilder
from app.sandbox.answer.compaction import compact_history, compaction_item
from app.sandbox.answer.estimate import count_tokens
from app.sandbox.answer.sealed import Sealer
from app.sandbox.answer.tool_loop import (
    check_calls,
    check_outputs,
    message_from_json,
    message_json,
    resolve_references,
)
from app.sandbox.answer.truncation import fit_context, fit_counted, input_tokens
from app.sandbox.contract.responses import ItemsQuery
from app.sandbox.contract.validate import bad, parse_json_body, validate_query
from app.sandbox.engines.base import (
    Conversation,
    Engine,
    FunctionCallDelta,
    Incomplete,
    Reasoning,
    Search,
    TextDelta,
    TokenizerUsage,
)
from app.sandbox.errors import ServiceError, one_line, quote
from app.sandbox.gateway.metering import count_answer
from app.sandbox.ids import new_id
from app.sandbox.request.engine_request import EngineRequest, Message, parse_request
from app.sandbox.routes.background import BackgroundRuns, check_background
from app.sandbox.routes.conversations import ConversationRoutes, conversation_id_of
from app.sandbox.routes.project import project_of
from app.sandbox.routes.waiting import join_line, model_window, unless_client_leaves
from app.sandbox.state import SandboxState
from app.schema.items import ReasoningItem


def history_items(messages: list[Message]) -> list[dict[str, Any]]:
    return [message_json(message) for message in messages]


def messages_from_history(items: list[dict[str, Any]]) -> list[Message]:
    return [message_from_json(item) for item in items]


def list_query(request: Request) -> ItemsQuery:
    return validate_query(ItemsQuery, request.query_params.multi_items())


def _stored(history: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(conversation so far, this turn's input items) of a stored response; older stores kept the first only."""
    if isinstance(history, dict):
        return history["history"], history["input_items"]
    return history, []


PromptResolver = Callable[[str, dict[str, Any]], dict[str, Any]]


def _no_prompts(_: str, body: dict[str, Any]) -> dict[str, Any]:
    return body


class ResponsesRoutes:
    def __init__(self, app_state: SandboxState, resolve_prompt: PromptResolver = _no_prompts) -> None:
        self.state = app_state
        self.resolve_prompt = resolve_prompt  # fills in the `prompt` parameter (routes/prompts.py)
        self.sealer = Sealer.for_store(app_state.store)
        self.conversations = ConversationRoutes(app_state)
        self.background = BackgroundRuns(app_state.store, self.run)

    def history(self, project_id: str, parsed: EngineRequest) -> list[Message]:
        """The earlier turns: of the conversation, or of the previous response (never both: a 400)."""
        of_conversation = self.conversations.history(project_id, parsed)
        if of_conversation is not None:
            return of_conversation[1]
        if not parsed.previous_response_id:
            return []
        stored = self.state.store.responses.load(project_id, parsed.previous_response_id)
        if stored is None:
            raise bad(
                f"Previous response with id '{quote(parsed.previous_response_id)}' not found.",
                "previous_response_id",
                "previous_response_not_found",
            )
        return messages_from_history(_stored(stored[1])[0])

    def unseal(self, blob: str) -> str | None:
        """A compaction item's summary (answer/compaction.py), or None for one this sandbox did not seal."""
        content = self.sealer.open(blob)
        return None if content is None else content.text

    def check_sealed(self, parsed: EngineRequest) -> None:
        """Reasoning items sent back must carry content this sandbox sealed, unchanged."""
        items = parsed.body.input if isinstance(parsed.body.input, list) else []
        for index, item in enumerate(items):
            if isinstance(item, ReasoningItem) and item.encrypted_content is not None:
                if self.sealer.open(item.encrypted_content) is None:
                    raise bad(
                        "The reasoning item's encrypted_content was not made by this sandbox, or was "
                        "changed: send it back exactly as it came, or leave the item out.",
                        f"input[{index}].encrypted_content",
                        "invalid_encrypted_content",
                    )

    async def prepared(
        self, project_id: str, body: Any, kept: tuple[str, list[Message]] | None = None
    ) -> tuple[Conversation, ResponseBuilder, Engine]:
        """A request read and checked, every refusal made, ready to run; `kept`: a WebSocket's last
        response (id, its conversation), which `previous_response_id` may name though it was not stored."""
        body = self.resolve_prompt(project_id, body)  # a stored prompt's text, over HTTP and the socket alike
        config = self.state.config
        resolve_references(self.state.store, project_id, body)
        parsed = parse_request(body, config.models, config.max_image_bytes, self.unseal)
        check_background(parsed)
        self.check_sealed(parsed)
        engine: Engine = self.state.engine
        prepare = getattr(engine, "prepare", None)
        if prepare is not None:  # refusals an engine must make before a stream starts (the local engine)
            await prepare(parsed)
        if kept is not None and parsed.previous_response_id == kept[0] and parsed.body.conversation is None:
            history = kept[1]
        else:
            history = self.history(project_id, parsed)
        check_outputs(parsed.output_refs, [*history, *parsed.messages])
        window = model_window(engine, parsed.model) or config.context_window
        conversation, summary = compact_history(Conversation(parsed, history), window)
        excess = getattr(engine, "excess_tokens", None)  # an engine that counts in the model's own tokens
        if excess is None:
            conversation = fit_context(conversation, window)
        else:
            conversation = await fit_counted(conversation, window, excess)
        builder = ResponseBuilder(parsed, config.delta_event_type, self.sealer)
        if summary is not None:
            builder.compaction = compaction_item(summary, self.sealer)
        return conversation, builder, engine

    async def create(self, request: Request) -> Response:
        project_id = project_of(request)
        body = parse_json_body(await request.body())
        conversation, builder, engine = await self.prepared(project_id, body)
        parsed = conversation.request
        if parsed.body.background:
            return await self.background.start(project_id, conversation, builder, engine)
        if parsed.stream:
            return StreamingResponse(
                self._stream(project_id, conversation, builder, engine),
                media_type="text/event-stream",
                headers={"cache-control": "no-cache", "x-request-id": new_id("req")},
            )
        whole = dataclasses.replace(conversation, live=False)  # the client waits for the whole answer
        answered = await unless_client_leaves(request, self._drain(project_id, whole, builder, engine))
        if not answered:  # nobody is there to read it; 499 is what nginx logs for a client that left
            return Response(status_code=499)
        return JSONResponse(builder.response, headers={"x-request-id": new_id("req")})

    async def _drain(
        self, project_id: str, conversation: Conversation, builder: ResponseBuilder, engine: Engine
    ) -> None:
        async for _ in self.run(project_id, conversation, builder, engine):
            pass

    async def run(
        self, project_id: str, conversation: Conversation, builder: ResponseBuilder, engine: Engine
    ) -> AsyncGenerator[Event, None]:
        request = conversation.request
        ticket = join_line(engine, request.model, project_id)
        try:
            for event in builder.start(waiting=not ticket.ready):
                yield event
            if builder.response["status"] == "queued":
                await ticket.wait()  # a client that leaves meanwhile only leaves the line (the except below)
                for event in builder.take_up():
                    yield event
        except BaseException:
            ticket.release()
            raise
        # An engine with a tokenizer, or one whose source does (upstream), stops at max_output_tokens itself;
        # others are held to it by an estimate.
        own_limit = getattr(engine, "counts_tokens", False) or getattr(engine, "limits_output", False)
        budget = None if own_limit else request.max_output_tokens
        call_limit = request.tools.call_limit
        calls_made: set[int] = set()
        incomplete = False
        text_tokens = 0  # a running count: re-counting the whole text per delta would be quadratic
        usage: TokenizerUsage | None = None  # real counts from the engine, when it has a tokenizer
        # Closed at once when the client leaves; then the turn goes to the next request.
        async with ticket, aclosing(engine.run(conversation)) as steps:
            async for step in steps:
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
                elif isinstance(step, FunctionCallDelta):
                    if (
                        step.index not in calls_made
                        and call_limit is not None
                        and len(calls_made) >= call_limit
                    ):
                        continue  # past parallel_tool_calls: false or max_tool_calls: the call is not made
                    calls_made.add(step.index)
                    events = builder.function_call(step)
                elif isinstance(step, TokenizerUsage):
                    usage, incomplete = step, step.incomplete
                    continue
                elif isinstance(step, Incomplete):
                    incomplete = True
                    continue
                else:
                    events = builder.citations(step)
                for event in events:
                    yield event
        failure = (
            None
            if incomplete
            # An answer of calls alone has no text to hold to the format (the grammar chose a call).
            else (self._check_format(request, builder.text) if builder.text or not builder.calls else None)
            or check_calls(request, builder.calls)
        )
        used = usage.input_tokens if usage else input_tokens(conversation)
        counted = usage.output_tokens if usage else None
        for event in builder.fail(used, failure) if failure else builder.finish(used, incomplete, counted):
            yield event
        self.state.count_tokens(project_id, builder.response["usage"]["total_tokens"])
        count_answer(self.state.store, project_id, builder.response)
        if request.store and not failure:
            history = history_items(conversation.messages)
            answer = Message(
                "assistant", [{"type": "output_text", "text": builder.text}], calls=builder.calls
            )
            history.append(message_json(answer))
            saved = {"history": history, "input_items": request.input_items}
            items = [*request.input_items, *builder.response["output"]]
            await self.state.store.responses.save(project_id, builder.response, saved, items)
        conversation_id = conversation_id_of(request.body)
        if conversation_id is not None and not failure:
            await self.conversations.append_turn(conversation_id, request, builder.response)

    @staticmethod
    def _check_format(request: EngineRequest, text: str) -> str | None:
        text_format = request.text_format
        if text_format["type"] == "text":
            return None
        try:
            value = json.loads(text)
        except ValueError:
            return "The model's answer is not valid JSON."
        if text_format["type"] == "json_schema":
            schema = text_format["schema"]
            errors = mismatches(value, schema)
            if errors:
                return f"The model could not satisfy the schema: {quote(errors[0].message, 200)}."
        return None

    async def _stream(
        self, project_id: str, conversation: Conversation, builder: ResponseBuilder, engine: Engine
    ) -> AsyncIterator[bytes]:
        try:
            async with aclosing(self.run(project_id, conversation, builder, engine)) as events:
                async for event in events:
                    yield f"event: {event['type']}\ndata: {json.dumps(event, separators=(',', ':'))}\n\n".encode()
                    # Hand the loop a turn after every event. An engine that never waits (the simulated one
                    # at no delay) and a send that never waits otherwise keep the loop from seeing that the
                    # client left: the whole answer went into a closed socket, one asyncio warning per
                    # write (50,000 words: 50,000 lines, 1.3-4 s). With the turn, uvicorn reports the
                    # disconnect, Starlette cancels this writer here, and aclosing stops the engine.
                    await asyncio.sleep(0)
        except Exception as error:  # a failure after the stream began is an `error` event, then the end
            # A ServiceError (the upstream's failure, say) keeps its code and whole reason, on one line.
            code = error.code if isinstance(error, ServiceError) and error.code else "server_error"
            reason = one_line(error.message if isinstance(error, ServiceError) else str(error))
            event = builder.event("error", code=code, message=f"The stream failed: {reason}", param=None)
            yield f"event: error\ndata: {json.dumps(event)}\n\n".encode()

    def _load(self, request: Request) -> tuple[str, str, tuple[dict[str, Any], Any]]:
        project_id = project_of(request)
        response_id = request.path_params["response_id"]
        stored = self.state.store.responses.load(project_id, response_id)
        if stored is None:
            message = f"No response with id '{quote(response_id)}' was found."
            raise ServiceError(404, message, "response_not_found")
        return project_id, response_id, stored

    async def retrieve(self, request: Request) -> Response:
        return JSONResponse(self._load(request)[2][0])

    async def retrieve_or_stream(self, request: Request) -> Response:
        """A background run's live object or its events (`?stream=true`), else the stored response."""
        return await self.background.retrieve(request, self.retrieve)

    async def cancel(self, request: Request) -> Response:
        response_id = request.path_params["response_id"]
        return JSONResponse(await self.background.cancel(project_of(request), response_id))

    async def delete(self, request: Request) -> Response:
        project_id, response_id, _ = self._load(request)
        await self.state.store.responses.delete(project_id, response_id)
        return JSONResponse({"id": response_id, "object": "response.deleted", "deleted": True})

    async def input_items(self, request: Request) -> Response:
        """The items this response was given, paginated as the hosted service does (after, limit, order)."""
        items = _stored(self._load(request)[2][1])[1]
        query = list_query(request)
        if query.order == "desc":
            items = items[::-1]
        if query.after is not None:
            ids = [item["id"] for item in items]
            if query.after not in ids:
                message = f"No input item '{quote(query.after)}' in this response."
                raise bad(message, "after", "invalid_value")
            items = items[ids.index(query.after) + 1 :]
        page = items[: query.limit]
        return JSONResponse(
            {
                "object": "list",
                "data": page,
                "first_id": page[0]["id"] if page else "",
                "last_id": page[-1]["id"] if page else "",
                "has_more": len(items) > len(page),
            }
        )
