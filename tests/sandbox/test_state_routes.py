"""Conversations, background responses, input_tokens, logprobs and sealed reasoning, through the official
`openai` client, every object and event validated strictly against the client's own types."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pydantic
import pytest

openai = pytest.importorskip("openai")
from openai.types.conversations import Conversation, ConversationDeletedResource, ConversationItem  # noqa: E402
from openai.types.responses import Response, ResponseOutputMessage, ResponseOutputText  # noqa: E402
from openai.types.responses.input_token_count_response import InputTokenCountResponse  # noqa: E402

from tests.conftest import LOOPBACK_PROXY, Sandbox, start_sandbox  # noqa: E402
from tests.sandbox.test_official_client import client, strict, strict_event  # noqa: E402

ITEM: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(ConversationItem)


def strict_item(item: Any) -> Any:
    return ITEM.validate_python(item.model_dump(mode="json", exclude_unset=True, warnings=False), strict=True)


def wait_done(api: Any, response_id: str) -> Response:
    for _ in range(200):
        response = strict(api.responses.retrieve(response_id))
        if response.status not in ("queued", "in_progress"):
            return response
        time.sleep(0.02)
    raise AssertionError("the background response never finished")


# -- conversations ------------------------------------------------------------------------------------


def test_conversation_lifecycle(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        made = api.conversations.create(
            items=[{"type": "message", "role": "user", "content": "My name is Ada."}],
            metadata={"topic": "names"},
        )
        Conversation.model_validate(made.model_dump(mode="json"), strict=True)
        assert made.metadata == {"topic": "names"}
        assert api.conversations.retrieve(made.id).id == made.id
        updated = api.conversations.update(made.id, metadata={"topic": "people"})
        assert updated.metadata == {"topic": "people"}
        items = list(api.conversations.items.list(made.id, order="asc"))
        assert [strict_item(item).type for item in items] == ["message"]
        added = api.conversations.items.create(
            made.id, items=[{"type": "message", "role": "user", "content": "And I like tea."}]
        )
        assert len(added.data) == 1 and added.first_id == added.data[0].id
        assert strict_item(api.conversations.items.retrieve(added.first_id, conversation_id=made.id)).id
        after = api.conversations.items.delete(added.first_id, conversation_id=made.id)
        assert after.id == made.id
        deleted = api.conversations.delete(made.id)
        ConversationDeletedResource.model_validate(deleted.model_dump(mode="json"), strict=True)
        with pytest.raises(openai.NotFoundError):
            api.conversations.retrieve(made.id)


def test_response_on_a_conversation_sees_and_extends_it(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        conversation = api.conversations.create()
        first = strict(
            api.responses.create(
                model="service-pro", input="Remember: pelicans", conversation=conversation.id
            )
        )
        second = strict(
            api.responses.create(
                model="service-pro", input="What did I say?", conversation={"id": conversation.id}
            )
        )
        assert "turn 2" in second.output_text and "pelicans" in second.output_text
        assert second.conversation is not None and second.conversation.id == conversation.id
        items = [strict_item(item) for item in api.conversations.items.list(conversation.id, order="asc")]
        assert [(item.type, getattr(item, "role", None)) for item in items] == [
            ("message", "user"),
            ("message", "assistant"),
            ("message", "user"),
            ("message", "assistant"),
        ]
        assert items[1].id == first.output[-1].id
        page = api.conversations.items.list(conversation.id, limit=1, order="desc")
        assert page.has_more and len(page.data) == 1 and page.data[0].id == second.output[-1].id


def test_tool_round_trip_on_a_conversation(sandbox: Sandbox) -> None:
    tools: list[Any] = [
        {
            "type": "function",
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        }
    ]
    with client(sandbox) as api:
        conversation = api.conversations.create()
        called = strict(
            api.responses.create(
                model="service-pro",
                tools=tools,
                input="Use get_weather for Paris",
                conversation=conversation.id,
            )
        )
        call = next(item for item in called.output if item.type == "function_call")
        output = {"type": "function_call_output", "call_id": call.call_id, "output": "sunny, 21 C"}
        answer = strict(
            api.responses.create(
                model="service-pro", tools=tools, input=[output], conversation=conversation.id
            )
        )
        assert "21" in answer.output_text
        kinds = [
            strict_item(item).type for item in api.conversations.items.list(conversation.id, order="asc")
        ]
        assert kinds == ["message", "function_call", "function_call_output", "message"]


def test_conversation_errors(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        conversation = api.conversations.create()
        earlier = api.responses.create(model="service-pro", input="hi")
        with pytest.raises(openai.BadRequestError) as both:
            api.responses.create(
                model="service-pro", input="x", conversation=conversation.id, previous_response_id=earlier.id
            )
        assert both.value.body["param"] == "conversation"
        assert both.value.body["code"] == "mutually_exclusive_parameters"
        with pytest.raises(openai.NotFoundError):
            api.responses.create(model="service-pro", input="x", conversation="conv_missing")
        with pytest.raises(openai.NotFoundError):
            api.conversations.items.retrieve("msg_missing", conversation_id=conversation.id)
        with pytest.raises(openai.BadRequestError) as bad_image:
            api.conversations.create(
                items=[
                    {
                        "role": "user",
                        "content": [{"type": "input_image", "image_url": "data:image/png;base64,AAAA"}],
                    }
                ]
            )
        assert bad_image.value.body["param"].startswith("items[0].content[0]")
        with pytest.raises(openai.BadRequestError):
            api.conversations.items.create(conversation.id, items=[])
        with pytest.raises(openai.BadRequestError):
            api.conversations.items.list(conversation.id, after="msg_missing")


def test_an_item_id_given_twice_is_a_400_and_changes_nothing(sandbox: Sandbox) -> None:
    """As the service: an input or a conversation may hold an item id once; a second is a 400 naming it
    ("Duplicate item found with id ..."), before anything is written or generated."""
    said = {"type": "message", "role": "user", "content": "Hello", "id": "msg_said"}
    with client(sandbox) as api:
        with pytest.raises(openai.BadRequestError) as in_create:
            api.conversations.create(items=[said, {**said, "content": "again"}])
        assert in_create.value.body["param"] == "items" and "msg_said" in in_create.value.body["message"]
        conversation = api.conversations.create(items=[said])
        with pytest.raises(openai.BadRequestError) as in_add:
            api.conversations.items.create(conversation.id, items=[{**said, "content": "again"}])
        assert in_add.value.body["param"] == "items" and "msg_said" in in_add.value.body["message"]
        with pytest.raises(openai.BadRequestError) as in_turn:
            api.responses.create(model="service-pro", input=[said], conversation=conversation.id)
        assert in_turn.value.body["param"] == "input" and "msg_said" in in_turn.value.body["message"]
        with pytest.raises(openai.BadRequestError) as in_input:
            api.responses.create(model="service-pro", input=[said, said])
        assert in_input.value.body["param"] == "input" and "msg_said" in in_input.value.body["message"]
        items = list(api.conversations.items.list(conversation.id))
        assert [item.id for item in items] == ["msg_said"]


# -- background responses -----------------------------------------------------------------------------


def test_background_response_is_queued_then_completes(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        queued = strict(
            api.responses.create(model="service-pro", input="Tell me about tides", background=True)
        )
        assert queued.status == "queued" and queued.background is True
        done = wait_done(api, queued.id)
        assert done.status == "completed" and "tides" in done.output_text
        # Finished: cancelling changes nothing.
        assert strict(api.responses.cancel(queued.id)).status == "completed"
        # Its events stay, and replay from any point.
        events = [strict_event(event) for event in api.responses.retrieve(queued.id, stream=True)]
        types = [event.type for event in events]
        assert types[:3] == ["response.created", "response.queued", "response.in_progress"]
        assert types[-1] == "response.completed" and events[0].response.status == "queued"
        later = [strict_event(e) for e in api.responses.retrieve(queued.id, stream=True, starting_after=2)]
        assert [e.sequence_number for e in later] == [e.sequence_number for e in events[3:]]


def test_background_stream_resumes_live_and_cancel(sandbox_factory: Any) -> None:
    slow = sandbox_factory(stream_delay_ms=20)
    with client(slow) as api:
        stream = api.responses.create(
            model="service-pro", input="Write 30 words", background=True, stream=True
        )
        first = [strict_event(event) for _, event in zip(range(6), stream, strict=False)]
        stream.close()  # the client leaves mid-answer ...
        response_id = first[0].response.id
        resumed = [
            strict_event(event)
            for event in api.responses.retrieve(response_id, stream=True, starting_after=5)
        ]
        # ... and comes back where it left off, then follows the run live to its end.
        assert resumed[0].sequence_number == 6 and resumed[-1].type == "response.completed"

        running = strict(api.responses.create(model="service-pro", input="Write 2000 words", background=True))
        time.sleep(0.1)
        cancelled = strict(api.responses.cancel(running.id))
        assert cancelled.status == "cancelled"
        assert strict(api.responses.retrieve(running.id)).status == "cancelled"


def test_a_cancelled_stream_ends_with_the_response_and_its_text(sandbox_factory: Any) -> None:
    slow = sandbox_factory(stream_delay_ms=20)
    with client(slow) as api:
        stream = api.responses.create(
            model="service-pro", input="Write 2000 words", background=True, stream=True
        )
        events = []
        for event in stream:
            events.append(strict_event(event))
            if len(events) == 20:
                api.responses.cancel(events[0].response.id)
        retrieved = strict(api.responses.retrieve(events[0].response.id))
    sent = "".join(event.delta for event in events if event.type == "response.output_text.delta")
    assert events[-1].type == "response.incomplete" and events[-1].response.status == "cancelled"
    assert sent and events[-1].response.output_text == sent == retrieved.output_text
    assert retrieved.status == "cancelled"


def test_background_runs_after_a_restart(tmp_path: Path) -> None:
    server = start_sandbox(tmp_path / "data", stream_delay_ms=20, trusted_proxies=LOOPBACK_PROXY)
    creds = Sandbox(server).creds
    try:
        with client(Sandbox(server)) as api:
            finished = wait_done(
                api, api.responses.create(model="service-pro", input="Hi", background=True).id
            )
            cut = api.responses.create(model="service-pro", input="Write 5000 words", background=True)
    finally:
        server.stop()
    server = start_sandbox(tmp_path / "data", trusted_proxies=LOOPBACK_PROXY)
    try:
        with client(Sandbox(server, creds)) as api:
            assert strict(api.responses.retrieve(cut.id)).status == "failed"
            replayed = [strict_event(event) for event in api.responses.retrieve(finished.id, stream=True)]
            assert replayed[-1].type == "response.completed"
            assert replayed[-1].response.output_text == finished.output_text
    finally:
        server.stop()


def test_background_refusals(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        with pytest.raises(openai.BadRequestError) as unstored:
            api.responses.create(model="service-pro", input="x", background=True, store=False)
        assert unstored.value.body["param"] == "store"
        plain = api.responses.create(model="service-pro", input="x")
        with pytest.raises(openai.BadRequestError):
            api.responses.cancel(plain.id)
        with pytest.raises(openai.BadRequestError):
            list(api.responses.retrieve(plain.id, stream=True))
        with pytest.raises(openai.NotFoundError):
            api.responses.cancel("resp_missing")


# -- input_tokens, compact, logprobs, sealed reasoning ------------------------------------------------


def test_input_tokens_counts_as_the_response_does(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        params: dict[str, Any] = {
            "model": "service-pro",
            "input": "Count these words, please.",
            "instructions": "Be brief.",
        }
        counted = api.responses.input_tokens.count(**params)
        InputTokenCountResponse.model_validate(counted.model_dump(mode="json"), strict=True)
        answered = api.responses.create(**params)
        assert answered.usage is not None and counted.input_tokens == answered.usage.input_tokens
        chained = api.responses.input_tokens.count(model="service-pro", previous_response_id=answered.id)
        assert chained.input_tokens > counted.input_tokens  # the history alone, answer included


def answer_text(response: Response) -> ResponseOutputText:
    """The answer's first text part (the last output item is the message)."""
    message = response.output[-1]
    assert isinstance(message, ResponseOutputMessage)
    part = message.content[0]
    assert isinstance(part, ResponseOutputText)
    return part


