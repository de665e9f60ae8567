"""A stored prompt in the Playground, as a person uses it: chosen from the Prompts tab or the Playground's
picker, a field per `{{variable}}` with Send held until each is filled, the turn saying which prompt and
version it came from (a link back to that version). The embedded sandbox keeps prompts and is sent the
`prompt` parameter; a service without a prompts API is sent the prompt's text, filled in by the console."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from app.api.prompts import StoredPrompt
from app.core.profile import Profile
from app.ui.main_window import MainWindow
from app.ui.playground.tab import PlaygroundTab
from app.ui.prompts.tab import PromptsTab
from tests.conftest import Sandbox
from tests.gui.reach import body_of
from tests.gui.test_playground import wait_done
from tests.gui.test_playground_servers import choose_profile
from tests.sandbox.test_get_code_prompts import stored_twice


def session_prompt(console: MainWindow) -> StoredPrompt:
    """The trip planner saved twice in the console's own (embedded) sandbox, through its Admin API."""
    client = console.session.client
    assert client is not None
    settings = client.transport.settings
    with httpx.Client(
        base_url=client.base_url, headers={"authorization": f"Bearer {settings.admin_key}"}
    ) as web:
        return stored_twice(web, client.prompts.org_id)


def held(tab: PlaygroundTab) -> str:
    """Why Send is disabled ("" when it is enabled)."""
    return "" if tab.send_button.isEnabled() else tab.send_button.toolTip()


