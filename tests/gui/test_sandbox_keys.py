"""The embedded sandbox needs no keychain: no question at start, a working key on every launch, and the key
can be copied from File > Profiles (how a person finds it for a snippet)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
from keyring.backends.fail import Keyring as FailKeyring
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QToolButton
from pytestqt.qtbot import QtBot

from app.common.secrets import SecretStore
from app.ui.main_window import MainWindow
from tests.gui.reach import child


def open_console(qtbot: QtBot, home: Path, questions: list[str]) -> MainWindow:
    from app.bootstrap import Paths, make_session
    from app.ui.main_window import MainWindow

    session = make_session(Paths.under(home), SecretStore(FailKeyring()), interactive=False)

    def say_no(message: str) -> bool:  # a person who says No
        questions.append(message)
        return False

    session.ask_session_only = say_no
    window = MainWindow(session)
    qtbot.addWidget(window)
    window.show()
    window.ensure_tabs()
    session.tasks.start("startup", session.activate())
    qtbot.waitUntil(lambda: session.state not in ("checking",), timeout=10000)
    return window


def close_console(qtbot: QtBot, window: MainWindow) -> None:
    session = window.session
    import asyncio

    task = asyncio.ensure_future(session.shutdown())
    qtbot.waitUntil(task.done, timeout=10000)


def test_no_keychain_no_question_and_a_working_key_on_every_launch(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    questions: list[str] = []
    first = open_console(qtbot, tmp_path, questions)
    assert first.session.state == "ok", first.session.detail
    port = first.session.sandbox.port
    close_console(qtbot, first)

    again = open_console(qtbot, tmp_path, questions)  # the session-only keys of the first launch are gone
    assert again.session.state == "ok", again.session.detail
    assert again.session.sandbox.port == port  # the same port: copied snippets keep working
    assert questions == []

    dialog = again.open_settings()
    qtbot.addWidget(dialog)
    copy = dialog.findChild(QToolButton, "copy_api_key")
    assert copy is not None and copy.isEnabled()
    qtbot.mouseClick(copy, Qt.MouseButton.LeftButton)
    key = QGuiApplication.clipboard().text()
    with httpx.Client(base_url=again.session.sandbox.base_url) as client:
        answer = client.get(
            "/models", headers={"authorization": f"Bearer {key}", "x-forwarded-for": "127.0.0.1"}
        )
    assert answer.status_code == 200
    close_console(qtbot, again)


def test_a_hosted_profile_question_names_the_key_and_no_says_what_to_do(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    questions: list[str] = []
    window = open_console(qtbot, tmp_path, questions)
    dialog = window.open_settings()
    qtbot.addWidget(dialog)
    dialog.add_profile()
    dialog.fields["name"].setText("Production")
    dialog.fields["api_key"].setText("sk-proj_x-secret")
    assert not dialog.save()
    assert len(questions) == 1 and "the API key of “Production”" in questions[0]
    said = child(dialog, QLabel, "result").text()
    assert "$SERVICE_API_KEY" in said
    close_console(qtbot, window)
