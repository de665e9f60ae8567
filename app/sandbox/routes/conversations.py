"""The Conversations API (`/v1/conversations`), and what `conversation=` on a response reads and appends.

A conversation is a list of items (input messages, the model's output items) with metadata. A response
given `conversation` reads the conversation's items as its history and, once it has an answer, appends this
turn's input items and output items to it, so the next turn sees both.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.sandbox.contract.stateful_routes import (
    ConversationCreate,
    ConversationItemsQuery,
    ConversationUpdate,
    IncludeQuery,
    ItemsAdd,
)
from app.sandbox.contract.validate import Model, bad, parse_json_body, validate
from app.sandbox.errors import ServiceError, quote
from app.sandbox.ids import new_id
from app.sandbox.request.engine_request import EngineRequest, Message, duplicate_item, parse_request
from app.sandbox.routes.project import project_of
from app.sandbox.state import SandboxState
from app.sandbox.store.conversations import ConversationRecord

_REPEATABLE = {"include[]"}


def query(model: type[Model], request: Request) -> Model:
    """A query string: `include[]` may repeat, any other name appears at most once; unknown names refused."""
    fields = {info.alias or name for name, info in model.model_fields.items()}
    values: dict[str, Any] = {}
    for name, value in request.query_params.multi_items():
        if name not in fields:
            raise bad(f"Unknown query parameter: '{quote(name)}'.", quote(name), "unknown_parameter")
        if name in _REPEATABLE:
            values.setdefault(name, []).append(value)
        elif name in values:
            raise bad(f"'{quote(name)}' is given more than once.", quote(name))
        else:
            values[name] = value
    try:
        return validate(model, values)
    except ServiceError as error:  # 'include[][1]' is the second `include[]`: named as the client wrote it
        if error.param and error.param.startswith("include[]["):
            error.message = error.message.replace(error.param, "include[]")
            error.param = "include[]"
        raise


def conversation_id_of(body: Any) -> str | None:
    """The id of `conversation` as a response's body gives it: a string or {"id": ...}."""
    conversation = getattr(body, "conversation", None)
    if conversation is None:
        return None
    return conversation if isinstance(conversation, str) else str(conversation.id)


def stored_items(items: list[dict[str, Any]], state: SandboxState, param: str) -> list[dict[str, Any]]:
    """Items as a conversation keeps them: checked as a response's input is (images read), each with an id."""
    config = state.config
    try:
        parsed = parse_request(
            {"model": config.models[0], "input": items}, config.models, config.max_image_bytes
        )
    except ServiceError as error:  # the same fault, named as the client wrote it
        if error.param and error.param.startswith("input"):
            error.message = error.message.replace("'input", f"'{param}")
            error.param = param + error.param.removeprefix("input")
        raise
    return [{**item, "id": item.get("id") or new_id("item")} for item in parsed.input_items]


def history_from_items(items: list[dict[str, Any]], state: SandboxState, model: str) -> list[Message]:
    """A conversation's items as the messages an engine reads (the same reading as a response's input)."""
    if not items:
        return []
    config = state.config
    return parse_request({"model": model, "input": items}, config.models, config.max_image_bytes).messages


def output_items(response: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(item) for item in response["output"]]


