"""The console's Playground service against the embedded sandbox running real weights (the local engine)."""

from __future__ import annotations

import json

import jsonschema
import pytest
from pytestqt.qtbot import QtBot

from app.core.playground.turns import RequestOptions
from app.sandbox.engines.local import LocalEngine
from app.services.playground.service import PlaygroundService
from app.ui.main_window import MainWindow
from tests.gui.reach import body_of, embedded
from tests.local_support import require_local

pytestmark = pytest.mark.local


@pytest.fixture(autouse=True)
def local_only(request: pytest.FixtureRequest) -> None:
    require_local(request)  # before the console starts: a default run skips at once


@pytest.fixture
def service(console: MainWindow, qtbot: QtBot) -> PlaygroundService:
    state = embedded(console.session).state
    state.engine = LocalEngine(None)  # the embedded sandbox, now answering with the default GGUF
    state.engine.start_loading()
    return console.playground.service


def wait_done(qtbot: QtBot, service: PlaygroundService, count: int) -> None:
    qtbot.waitUntil(
        lambda: len(service.turns) >= count and service.turns[-1].status not in ("pending", "streaming"),
        timeout=120_000,
    )


def test_stream_chain_and_figures(qtbot: QtBot, service: PlaygroundService) -> None:
    options = RequestOptions(model="service-pro", max_output_tokens=24, chain_on_server=True)
    service.send("The history of tea", [], options)
    wait_done(qtbot, service, 1)
    first = service.turns[0]
    assert first.status in ("completed", "incomplete") and first.text.strip(), first.error
    assert first.figures.output_tokens > 0 and first.figures.time_to_first_token is not None
    service.send("Tell me more.", [], options)
    wait_done(qtbot, service, 2)
    second = service.turns[1]
    assert second.chain_on_server and body_of(second)["previous_response_id"] == first.response_id
    assert second.text.strip() and second.figures.input_tokens > first.figures.input_tokens


def test_schema_and_max_tokens(qtbot: QtBot, service: PlaygroundService) -> None:
    """Room enough for the JSON the schema bounds: it completes and holds to the schema. An answer cut at
    the cap, JSON or text, is incomplete and says why."""
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "maxLength": 30}},
        "required": ["city"],
        "additionalProperties": False,
    }
    service.send("A city:", [], RequestOptions(model="service-pro", schema=schema, max_output_tokens=120))
    wait_done(qtbot, service, 1)
    assert service.turns[0].status == "completed", service.turns[0].error
    jsonschema.validate(json.loads(service.turns[0].text), schema)
    service.new_conversation()
    longer = {
        "type": "object",
        "properties": {"story": {"type": "string", "minLength": 200}},
        "required": ["story"],
    }
    service.send("A story:", [], RequestOptions(model="service-pro", schema=longer, max_output_tokens=16))
    wait_done(qtbot, service, 1)
    assert_cut_at(service, 16)
    service.new_conversation()  # a lone prompt: continued as it stands, so it runs into the limit
    service.send("Once upon a time", [], RequestOptions(model="service-pro", max_output_tokens=16))
    wait_done(qtbot, service, 1)
    assert_cut_at(service, 16)


def assert_cut_at(service: PlaygroundService, cap: int) -> None:
    turn = service.turns[0]
    assert turn.status == "incomplete" and turn.figures.output_tokens == cap, (turn.status, turn.error)
    assert turn.response is not None and turn.response.incomplete_details is not None
    assert turn.response.incomplete_details.reason == "max_output_tokens"


def test_stop_mid_answer(qtbot: QtBot, service: PlaygroundService, console: MainWindow) -> None:
    engine = embedded(console.session).state.engine
    assert isinstance(engine, LocalEngine)
    model = engine.default
    service.send("A long story:", [], RequestOptions(model="service-pro", max_output_tokens=400))
    qtbot.waitUntil(lambda: len(service.turns[0].text) > 20, timeout=120_000)
    assert service.stop()
    wait_done(qtbot, service, 1)
    assert service.turns[0].status == "stopped" and service.turns[0].text
    qtbot.waitUntil(lambda: not model.lock.locked(), timeout=2000)  # the worker left at its next token


def test_a_function_call_on_the_local_model(qtbot: QtBot, service: PlaygroundService) -> None:
    """The Playground's function loop on real weights: the calls' arguments are held to the schema by the
    grammar, and the saved output answers each of the first round's."""
    from app.core.playground.functions import EXAMPLES, ToolChoice, ToolSettings

    tools = ToolSettings(functions=(EXAMPLES[0],), choice=ToolChoice.REQUIRED, max_rounds=2)
    service.send(
        "What is the weather in Paris?",
        [],
        # Room for more than one call: a second call cut at the cap leaves the round incomplete, unanswered.
        RequestOptions(model="service-pro", tools=tools, max_output_tokens=200),
    )
    wait_done(qtbot, service, 1)
    turn = service.turns[0]
    # Parallel calls are the API's default: the model may make more than one in a round (Gemma often asks
    # twice), and every one is held to the schema. Every call of the first round is answered with the saved
    # output and sent back. "required" holds in every round, so the model may call again in the second: the
    # loop's bound (two rounds) then ends the turn, incomplete, and says why.
    assert turn.rounds == 2, (turn.status, turn.error)
    for call in turn.calls:
        assert call.name == "get_weather"
        jsonschema.validate(json.loads(call.arguments), EXAMPLES[0].parameters)
    first = [call for call in turn.calls if call.round == 1]
    assert first and all(call.answered_by_saved for call in first)
    if any(call.round == 2 for call in turn.calls):
        assert turn.status == "incomplete" and "still calling functions" in turn.round_note
