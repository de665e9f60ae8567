"""The route's side of a tool loop: stored items put in place of `item_reference` inputs, function outputs
checked against the calls they answer, and calls kept in the stored history.

Items are looked up by id among those the sandbox stored with a response (its input and output items), as
the service does: a reference to an item it does not hold is a 400 naming `input[i].id`.
"""

from __future__ import annotations

import json
from typing import Any

from app.common.jsonschema_check import mismatches
from app.sandbox.contract.validate import bad
from app.sandbox.errors import quote
from app.sandbox.request.engine_request import EngineRequest, Message
from app.sandbox.request.tools import CallRecord
from app.sandbox.store.aggregates import Store


def resolve_references(store: Store, project_id: str, body: dict[str, Any]) -> None:
    """Replace each `item_reference` in `body["input"]` by the stored item (in place), or raise the 400."""
    items = body.get("input")
    if not isinstance(items, list):
        return
    references = [
        (index, item["id"])
        for index, item in enumerate(items)
        if isinstance(item, dict)
        and isinstance(item.get("id"), str)
        and (item.get("type") == "item_reference" or ("type" not in item and "role" not in item))
        and set(item) <= {"type", "id"}
    ]
    if not references:
        return
    found = store.responses.load_items(project_id, [item_id for _, item_id in references])
    for index, item_id in references:
        if item_id not in found:
            raise bad(
                f"Item with id '{quote(item_id)}' not found: 'input[{index}]' refers to no item the sandbox "
                "stored (items of responses made with store: false are not kept).",
                f"input[{index}].id",
                "item_not_found",
            )
        items[index] = found[item_id]


def check_outputs(refs: list[tuple[str, str]], messages: list[Message]) -> None:
    """Every function_call_output must answer a call of the conversation (history or this input)."""
    calls = {call.call_id for message in messages for call in message.calls}
    for param, call_id in refs:
        if call_id not in calls:
            raise bad(
                f"No tool call found for function call output with call_id '{quote(call_id)}': send the "
                "function_call item with the output, or chain on its response with previous_response_id.",
                param,
                "invalid_value",
            )


def _check_choice(request: EngineRequest, calls: list[CallRecord]) -> str | None:
    """Why the calls do not do what tool_choice required (a model that does not enforce it, behind the
    upstream engine, may answer in text instead), or None."""
    plan = request.tools
    if not plan.active or plan.mode != "required" or plan.call_limit == 0:
        return None
    if plan.forced is not None:
        forced = plan.find(plan.forced)
        namespace = forced.namespace if forced else None
        if not any(call.name == plan.forced and call.namespace == namespace for call in calls):
            return f"The model did not call '{quote(plan.forced)}', which tool_choice required."
    elif not calls:
        return "The model answered without calling a function, though tool_choice was 'required'."
    return None


def check_calls(request: EngineRequest, calls: list[CallRecord]) -> str | None:
    """Why the answer's calls break the request: none made where tool_choice required one, or a call of a
    `strict` function that does not fit its parameters schema (the answer then fails, as a broken
    structured output does); or None."""
    refused = _check_choice(request, calls)
    if refused is not None:
        return refused
    for call in calls:
        spec = next(
            (s for s in request.tools.offered if s.name == call.name and s.namespace == call.namespace), None
        )
        if spec is None or not spec.strict:
            continue
        try:
            arguments = json.loads(call.arguments)
        except ValueError:
            return f"The model's call of {quote(call.name)} has arguments that are not valid JSON."
        errors = mismatches(arguments, spec.parameters)
        if errors:
            return f"The model's call of {quote(call.name)} does not fit its parameters: {quote(errors[0].message, 200)}."
    return None


def message_json(message: Message) -> dict[str, Any]:
    """A message as the stored history keeps it."""
    data: dict[str, Any] = {"role": message.role, "content": message.parts}
    if message.calls:
        data["calls"] = [
            {"call_id": c.call_id, "name": c.name, "arguments": c.arguments, "namespace": c.namespace}
            for c in message.calls
        ]
    if message.call_id is not None:
        data["call_id"] = message.call_id
    return data


def message_from_json(data: dict[str, Any]) -> Message:
    calls = [
        CallRecord(call["call_id"], call["name"], call["arguments"], call.get("namespace"))
        for call in data.get("calls", [])
    ]
    return Message(data["role"], data["content"], calls=calls, call_id=data.get("call_id"))
