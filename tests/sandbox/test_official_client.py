"""The newest official `openai` client against the sandbox as a real server: every object and event it reads
validates strictly against the client's own types."""

from __future__ import annotations

import asyncio
import ipaddress
import typing
from typing import Any

import pydantic
import pytest

openai = pytest.importorskip("openai")
from openai.types.responses import Response, ResponseItem, ResponseStreamEvent  # noqa: E402

from tests.conftest import Sandbox  # noqa: E402
from tests.sandbox.test_responses import data_url  # noqa: E402

EVENTS: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(ResponseStreamEvent)
ITEMS: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(ResponseItem)
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    "required": ["city", "days"],
    "additionalProperties": False,
}


def strict(response: Any) -> Response:
    """The object as the client parsed it, validated again strictly from its JSON form."""
    return Response.model_validate(
        response.model_dump(mode="json", by_alias=True, exclude_unset=True, warnings=False), strict=True
    )


def _event_classes() -> dict[str, type[pydantic.BaseModel]]:
    union = typing.get_args(ResponseStreamEvent)[0]
    return {typing.get_args(cls.model_fields["type"].annotation)[0]: cls for cls in typing.get_args(union)}


EVENT_CLASSES = _event_classes()


def strict_event(event: Any) -> Any:
    """Strictly against the event's own class first (a readable failure), then against the whole union."""
    data = event.model_dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    EVENT_CLASSES[data["type"]].model_validate(data, strict=True)
    return EVENTS.validate_python(data, strict=True)


def client(sandbox: Sandbox, key: str | None = None) -> Any:
    return openai.OpenAI(base_url=sandbox.url, api_key=key or sandbox.creds.api_key, max_retries=0)


def stream_all(sandbox: Sandbox, **params: Any) -> tuple[list[Any], Response]:
    with client(sandbox) as api, api.responses.stream(**params) as stream:
        events = [strict_event(event) for event in stream]
        final = stream.get_final_response()
    return events, strict(final)


