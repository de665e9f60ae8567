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
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    service.send("A city:", [], RequestOptions(model="service-pro", schema=schema, max_output_tokens=40))
    wait_done(qtbot, service, 1)
    jsonschema.validate(json.loads(service.turns[0].text), schema)
    service.new_conversation()  # a lone prompt: continued as it stands, so it runs into the limit
    service.send("Once upon a time", [], RequestOptions(model="service-pro", max_output_tokens=16))
    wait_done(qtbot, service, 1)
    assert service.turns[0].status == "incomplete" and service.turns[0].figures.output_tokens == 16


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
    """The Playground's function loop on real weights: the call's arguments are held to the schema by the
    grammar, the saved output answers it, and the model answers in text."""
    from app.core.playground.functions import EXAMPLES, ToolChoice, ToolSettings

    tools = ToolSettings(functions=(EXAMPLES[0],), choice=ToolChoice.REQUIRED, max_rounds=2)
    service.send(
        "What is the weather in Paris?",
        [],
        RequestOptions(model="service-pro", tools=tools, max_output_tokens=48),
    )
    wait_done(qtbot, service, 1)
    turn = service.turns[0]
    assert turn.calls and turn.calls[0].name == "get_weather", turn.error
    jsonschema.validate(json.loads(turn.calls[0].arguments), EXAMPLES[0].parameters)
    assert turn.calls[0].answered_by_saved and turn.rounds == 2
