"""Function calling through the official `openai` client: every function-call object and event validates
strictly against the client's own types, streamed and not, sync and async; the simulated engine's rules
(README, "Function calling") hold."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import jsonschema
import pydantic
import pytest

openai = pytest.importorskip("openai")
from openai.types.responses import Response  # noqa: E402

from tests.conftest import Sandbox  # noqa: E402
from tests.sandbox.test_official_client import ITEMS, client, stream_all, strict, strict_event  # noqa: E402

WEATHER: dict[str, Any] = {
    "type": "function",
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
        "required": ["city", "days"],
        "additionalProperties": False,
    },
    "strict": True,
}
TIME: dict[str, Any] = {
    "type": "function",
    "name": "get_time",
    "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]},
}


def calls_of(response: Response) -> list[Any]:
    return [item for item in response.output if item.type == "function_call"]


def test_a_named_function_is_called_with_arguments_that_fit_its_schema(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        response = strict(
            api.responses.create(model="service-pro", input="Use get_weather for Lisbon", tools=[WEATHER])
        )
    (call,) = calls_of(response)
    assert [item.type for item in response.output] == ["function_call"]
    assert call.id.startswith("fc_") and call.call_id.startswith("call_") and call.status == "completed"
    jsonschema.validate(json.loads(call.arguments), WEATHER["parameters"])
    assert response.tools[0].type == "function" and response.tools[0].name == "get_weather"


def test_streamed_call_events_are_strictly_valid_and_add_up(sandbox: Sandbox) -> None:
    events, final = stream_all(sandbox, model="service-pro", input="get weather please", tools=[WEATHER])
    types = [event.type for event in events]
    assert types[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert types[-3:] == [
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    deltas = "".join(e.delta for e in events if e.type == "response.function_call_arguments.delta")
    (call,) = calls_of(final)
    done = next(e for e in events if e.type == "response.function_call_arguments.done")
    assert deltas == done.arguments == call.arguments and done.item_id == call.id
    assert events[2].item.type == "function_call" and events[2].item.status == "in_progress"


def test_outputs_back_by_previous_response_id_and_as_history(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        first = strict(api.responses.create(model="service-pro", input="Call get_weather", tools=[WEATHER]))
        (call,) = calls_of(first)
        output = {"type": "function_call_output", "call_id": call.call_id, "output": "Sunny, 21 °C"}
        chained = strict(
            api.responses.create(
                model="service-pro", input=[output], previous_response_id=first.id, tools=[WEATHER]
            )
        )
        history: list[Any] = [{"role": "user", "content": "Call get_weather"}, *first.output, output]
        replayed = strict(
            api.responses.create(model="service-pro", input=history, tools=[WEATHER], store=False)
        )
        listed = api.responses.input_items.list(chained.id).data
    for answer in (chained, replayed):
        assert [item.type for item in answer.output] == ["message"]
        assert "get_weather returned: “Sunny, 21 °C”" in answer.output_text
    (item,) = listed
    data = item.model_dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    assert ITEMS.validate_python(data, strict=True).type == "function_call_output"
    assert item.id.startswith("fco_") and data["call_id"] == call.call_id


def test_a_strict_call_that_does_not_fit_its_schema_fails_the_response(sandbox: Sandbox) -> None:
    digits = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^[0-9]+$"}}}
    tool = {"type": "function", "name": "check", "parameters": digits, "strict": True}
    with client(sandbox) as api:
        stream = api.responses.create(model="service-pro", input="check", tools=[tool], stream=True)
        events = [strict_event(event) for event in stream]
        loose = strict(
            api.responses.create(model="service-pro", input="check", tools=[{**tool, "strict": False}])
        )
    assert (
        events[-1].type == "response.failed"
        and "does not fit its parameters" in events[-1].response.error.message
    )
    assert events[-2].type == "response.output_item.done" and events[-2].item.status == "incomplete"
    assert loose.status == "completed" and calls_of(loose)


def test_an_output_for_no_call_is_a_clear_400(sandbox: Sandbox) -> None:
    items = [
        {"role": "user", "content": "hi"},
        {"type": "function_call_output", "call_id": "call_nowhere", "output": "x"},
    ]
    with client(sandbox) as api, pytest.raises(openai.BadRequestError) as error:
        api.responses.create(model="service-pro", input=items)
    assert error.value.param == "input[1].call_id" and "call_nowhere" in error.value.message


def test_async_client_plain_and_streamed_calls(sandbox: Sandbox) -> None:
    async def main() -> tuple[Response, list[Any]]:
        async with openai.AsyncOpenAI(
            base_url=sandbox.url, api_key=sandbox.creds.api_key, max_retries=0
        ) as api:
            plain = await api.responses.create(model="service-pro", input="get_time", tools=[TIME])
            stream = await api.responses.create(
                model="service-pro", input="get_time", tools=[TIME], stream=True
            )
            return strict(plain), [strict_event(event) async for event in stream]

    plain, events = asyncio.run(main())
    assert calls_of(plain)[0].name == "get_time" and events[-1].type == "response.completed"
    assert calls_of(strict(events[-1].response))[0].name == "get_time"


@pytest.mark.parametrize(
    ("prompt", "choice", "parallel", "max_calls", "called"),
    [
        ("get_weather and get_time", "auto", True, None, ["get_weather", "get_time"]),
        ("get_time and get_weather", "auto", True, None, ["get_time", "get_weather"]),
        ("get_weather and get_time", "auto", False, None, ["get_weather"]),
        ("get_weather and get_time", "auto", True, 1, ["get_weather"]),
        ("Hello there", "auto", True, None, []),
        ("Hello there", "required", True, None, ["get_weather"]),
        ("get_weather and get_time", "none", True, None, []),
        ("Hello there", {"type": "function", "name": "get_time"}, True, None, ["get_time"]),
        (
            "get_weather and get_time",
            {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "get_time"}]},
            True,
            None,
            ["get_time"],
        ),
        (
            "Hello",
            {
                "type": "allowed_tools",
                "mode": "required",
                "tools": [{"type": "function", "name": "get_time"}],
            },
            True,
            None,
            ["get_time"],
        ),
    ],
)
def test_tool_choice_parallel_and_max_tool_calls(
    sandbox: Sandbox, prompt: str, choice: Any, parallel: bool, max_calls: int | None, called: list[str]
) -> None:
    params: dict[str, Any] = {"max_tool_calls": max_calls} if max_calls else {}
    _, final = stream_all(
        sandbox,
        model="service-pro",
        input=prompt,
        tools=[WEATHER, TIME],
        tool_choice=choice,
        parallel_tool_calls=parallel,
        **params,
    )
    assert [call.name for call in calls_of(final)] == called
    assert (final.output_text != "") == (not called)


def test_namespace_tools_and_client_metadata(sandbox: Sandbox) -> None:
    namespace = {
        "type": "namespace",
        "name": "crm",
        "description": "The customer records.",
        "tools": [{"type": "function", "name": "find_customer", "parameters": TIME["parameters"]}],
    }
    with client(sandbox) as api:
        response = strict(
            api.responses.create(
                model="service-pro",
                input="find customer Ada",
                tools=[namespace],
                extra_body={"client_metadata": {"session": "s-1"}},
            )
        )
    (call,) = calls_of(response)
    assert (call.name, call.namespace) == ("find_customer", "crm")
    assert response.model_dump()["client_metadata"] == {"session": "s-1"}


def test_stored_items_are_referenced_by_id(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        first = strict(api.responses.create(model="service-think", input="Use get_weather", tools=[WEATHER]))
        reasoning, call = first.output[0], calls_of(first)[0]
        output = {"type": "function_call_output", "call_id": call.call_id, "output": "Rain"}
        items = api.responses.input_items.list(first.id).data
        refs = [{"type": "item_reference", "id": item.id} for item in (items[0], reasoning, call)]
        answer = strict(api.responses.create(model="service-think", input=[*refs, output], tools=[WEATHER]))
        assert "get_weather returned: “Rain”" in answer.output_text
        text = strict(api.responses.create(model="service-pro", input="Say hello"))
        message = {"type": "item_reference", "id": text.output[0].id}
        again = api.responses.create(
            model="service-pro", input=[message, {"role": "user", "content": "More"}]
        )
        listed = api.responses.input_items.list(again.id, order="asc").data
        assert listed[0].id == text.output[0].id and listed[0].content[0].text == text.output_text
        with pytest.raises(openai.BadRequestError) as error:
            api.responses.create(model="service-pro", input=[{"type": "item_reference", "id": "msg_unknown"}])
    assert error.value.param == "input[0].id" and error.value.code == "item_not_found"


@pytest.mark.parametrize(
    ("extra", "param", "words"),
    [
        ({"tools": [{"type": "file_search", "vector_store_ids": ["vs_1"]}]}, "tools[0].type", "file_search"),
        ({"tools": [{"type": "mcp", "server_label": "x"}]}, "tools[0].type", "mcp"),
        ({"tools": [{"type": "code_interpreter", "container": "auto"}]}, "tools[0].type", "code_interpreter"),
        ({"tools": [{"type": "computer_use_preview"}]}, "tools[0].type", "computer_use_preview"),
        (
            {"input": [{"role": "user", "content": [{"type": "input_file", "file_id": "file_1"}]}]},
            "input[0].content[0].type",
            "input_file",
        ),
        (
            {"input": [{"type": "computer_call_output", "call_id": "c"}]},
            "input[0].type",
            "computer_call_output",
        ),
        ({"prompt": {"id": "pmpt_1"}}, "prompt.id", "'pmpt_1' not found"),
        ({"tool_choice": {"type": "file_search"}}, "tool_choice.type", "file_search"),
        (
            {
                "input": [
                    {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
                    {"type": "function_call_output", "call_id": "c", "output": [{"type": "input_image"}]},
                ]
            },
            "input[1].output[0].type",
            "input_image",
        ),
        ({"include": ["file_search_call.results"]}, "include[0]", "file_search_call.results"),
        (
            {"tool_choice": {"type": "allowed_tools", "mode": "sometimes", "tools": []}},
            "tool_choice.mode",
            "'auto' or 'required'",
        ),
        (
            {"tools": [WEATHER], "tool_choice": {"type": "function", "name": "nope"}},
            "tool_choice.name",
            "nope",
        ),
        ({"tool_choice": {"type": "function"}}, "tool_choice.name", "Missing"),
        (
            {"tools": [{**WEATHER, "parameters": {"type": "objekt"}}]},
            "tools[0].parameters",
            "not a valid JSON Schema",
        ),
        ({"tools": [WEATHER, WEATHER]}, "tools[1].name", "unique"),
        ({"reasoning": {"effort": "high"}}, "reasoning.effort", "not supported with this model"),
        (
            {"input": [{"type": "function_call", "call_id": "c", "name": "f"}]},
            "input[0].arguments",
            "Missing",
        ),
    ],
)
def test_what_is_not_here_or_wrong_is_a_400_naming_the_field(
    sandbox: Sandbox, extra: dict[str, Any], param: str, words: str
) -> None:
    with sandbox.api() as http:
        response = http.post("/responses", json={"model": "service-pro", "input": "x", **extra})
    error = response.json()["error"]
    assert response.status_code == 400 and error["param"] == param and words in error["message"], error
    assert "~" not in error["message"] and "literal" not in error["param"]
    refused = error["code"] == "unsupported_value"
    assert refused == ("not supported here" in error["message"])
    assert refused == (param.endswith(".type") or param == "include[0]")


def test_unknown_paths_are_404(sandbox: Sandbox) -> None:
    with sandbox.api() as http:
        response = http.post("/vector_stores", json={})
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_a_tool_round_trip_in_a_conversation(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        conversation = api.conversations.create()
        first = strict(
            api.responses.create(
                model="service-pro", input="Use get_weather", tools=[WEATHER], conversation=conversation.id
            )
        )
        (call,) = calls_of(first)
        output: Any = {"type": "function_call_output", "call_id": call.call_id, "output": "Fog"}
        answer = strict(
            api.responses.create(
                model="service-pro", input=[output], tools=[WEATHER], conversation=conversation.id
            )
        )
    assert "get_weather returned: “Fog”" in answer.output_text


def test_a_reasoning_summary_alone_is_accepted_on_a_model_that_does_not_reason(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        response = strict(
            api.responses.create(model="service-pro", input="Hi", reasoning={"summary": "auto"})
        )
    assert [item.type for item in response.output] == ["message"]


def test_the_clients_parse_helper_reads_a_pydantic_function_tools_arguments(sandbox: Sandbox) -> None:
    class GetWeather(pydantic.BaseModel):
        city: str
        days: int

    with client(sandbox) as api:
        parsed = api.responses.parse(
            model="service-pro", input="Use GetWeather", tools=[openai.pydantic_function_tool(GetWeather)]
        )
    call = parsed.output[0]
    assert call.type == "function_call" and isinstance(call.parsed_arguments, GetWeather)