def test_simulated_logprobs_are_real_and_deterministic(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        params: dict[str, Any] = {
            "model": "service-pro",
            "input": "Hello",
            "include": ["message.output_text.logprobs"],
            "top_logprobs": 3,
        }
        one, two = strict(api.responses.create(**params)), strict(api.responses.create(**params))
        part, again = answer_text(one), answer_text(two)
        assert part.logprobs and part.logprobs == again.logprobs
        assert "".join(lp.token for lp in part.logprobs) == one.output_text
        for lp in part.logprobs:
            assert len(lp.top_logprobs) == 3 and lp.top_logprobs[0].token == lp.token
            assert lp.logprob < 0 and sum(2.718281828**top.logprob for top in lp.top_logprobs) <= 1
        with api.responses.stream(**params) as stream:
            deltas = [strict_event(e) for e in stream if e.type == "response.output_text.delta"]
        assert all(len(delta.logprobs) == 1 for delta in deltas)


def test_encrypted_reasoning_round_trips_and_tampering_is_refused(sandbox: Sandbox) -> None:
    with client(sandbox) as api:
        first = strict(
            api.responses.create(
                model="service-think",
                input="Plan a trip",
                reasoning={"effort": "low"},  # no summary asked for: the content is there all the same
                include=["reasoning.encrypted_content"],
                store=False,
            )
        )
        reasoning = first.output[0]
        assert reasoning.type == "reasoning" and reasoning.encrypted_content
        item = reasoning.model_dump(mode="json", exclude_none=True)
        again = strict(
            api.responses.create(
                model="service-think", input=[item, {"role": "user", "content": "Go on"}], store=False
            )
        )
        assert again.status == "completed"
        item["encrypted_content"] = item["encrypted_content"][:-4] + "AAAA"
        with pytest.raises(openai.BadRequestError) as tampered:
            api.responses.create(model="service-think", input=[item, {"role": "user", "content": "Go on"}])
        assert tampered.value.body["param"] == "input[0].encrypted_content"


def test_query_and_count_refusals_name_the_field(sandbox: Sandbox) -> None:
    with sandbox.api() as http:
        conversation = http.post("/conversations", json={}).json()["id"]
        listed = http.get(f"/conversations/{conversation}/items", params={"include[]": "bogus"})
        assert listed.status_code == 400 and listed.json()["error"]["param"] == "include[]"
        orphan = {"type": "function_call_output", "call_id": "call_none", "output": "x"}
        counted = http.post("/responses/input_tokens", json={"input": [orphan]})
        assert counted.status_code == 400 and counted.json()["error"]["param"] == "input[0].call_id"
        stream = http.get("/responses/resp_missing", params={"stream": "maybe"})
        assert stream.status_code == 400 and stream.json()["error"]["param"] == "stream"