def test_a_prompt_from_the_picker_holds_send_until_filled_and_the_sandbox_fills_it(
    qtbot: QtBot, console: MainWindow
) -> None:
    stored = session_prompt(console)
    tab = console.playground
    qtbot.mouseClick(tab.prompt_button, Qt.MouseButton.LeftButton)
    picker = tab.prompt_picker
    qtbot.waitUntil(lambda: picker.list.count() == 1)
    assert picker.list.item(0).text() == "Trip planner  (v2) — city, days"
    qtbot.mouseClick(picker.use_button, Qt.MouseButton.LeftButton)

    panel = tab.prompt_panel
    assert panel.isVisible() and list(panel.fields) == ["city", "days"]
    assert panel.heading.text() == 'Prompt: <a href="open">Trip planner v2</a>'
    assert held(tab) == "Fill in city and days to send from Trip planner v2."
    assert panel.reason.text() == held(tab)
    qtbot.keyClicks(panel.fields["city"], "Lisbon")
    assert held(tab) == "Fill in days to send from Trip planner v2."
    qtbot.keyClick(tab.message, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert tab.service.turns == []  # Ctrl+Enter is held too
    qtbot.keyClicks(panel.fields["days"], "3")
    qtbot.waitUntil(lambda: held(tab) == "")  # once the sandbox said it keeps the version
    code = tab.code_snippets()  # Get code: the prompt parameter, the key by its variable's name only
    key = console.session.client.transport.settings.api_key  # type: ignore[union-attr]
    assert key and all(stored.id in text and '"city": "Lisbon"' in text for text in code.values())
    assert all("instructions" not in text and key not in text for text in code.values())

    qtbot.mouseClick(tab.send_button, Qt.MouseButton.LeftButton)
    wait_done(qtbot, tab)
    turn = tab.service.turns[0]
    assert turn.status == "completed", turn.error
    sent = body_of(turn)
    assert sent["prompt"] == {"id": stored.id, "version": "2", "variables": {"city": "Lisbon", "days": "3"}}
    assert "instructions" not in sent and sent["input"] == []  # the sandbox brings the prompt's own
    assert "Lisbon" in turn.text  # the simulated model answers from the message the sandbox filled in
    assert turn.prompt == "Plan 3 days in Lisbon."
    source = tab.views[0].findChild(QLabel, "prompt_source")
    assert source is not None and source.isVisibleTo(tab)
    assert source.text() == '<a href="prompt">from prompt Trip planner v2</a>'

    assert panel.fields["city"].text() == "Lisbon"  # kept for the next turn of this conversation

    panel.fields["days"].clear()
    qtbot.keyClicks(panel.fields["days"], "5")  # the form changes; Regenerate sends the turn as it went
    qtbot.mouseClick(tab.views[0].action_buttons["regenerate"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.service.turns[0] is not turn)
    wait_done(qtbot, tab)
    again = tab.service.turns[0]
    assert again.status == "completed" and body_of(again)["prompt"] == sent["prompt"]
    assert again.prompt == "Plan 3 days in Lisbon." and again.prompt_id == stored.id
    source = tab.views[0].findChild(QLabel, "prompt_source")
    assert source is not None and source.text() == '<a href="prompt">from prompt Trip planner v2</a>'
    source.linkActivated.emit("prompt")  # the link: that version in the Prompts tab
    prompts = console.tabs.widget(2)
    assert console.tabs.currentIndex() == 2 and isinstance(prompts, PromptsTab)
    qtbot.waitUntil(lambda: prompts.editor.heading.text() == "Trip planner — version 2")


def test_use_in_playground_carries_the_values_and_each_conversation_keeps_its_own(
    qtbot: QtBot, console: MainWindow
) -> None:
    session_prompt(console)
    view = {action.text(): action for action in console.menus.view_menu.actions()}
    view["Prompts"].trigger()
    prompts = console.tabs.widget(2)
    assert isinstance(prompts, PromptsTab)
    qtbot.waitUntil(lambda: prompts.list.count() == 1)
    prompts.list.setCurrentRow(0)
    qtbot.waitUntil(lambda: prompts.editor.heading.text() == "Trip planner — version 2")
    qtbot.keyClicks(prompts.variables.fields["city"], "Kyoto")
    qtbot.mouseClick(prompts.playground_button, Qt.MouseButton.LeftButton)

    tab = console.playground
    assert console.tabs.currentWidget() is tab
    panel = tab.prompt_panel
    assert panel.fields["city"].text() == "Kyoto" and panel.fields["days"].text() == ""
    assert held(tab) == "Fill in days to send from Trip planner v2."
    qtbot.keyClicks(panel.fields["days"], "2")
    qtbot.waitUntil(lambda: held(tab) == "")
    qtbot.keyClicks(tab.message, "Mention the food.")
    qtbot.mouseClick(tab.send_button, Qt.MouseButton.LeftButton)
    wait_done(qtbot, tab)
    turn = tab.service.turns[0]
    assert turn.prompt == "Plan 2 days in Kyoto.\n\nMention the food."
    assert body_of(turn)["input"] == "Mention the food."  # after the prompt's message, on the service
    qtbot.waitUntil(lambda: tab.keeper.current_id is not None)
    first = tab.keeper.current_id
    assert first is not None

    tab.keeper.new()  # another conversation: no prompt in it
    assert not panel.isVisible() and held(tab) == ""
    tab.keeper.open(first)  # back, read from the file: its turn's source and its prompt and values
    source = tab.views[0].findChild(QLabel, "prompt_source")
    assert source is not None and source.text() == '<a href="prompt">from prompt Trip planner v2</a>'
    assert panel.isVisible() and panel.fields["city"].text() == "Kyoto" and panel.fields["days"].text() == "2"
    qtbot.mouseClick(panel.put_away_button, Qt.MouseButton.LeftButton)
    assert not panel.isVisible()


@contextmanager
def no_prompts_service(sandbox: Sandbox) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A service with the Responses API and no prompts API: it records every response body, has the
    sandbox answer it, and answers 404 to anything else. Yields its base URL and the bodies."""
    bodies: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._not_found()

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", 0)))
            if not self.path.startswith("/v1/responses"):
                self._not_found()
                return
            bodies.append(json.loads(raw))
            headers = {"authorization": self.headers["authorization"], "content-type": "application/json"}
            with (
                httpx.Client(timeout=30) as client,
                client.stream("POST", sandbox.url + "/responses", content=raw, headers=headers) as answer,
            ):
                self.send_response(answer.status_code)
                self.send_header("content-type", answer.headers["content-type"])
                self.send_header("connection", "close")
                self.end_headers()
                for chunk in answer.iter_raw():
                    self.wfile.write(chunk)
                    self.wfile.flush()

        def _not_found(self) -> None:
            payload = b'{"error": {"message": "Not found", "type": "invalid_request_error"}}'
            self.send_response(404)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", bodies
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_a_service_without_stored_prompts_is_sent_the_filled_text(
    qtbot: QtBot, console: MainWindow, sandbox: Sandbox
) -> None:
    with sandbox.admin() as admin:
        stored = stored_twice(admin, sandbox.creds.org_id)
    with no_prompts_service(sandbox) as (url, bodies):
        session = console.session
        plain = Profile(id="p-plain", name="No prompts", base_url=url, org_id=sandbox.creds.org_id)
        session.profiles.save(plain)
        session.secrets.set(plain.id, "api_key", sandbox.creds.api_key)
        session.secrets.set(plain.id, "admin_key", sandbox.creds.admin_key)  # asked, and answered 404
        choose_profile(qtbot, console, "No prompts")
        tab = console.playground
        console.open_prompt_in_playground(stored, {"city": "Oslo", "days": "4"})
        assert console.tabs.currentWidget() is tab
        qtbot.waitUntil(lambda: held(tab) == "")
        assert tab.prompt_source.stores() is False

        code = tab.code_snippets()  # Get code: the same filled text, no prompt parameter
        assert all('"prompt"' not in text and "Plan 4 days in Oslo." in text for text in code.values())
        qtbot.mouseClick(tab.send_button, Qt.MouseButton.LeftButton)
        wait_done(qtbot, tab)
        turn = tab.service.turns[0]
        assert turn.status == "completed", turn.error
        (received,) = bodies
        assert "prompt" not in received
        assert received["instructions"] == "You plan trips to Oslo."
        assert received["input"] == "Plan 4 days in Oslo."
        source = tab.views[0].findChild(QLabel, "prompt_source")
        assert source is not None and source.text() == '<a href="prompt">from prompt Trip planner v2</a>'