def test_plain_answer(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        response = strict(api.responses.create(model="service-pro", input="Tell me about tides"))
    assert response.status == "completed" and "tides" in response.output_text
    assert response.usage is not None and response.usage.input_tokens_details.cache_write_tokens == 0


def test_streamed_answer_closes_every_item(sandbox: Sandbox) -> None:
    events, final = stream_all(sandbox, model="service-pro", input="Hi there")
    types = [event.type for event in events]
    assert types[0] == "response.created" and types[-1] == "response.completed"
    assert [event.sequence_number for event in events] == list(range(len(events)))
    deltas = "".join(event.delta for event in events if event.type == "response.output_text.delta")
    assert deltas == final.output_text


def test_chained_turns_retrieve_delete_and_input_items(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        first = strict(api.responses.create(model="service-pro", input="My favourite colour is teal."))
        second = strict(
            api.responses.create(model="service-pro", input="And now?", previous_response_id=first.id)
        )
        assert "teal" in second.output_text and second.previous_response_id == first.id
        assert strict(api.responses.retrieve(second.id)).output_text == second.output_text
        items = api.responses.input_items.list(second.id)
        assert [
            ITEMS.validate_python(
                item.model_dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
            )
            for item in items.data
        ]
        assert items.data[0].type == "message"
        assert api.responses.delete(second.id) is None
        with pytest.raises(openai.NotFoundError):
            api.responses.retrieve(second.id)


def test_input_items_are_paginated(sandbox: Sandbox) -> None:
    turns = [{"role": "user", "content": f"line {number}"} for number in range(5)]
    with client(sandbox) as api:
        response = api.responses.create(model="service-pro", input=turns)
        page = api.responses.input_items.list(response.id, limit=2, order="asc")
        assert [item.content[0].text for item in page.data] == ["line 0", "line 1"]
        assert page.has_more and page.last_id == page.data[-1].id
        everything = [
            item.content[0].text for item in api.responses.input_items.list(response.id, order="asc", limit=2)
        ]
    assert everything == [f"line {number}" for number in range(5)]


def test_output_items_go_back_as_input(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        first = api.responses.create(
            model="service-think",
            input="How does CIDR notation work?",
            tools=[{"type": "web_search"}],
            include=["reasoning.encrypted_content", "web_search_call.action.sources"],
        )
        kinds = [item.type for item in first.output]
        assert kinds == ["reasoning", "web_search_call", "message"]
        history: list[Any] = [{"role": "user", "content": "How does CIDR notation work?"}]
        history += first.output
        history.append({"role": "user", "content": "Thanks, and in one line?"})
        second = strict(api.responses.create(model="service-think", input=history, store=False))
    assert "turn 2" in second.output_text
    assert first.output[0].encrypted_content
    assert first.output[1].action.sources


@pytest.mark.parametrize("tool", ["web_search", "web_search_preview"])
def test_search_with_both_tool_names(sandbox: Sandbox, tool: str) -> None:
    location = {"type": "approximate", "city": "Lisbon", "country": "PT"}
    events, final = stream_all(
        sandbox,
        model="service-pro",
        input="How does CIDR notation work?",
        tools=[{"type": tool, "search_context_size": "low", "user_location": location}],
        tool_choice="required",
    )
    assert final.output[0].type == "web_search_call" and final.tools[0].type == tool
    assert "response.web_search_call.completed" in {event.type for event in events}
    with client(sandbox) as api:
        quiet = api.responses.create(
            model="service-pro", input="How does CIDR work?", tools=[{"type": tool}], tool_choice="none"
        )
    assert [item.type for item in quiet.output] == ["message"]


def test_image_as_data_url(sandbox: Sandbox) -> None:
    content = [
        {"type": "input_text", "text": "What is this?"},
        {"type": "input_image", "image_url": data_url("PNG"), "detail": "low"},
    ]
    with client(sandbox) as api:
        response = strict(
            api.responses.create(model="service-pro", input=[{"role": "user", "content": content}])
        )
    assert "a PNG image of 640×480 pixels" in response.output_text


def test_structured_output(sandbox: Sandbox) -> None:
    text = {"format": {"type": "json_schema", "name": "trip", "schema": SCHEMA, "strict": True}}
    _, final = stream_all(sandbox, model="service-pro", input="Plan a trip to Lisbon", text=text)
    assert set(__import__("json").loads(final.output_text)) == {"city", "days"}
    assert final.text is not None and final.text.format is not None
    assert final.text.format.type == "json_schema"


@pytest.mark.parametrize(("effort", "summary"), [("low", "concise"), ("high", "detailed"), ("medium", None)])
def test_reasoning_effort_and_summary(sandbox: Sandbox, effort: str, summary: str | None) -> None:
    reasoning: dict[str, Any] = {"effort": effort, **({"summary": summary} if summary else {})}
    events, final = stream_all(
        sandbox, model="service-think", input="Why is the sky blue?", reasoning=reasoning
    )
    item = final.output[0]
    assert item.type == "reasoning" and final.reasoning is not None and final.reasoning.effort == effort
    assert bool(item.summary) == bool(summary)
    assert ("response.reasoning_summary_text.delta" in {event.type for event in events}) == bool(summary)
    assert final.usage is not None and final.usage.output_tokens_details.reasoning_tokens > 0


def test_reasoning_effort_changes_the_token_count(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        counts = [
            api.responses.create(
                model="service-think", input="Why?", reasoning={"effort": effort}
            ).usage.output_tokens_details.reasoning_tokens
            for effort in ("low", "high")
        ]
    assert counts[0] < counts[1]


def test_every_parameter_the_client_sends_is_accepted_and_echoed(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        response = strict(
            api.responses.create(
                model="service-pro",
                input="Hello",
                user="user-1",
                safety_identifier="safe-1",
                prompt_cache_key="cache-1",
                parallel_tool_calls=False,
                service_tier="flex",
                top_logprobs=2,
                max_tool_calls=3,
                background=False,
                metadata={"k": "v"},
                truncation="auto",
                store=False,
                text={"verbosity": "low"},
                temperature=0.5,
                top_p=0.9,
                max_output_tokens=400,
                include=["message.output_text.logprobs"],
                prompt_cache_retention="24h",
            )
        )
        assert (response.user, response.safety_identifier, response.prompt_cache_key) == (
            "user-1",
            "safe-1",
            "cache-1",
        )
        assert (response.service_tier, response.top_logprobs, response.max_tool_calls) == ("flex", 2, 3)
        assert (
            response.truncation == "auto"
            and response.metadata == {"k": "v"}
            and not response.parallel_tool_calls
        )
        with pytest.raises(openai.NotFoundError):
            api.responses.retrieve(response.id)  # store=False: not kept
        long = api.responses.create(model="service-pro", input="Hello", text={"verbosity": "high"})
    assert len(long.output_text) > len(response.output_text)


def test_stream_options_obfuscation(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        for include in (True, False):
            stream = api.responses.create(
                model="service-pro", input="Hi", stream=True, stream_options={"include_obfuscation": include}
            )
            deltas = [strict_event(event) for event in stream if event.type == "response.output_text.delta"]
            assert deltas and all(bool(getattr(delta, "obfuscation", None)) == include for delta in deltas)


def test_failed_stream_closes_every_item(sandbox: Sandbox) -> None:
    impossible = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
        "not": {"required": ["n"]},
    }
    text = {"format": {"type": "json_schema", "name": "never", "schema": impossible}}
    with client(sandbox) as api:
        raw = api.responses.create(model="service-pro", input="x", text=text, stream=True)
        events = [strict_event(event) for event in raw]
    types = [event.type for event in events]
    assert types[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.failed",
    ]
    assert events[-1].response.error.code == "server_error"


def test_async_client_plain_and_streamed(sandbox: Sandbox) -> None:
    async def main() -> tuple[Response, list[Any]]:
        async with openai.AsyncOpenAI(
            base_url=sandbox.url, api_key=sandbox.creds.api_key, max_retries=0
        ) as api:
            plain = await api.responses.create(model="service-pro", input="Hello")
            stream = await api.responses.create(model="service-pro", input="Hello", stream=True)
            events = [strict_event(event) async for event in stream]
            return strict(plain), events

    plain, events = asyncio.run(main())
    assert plain.output_text and events[-1].type == "response.completed"


def test_every_error_class(sandbox_factory: Any) -> None:
    sandbox = sandbox_factory(rate_limit_per_minute=3, max_body_bytes=2000)
    with client(sandbox) as api:
        with pytest.raises(openai.BadRequestError) as bad:
            api.responses.create(model="service-pro", input="x", temperature=5)
        assert bad.value.code == "invalid_value" and bad.value.param == "temperature"
        with pytest.raises(openai.NotFoundError):
            api.responses.retrieve("resp_nope")
        with pytest.raises(openai.APIStatusError) as large:
            api.responses.create(model="service-pro", input="x" * 5000)
        assert large.value.status_code == 413
        with pytest.raises(openai.RateLimitError):
            for _ in range(5):
                api.responses.create(model="service-pro", input="x")
    with client(sandbox, "sk-wrong") as wrong, pytest.raises(openai.AuthenticationError):
        wrong.responses.create(model="service-pro", input="x")


def test_permission_denied_from_an_allowlist(sandbox_factory: Any) -> None:
    sandbox = sandbox_factory(trusted_proxies=[ipaddress.ip_network("127.0.0.1/32")])
    with sandbox.admin() as admin:
        assert (
            admin.post(f"{sandbox.project_list}/entries", json={"cidr": "203.0.113.0/24"}).status_code == 201
        )
        assert (
            admin.patch(sandbox.project_list, params={"force": "true"}, json={"enabled": True}).status_code
            == 200
        )
    with client(sandbox) as api, pytest.raises(openai.PermissionDeniedError):
        api.responses.create(model="service-pro", input="x")


def test_incomplete_answer_and_json_object(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        stream = api.responses.create(
            model="service-think-mini", input="Write 500 words about rain", max_output_tokens=40, stream=True
        )
        events = [strict_event(event) for event in stream]
        final = strict(events[-1].response)
        assert events[-1].type == "response.incomplete" and final.status == "incomplete"
        assert final.incomplete_details is not None and final.incomplete_details.reason == "max_output_tokens"
        answer = strict(
            api.responses.create(model="service-pro", input="hi", text={"format": {"type": "json_object"}})
        )
    assert answer.output_text.startswith("{")
