"""Sentences a person reads, said right: one entry is "1 entry", a file that is no image says what to send (not
which library failed to read it), a key's label keeps its capitals inside a sentence, and a long status message
wraps at 800 px instead of running past the window's edge."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from app.common.wording import counted, in_sentence
from app.sandbox.store.database import run_blocking
from app.ui.main_window import MainWindow
from app.ui.security.tab import SecurityTab
from tests.gui.reach import child, embedded, profile_of


def test_one_entry_is_said_as_one(console: MainWindow, qtbot: QtBot, tab: SecurityTab) -> None:
    profile = profile_of(console.session)
    store = embedded(console.session).store
    run_blocking(store.allowlists.add_entry("organization", profile.org_id, "198.51.100.0/24", "office"))
    tab.service.refresh()
    count = child(tab, QLabel, "shown_count")
    qtbot.waitUntil(lambda: count.text() == "1 entry")


def test_a_file_that_is_no_image_says_what_to_send(console: MainWindow, tmp_path: Path) -> None:
    tab = console.playground
    notes = tmp_path / "notes.png"
    notes.write_text("these are notes, not an image")
    tab.attach_file(notes)
    said = tab.image_notice.text()
    assert "notes.png" in said and "Qt" not in said and "PNG, JPEG, WebP or GIF" in said


def test_labels_inside_sentences() -> None:
    assert in_sentence("API key") == "API key"
    assert in_sentence("Admin key") == "admin key"
    assert in_sentence("Client key passphrase") == "client key passphrase"
    assert counted(1, "entry", "entries") == "1 entry"
    assert counted(1_000, "entry", "entries") == "1,000 entries"
    assert counted(2, "turn") == "2 turns"


def test_a_long_status_message_wraps_at_800_px(console: MainWindow, qtbot: QtBot) -> None:
    console.resize(800, 600)
    text = (
        "Connected to Production through the proxy proxy.corp.example:3128 with the CA bundle "
        "/etc/ssl/certs/corporate-root.pem; the organization's allowlist admits 203.0.113.7 (the address seen)."
    )
    console.session.bus.info(text)
    line = child(console.statusBar(), QLabel, "status_message")
    assert console.statusBar().currentMessage() == text
    qtbot.waitUntil(lambda: line.height() >= line.heightForWidth(line.width()) > line.fontMetrics().height())
    right = line.mapTo(console, line.rect().topRight()).x()
    assert right < console.width()
