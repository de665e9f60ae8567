"""The Playground as a person uses it, against the embedded sandbox as a real server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QPushButton
from pytestqt.qtbot import QtBot

from app.api import ConnectionSettings, ServiceClient
from app.ui.main_window import MainWindow
from app.ui.playground.tab import PlaygroundTab
from tests.api.servers import raw_server, sse, sse_head
from tests.gui.reach import body_of, child, client_of, embedded, simulated


@pytest.fixture
def tab(console: MainWindow) -> PlaygroundTab:
    console.tabs.setCurrentWidget(console.playground)
    return console.playground


def send(qtbot: QtBot, tab: PlaygroundTab, text: str) -> None:
    tab.message.setFocus()
    qtbot.keyClicks(tab.message, text)
    qtbot.keyClick(tab.message, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)


def click_box(qtbot: QtBot, box: QAbstractButton) -> None:
    """Click a checkbox on its indicator, where a person clicks (its centre may be empty space)."""
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(6, box.height() // 2))


def wait_done(qtbot: QtBot, tab: PlaygroundTab, count: int = 1, timeout: int = 15000) -> None:
    qtbot.waitUntil(
        lambda: (
            len(tab.service.turns) >= count
            and not tab.service.streaming
            # "pending" too: a turn stopped before its task ran is marked stopped by the task's done
            # callback, one loop turn after the task is done (this raced under load).
            and tab.service.turns[-1].status not in ("pending", "streaming")
        ),
        timeout=timeout,
    )


def test_send_streams_and_shows_figures(qtbot: QtBot, tab: PlaygroundTab, console: MainWindow) -> None:
    simulated(console.session).delay = 0.02  # a pace to time: an answer in a few ms shows none
    send(qtbot, tab, "Explain **tides** briefly")
    wait_done(qtbot, tab)
    view = tab.views[0]
    turn = tab.service.turns[0]
    assert turn.status == "completed" and "Explain" in turn.text
    assert "tides" in view.answer.toPlainText()
    status = view.status.text()
    assert "first token" in status and "tok/s" in status and "total" in status
    assert "Session:" in tab.totals.text()
    assert tab.message.toPlainText() == ""


def test_stop_mid_stream_keeps_partial_and_releases(
    qtbot: QtBot, tab: PlaygroundTab, console: MainWindow
) -> None:
    simulated(console.session).delay = 0.003
    send(qtbot, tab, "Write 3000 words about the sea")
    qtbot.waitUntil(lambda: bool(tab.service.turns) and len(tab.service.turns[0].text) > 50, timeout=10000)
    qtbot.keyClick(tab, Qt.Key.Key_Escape)
    wait_done(qtbot, tab)
    turn = tab.service.turns[0]
    assert turn.status == "stopped" and turn.text
    assert "Stopped" in tab.views[0].status.text()
    assert tab.send_button.isEnabled() and not tab.stop_button.isEnabled()
    simulated(console.session).delay = 0
    send(qtbot, tab, "Still there?")
    wait_done(qtbot, tab, 2)
    assert tab.service.turns[1].status == "completed"


def test_stop_before_first_token(qtbot: QtBot, tab: PlaygroundTab, console: MainWindow) -> None:
    simulated(console.session).delay = 0.5
    send(qtbot, tab, "Hello")
    qtbot.mouseClick(tab.stop_button, Qt.MouseButton.LeftButton)
    wait_done(qtbot, tab)
    assert tab.service.turns[0].status == "stopped"
    simulated(console.session).delay = 0


def test_chained_and_full_history_turns(qtbot: QtBot, tab: PlaygroundTab) -> None:
    send(qtbot, tab, "My name is Ada")
    wait_done(qtbot, tab)
    send(qtbot, tab, "What is my name?")
    wait_done(qtbot, tab, 2)
    second = tab.service.turns[1]
    assert body_of(second)["previous_response_id"] == tab.service.turns[0].response_id
    assert "chained on the server" in tab.views[1].prompt_label.text()
    assert "My name is Ada" in second.text
    click_box(qtbot, tab.chain)
    assert not tab.chain.isChecked()
    send(qtbot, tab, "And again?")
    wait_done(qtbot, tab, 3)
    third = tab.service.turns[2]
    assert "previous_response_id" not in body_of(third)
    assert len(body_of(third)["input"]) == 5 and "whole history" in tab.views[2].prompt_label.text()
    assert "turn 3" in third.text


def test_new_conversation_regenerate_and_edit(
    qtbot: QtBot, tab: PlaygroundTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    send(qtbot, tab, "first")
    wait_done(qtbot, tab)
    send(qtbot, tab, "second")
    wait_done(qtbot, tab, 2)
    assert tab.views[1].action_buttons["regenerate"].isVisibleTo(tab)
    assert not tab.views[0].action_buttons["regenerate"].isVisibleTo(tab)
    qtbot.mouseClick(tab.views[1].action_buttons["regenerate"], Qt.MouseButton.LeftButton)
    wait_done(qtbot, tab, 2)
    assert [t.prompt for t in tab.service.turns] == ["first", "second"]
    monkeypatch.setattr(
        "PySide6.QtWidgets.QInputDialog.getMultiLineText", lambda *a, **k: ("first, edited", True)
    )
    qtbot.mouseClick(tab.views[0].edit_button, Qt.MouseButton.LeftButton)
    wait_done(qtbot, tab, 1)
    assert [t.prompt for t in tab.service.turns] == ["first, edited"]
    qtbot.mouseClick(tab.findChild(QPushButton, "new_conversation"), Qt.MouseButton.LeftButton)
    assert tab.service.turns == [] and "in 0" in tab.totals.text()


def png(path: Path, size: tuple[int, int] = (320, 200)) -> Path:
    image = QImage(*size, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.darkCyan)
    image.save(str(path), "PNG")  # type: ignore[call-overload]  # the stub wants the format as bytes; PySide6 takes str
    return path


def test_attach_send_and_remove_images(qtbot: QtBot, tab: PlaygroundTab, tmp_path: Path) -> None:
    tab.attach_file(png(tmp_path / "chart.png"))
    assert "PNG 320×200" in tab.attachments[0].label and tab.attachments[0].tokens == 255
    tab.attach_file(png(tmp_path / "second.png"))
    qtbot.mouseClick(tab.findChild(type(tab.params_toggle), "thumb1"), Qt.MouseButton.LeftButton)
    assert len(tab.attachments) == 1
    send(qtbot, tab, "What is in the picture?")
    wait_done(qtbot, tab)
    assert "a PNG image of 320×200 pixels" in tab.service.turns[0].text
    assert tab.attachments == []


def test_broken_image_is_refused_and_spoils_nothing(qtbot: QtBot, tab: PlaygroundTab, tmp_path: Path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 10)
    tab.attach_file(broken)
    assert tab.attachments == [] and "broken.png" in tab.image_notice.text()
    bmp = tmp_path / "old.bmp"
    QImage(10, 10, QImage.Format.Format_RGB32).save(str(bmp), "BMP")  # type: ignore[call-overload]  # as above
    tab.attach_file(bmp)
    assert tab.attachments == [] and "BMP" in tab.image_notice.text()
    send(qtbot, tab, "Hello after a bad image")
    wait_done(qtbot, tab)
    assert tab.service.turns[0].status == "completed"


def test_oversized_image_is_scaled_down(qtbot: QtBot, tab: PlaygroundTab, tmp_path: Path) -> None:
    tab.attachment_bar.max_image_side = 256
    tab.attach_file(png(tmp_path / "big.png", (1200, 600)))
    assert "scaled to 256×128" in tab.attachments[0].label
    send(qtbot, tab, "big one")
    wait_done(qtbot, tab)
    assert "256×128" in tab.service.turns[0].text


def test_paste_and_drop_and_url(qtbot: QtBot, tab: PlaygroundTab, tmp_path: Path) -> None:
    mime = QMimeData()
    image = QImage(64, 48, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.red)
    mime.setImageData(image)
    tab.message.insertFromMimeData(mime)
    assert "64×48" in tab.attachments[0].label
    drop = QMimeData()
    drop.setUrls([QUrl.fromLocalFile(str(png(tmp_path / "dropped.png", (30, 30))))])
    # As a real drag does: enter (accepted), then drop.
    enter = QDragEnterEvent(
        QPoint(10, 10),
        Qt.DropAction.CopyAction,
        drop,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    assert QApplication.sendEvent(tab, enter) and enter.isAccepted()
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        drop,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
        QEvent.Type.Drop,
    )
    QApplication.sendEvent(tab, event)
    assert "dropped.png" in tab.attachments[1].label
    tab.attach_url("ftp://example.com/x.png")
    assert len(tab.attachments) == 2 and "http" in tab.image_notice.text()
    tab.attach_url("https://example.com/cat.png")
    assert len(tab.attachments) == 3


def test_web_search_shows_queries_and_sources(qtbot: QtBot, tab: PlaygroundTab) -> None:
    click_box(qtbot, tab.web_search)
    send(qtbot, tab, "How do CIDR ranges work?")
    wait_done(qtbot, tab)
    view = tab.views[0]
    assert view.search_label.text().startswith("Searched:") and "cidr" in view.search_label.text()
    assert (
        "Sources" in view.sources.text() and "https://docs.example.com/networking/cidr" in view.sources.text()
    )


def test_structured_output_schema_editor_and_verdict(qtbot: QtBot, tab: PlaygroundTab) -> None:
    click_box(qtbot, tab.structured)
    assert tab.schema_status.text().startswith("✓")
    tab.schema_edit.setPlainText('{"type": "objekt"}')
    assert "Not a valid JSON Schema" in tab.schema_status.text()
    tab.schema_edit.setPlainText("{not json")
    assert "Not valid JSON" in tab.schema_status.text()
    send(qtbot, tab, "Give me an answer")
    assert tab.service.turns == []  # refused before sending
    tab.schema_edit.setPlainText(
        json.dumps({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
    )
    send(qtbot, tab, "")
    wait_done(qtbot, tab)
    view = tab.views[0]
    assert view.verdict.text() == "✓ Valid against the schema"
    assert "city" in json.loads(tab.service.turns[0].text)


def test_reasoning_summary_is_collapsible(qtbot: QtBot, tab: PlaygroundTab) -> None:
    tab.model.setCurrentText("service-think")
    send(qtbot, tab, "Why is the sky blue?")
    wait_done(qtbot, tab)
    view = tab.views[0]
    assert view.reasoning_toggle.isVisibleTo(tab) and not view.reasoning_label.isVisibleTo(tab)
    qtbot.mouseClick(view.reasoning_toggle, Qt.MouseButton.LeftButton)
    assert view.reasoning_label.isVisibleTo(tab) and "The request asks" in view.reasoning_label.text()


def test_inspector_and_code_never_show_the_key(qtbot: QtBot, tab: PlaygroundTab, console: MainWindow) -> None:
    key = client_of(console.session).transport.settings.api_key
    assert key
    send(qtbot, tab, "inspect me")
    wait_done(qtbot, tab)
    tab.inspect(0)
    from app.ui.playground.dialogs import TextTabsDialog

    inspector = child(tab, TextTabsDialog)
    assert '"inspect me"' in inspector.page_text("Request")
    assert "x-request-id" in inspector.page_text("Response headers")
    assert "response.completed" in inspector.page_text("Timeline")
    tab.message.setPlainText("code please")
    snippets = tab.code_snippets()
    for name, text in snippets.items():
        assert key not in text, name
        assert "SERVICE_API_KEY" in text
    assert (
        "curl" in snippets["curl"]
        and "os.environ" in snippets["Python"]
        and "process.env" in snippets["Node.js"]
    )
    for name in ("Request", "Response headers", "Timeline"):
        assert key not in inspector.page_text(name)


def test_403_offers_to_allow_the_ip(qtbot: QtBot, tab: PlaygroundTab, console: MainWindow) -> None:
    session = console.session
    session.set_simulated_ip("203.0.113.77")

    async def lock() -> None:
        await client_of(session).allowlists.add("198.51.100.0/24")
        await client_of(session).allowlists.set_enabled(True, force=True)

    session.tasks.start("lock", lock())
    qtbot.waitUntil(lambda: not session.tasks.running("lock"))
    send(qtbot, tab, "hello")
    wait_done(qtbot, tab)
    view = tab.views[0]
    assert "203.0.113.77" in view.status.text()
    qtbot.mouseClick(view.action_buttons["allow"], Qt.MouseButton.LeftButton)
    assert console.tabs.currentWidget() is console.security
    assert console.security.add_form.cidr.text() == "203.0.113.77"


def test_401_points_to_the_profile(qtbot: QtBot, tab: PlaygroundTab, console: MainWindow) -> None:
    client_of(console.session).transport.settings.api_key = "sk-bad"
    send(qtbot, tab, "hello")
    wait_done(qtbot, tab)
    view = tab.views[0]
    assert "401" in view.status.text() and view.action_buttons["settings"].isVisibleTo(tab)
    assert not view.answer.isVisibleTo(tab)  # no empty answer strip above the error


def test_429_counts_down_and_stop_gives_up(qtbot: QtBot, tab: PlaygroundTab, console: MainWindow) -> None:
    embedded(console.session).app.limiter.per_minute = 0
    client_of(console.session).transport.settings.max_retries = 0
    send(qtbot, tab, "hello")
    view = tab.views[0]
    qtbot.waitUntil(lambda: "retrying in" in view.status.text())
    assert tab.service.turns[0].status == "waiting" and tab.stop_button.isEnabled()
    assert "Stop" in view.status.text()
    qtbot.mouseClick(tab.stop_button, Qt.MouseButton.LeftButton)
    wait_done(qtbot, tab)
    assert tab.service.turns[0].status == "stopped" and "Stopped" in view.status.text()
    assert tab.send_button.isEnabled()


def test_connection_lost_mid_stream_keeps_partial_and_offers_retry(
    qtbot: QtBot, tab: PlaygroundTab, console: MainWindow
) -> None:
    delta = json.dumps({"type": "response.output_text.delta", "delta": "The first half of"})
    with raw_server(sse_head() + sse("response.output_text.delta", delta)) as url:
        closing = asyncio.ensure_future(client_of(console.session).aclose())  # the sandbox's: its sockets too
        qtbot.waitUntil(closing.done)
        console.session.client = ServiceClient(ConnectionSettings(base_url=url, api_key="k", max_retries=0))
        send(qtbot, tab, "hello")
        wait_done(qtbot, tab)
    view = tab.views[0]
    turn = tab.service.turns[0]
    assert turn.status == "incomplete" and turn.text == "The first half of"
    assert "partial answer is kept" in view.status.text() and view.action_buttons["retry"].isVisibleTo(tab)


def use_server(qtbot: QtBot, console: MainWindow, url: str) -> None:
    """Point the session at a loopback peer, closing the client it had."""
    session = console.session
    old = client_of(session)
    session.client = ServiceClient(ConnectionSettings(base_url=url, api_key="k", max_retries=0))
    session.tasks.start("close-old", old.aclose())
    qtbot.waitUntil(lambda: not session.tasks.running("close-old"))


def sse_answer(text: str, response: dict[str, Any]) -> bytes:
    delta = json.dumps({"type": "response.output_text.delta", "delta": text})
    final = json.dumps({"type": "response.completed", "response": response})
    deltas = sse("response.output_text.delta", delta) if text else b""
    return sse_head() + deltas + sse("response.completed", final) + b"data: [DONE]\n\n"


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        ({"id": "resp_1", "status": "completed", "output": []}, "stop reason: completed"),
        (
            {"id": "resp_1", "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}},
            "stop reason: incomplete, max_output_tokens",
        ),
    ],
)
def test_an_empty_answer_says_so_with_its_stop_reason(
    qtbot: QtBot, tab: PlaygroundTab, console: MainWindow, response: dict[str, Any], reason: str
) -> None:
    with raw_server(sse_answer("", response)) as url:
        use_server(qtbot, console, url)
        send(qtbot, tab, "hello")
        wait_done(qtbot, tab)
    status = tab.views[0].status.text()
    assert "The answer was empty" in status and reason in status
    assert tab.views[0].action_buttons["retry"].isVisibleTo(tab)


def test_a_broken_chain_is_said_on_the_turn(qtbot: QtBot, tab: PlaygroundTab, console: MainWindow) -> None:
    text = "Hi there"
    message = {"type": "message", "content": [{"type": "output_text", "text": text}]}
    answer = sse_answer(text, {"status": "completed", "output": [message]})  # no response id
    with raw_server(answer) as url:
        use_server(qtbot, console, url)
        send(qtbot, tab, "first")
        wait_done(qtbot, tab)
        send(qtbot, tab, "second")
        wait_done(qtbot, tab, 2)
    second = tab.service.turns[1]
    assert "previous_response_id" not in body_of(second)
    assert body_of(second)["input"][1] == {"role": "assistant", "content": text}
    note = tab.views[1].findChild(QLabel, "chain_note")
    assert note is not None and note.isVisibleTo(tab)
    assert "no response id" in note.text() and "whole history" in note.text()
    assert tab.views[0].findChild(QLabel, "chain_note") is None


def test_an_hour_long_retry_after_is_counted_down_and_stoppable(
    qtbot: QtBot, tab: PlaygroundTab, console: MainWindow
) -> None:
    body = b'{"error": {"message": "Try again in an hour.", "type": "rate_limit_error", "code": null}}'
    head = "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 3600\r\n"
    limited = f"{head}content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode() + body
    with raw_server(limited) as url:
        use_server(qtbot, console, url)
        send(qtbot, tab, "hello")
        view = tab.views[0]
        qtbot.waitUntil(lambda: "retrying in 60:00" in view.status.text() or "59:5" in view.status.text())
        qtbot.keyClick(tab, Qt.Key.Key_Escape)
        wait_done(qtbot, tab)
    assert tab.service.turns[0].status == "stopped" and "Stopped" in view.status.text()