class ConversationRoutes:
    def __init__(self, app_state: SandboxState) -> None:
        self.state = app_state
        self.conversations = app_state.store.conversations

    # -- what /v1/responses asks ------------------------------------------------------------------

    def require(self, project_id: str, conversation_id: str, param: str | None = None) -> ConversationRecord:
        record = self.conversations.get(project_id, conversation_id)
        if record is None:
            message = f"Conversation with id '{quote(conversation_id)}' not found."
            raise ServiceError(404, message, "conversation_not_found", param)
        return record

    def history(self, project_id: str, request: EngineRequest) -> tuple[str, list[Message]] | None:
        """(conversation id, its items as messages) for a response given `conversation`; None without one."""
        conversation_id = conversation_id_of(request.body)
        if conversation_id is None:
            return None
        if request.previous_response_id is not None:
            raise bad(
                "'previous_response_id' and 'conversation' cannot be used together: a conversation already "
                "holds the earlier turns. Send one of them.",
                "conversation",
                "mutually_exclusive_parameters",
            )
        self.require(project_id, conversation_id, "conversation")
        self.refuse_held(
            conversation_id, [item["id"] for item in request.input_items if "id" in item], "input"
        )
        items = self.conversations.all_items(conversation_id)
        return conversation_id, history_from_items(items, self.state, request.model)

    def refuse_held(self, conversation_id: str, item_ids: list[str], param: str) -> None:
        """An item id the conversation already holds is a duplicate, as one given twice in a request is."""
        for item_id in item_ids:
            if self.conversations.position(conversation_id, item_id) is not None:
                raise duplicate_item(item_id, param)

    async def append_turn(
        self, conversation_id: str, request: EngineRequest, response: dict[str, Any]
    ) -> None:
        """This turn's input items, then its output items, after the conversation's last item."""
        items = [{**item, "id": item.get("id") or new_id("item")} for item in request.input_items]
        await self.conversations.append(conversation_id, [*items, *output_items(response)])

    # -- the routes -------------------------------------------------------------------------------

    def _project(self, request: Request) -> str:
        return project_of(request)

    def _body(self, model: type[Model], raw: bytes) -> Model:
        return validate(model, parse_json_body(raw))

    def _load(self, request: Request) -> ConversationRecord:
        return self.require(self._project(request), request.path_params["conversation_id"])

    async def create(self, request: Request) -> Response:
        project_id = self._project(request)
        body = self._body(ConversationCreate, await request.body())
        raw = parse_json_body(await request.body()).get("items") or []
        items = stored_items(raw, self.state, "items") if body.items else []
        record = await self.conversations.create(project_id, dict(body.metadata or {}), items)
        return JSONResponse(record.json())

    async def retrieve(self, request: Request) -> Response:
        return JSONResponse(self._load(request).json())

    async def update(self, request: Request) -> Response:
        record = self._load(request)
        body = self._body(ConversationUpdate, await request.body())
        metadata = dict(body.metadata or {})
        await self.conversations.set_metadata(self._project(request), record.id, metadata)
        return JSONResponse(ConversationRecord(record.id, record.created_at, metadata).json())

    async def delete(self, request: Request) -> Response:
        record = self._load(request)
        await self.conversations.delete(self._project(request), record.id)
        return JSONResponse({"id": record.id, "object": "conversation.deleted", "deleted": True})

    async def list_items(self, request: Request) -> Response:
        record = self._load(request)
        params = query(ConversationItemsQuery, request)
        after = None
        if params.after is not None:
            after = self.conversations.position(record.id, params.after)
            if after is None:
                raise bad(f"No item '{quote(params.after)}' in this conversation.", "after", "invalid_value")
        page = self.conversations.page(record.id, params.order, after, params.limit)
        return JSONResponse(_item_list(page.items, page.has_more))

    async def add_items(self, request: Request) -> Response:
        record = self._load(request)
        query(IncludeQuery, request)
        self._body(ItemsAdd, await request.body())
        items = stored_items(parse_json_body(await request.body())["items"], self.state, "items")
        self.refuse_held(record.id, [item["id"] for item in items], "items")
        await self.conversations.append(record.id, items)
        return JSONResponse(_item_list(items, False))

    def _item(self, request: Request) -> tuple[ConversationRecord, dict[str, Any]]:
        record = self._load(request)
        item_id = request.path_params["item_id"]
        item = self.conversations.item(record.id, item_id)
        if item is None:
            message = f"No item with id '{quote(item_id)}' in conversation '{record.id}'."
            raise ServiceError(404, message, "item_not_found")
        return record, item

    async def retrieve_item(self, request: Request) -> Response:
        query(IncludeQuery, request)
        return JSONResponse(self._item(request)[1])

    async def delete_item(self, request: Request) -> Response:
        record, item = self._item(request)
        await self.conversations.delete_item(record.id, item["id"])
        return JSONResponse(record.json())


def _item_list(items: list[dict[str, Any]], has_more: bool) -> dict[str, Any]:
    return {
        "object": "list",
        "data": items,
        "first_id": items[0]["id"] if items else "",
        "last_id": items[-1]["id"] if items else "",
        "has_more": has_more,
    }
