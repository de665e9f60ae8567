"""The inspector (request, headers, event timeline of a turn, its WebSocket frames) and 'Get code'. Neither ever shows a key."""

from __future__ import annotations

import json

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.common.logs import redact
from app.core.playground.turns import Turn, redacted_body
from app.ui.screen_fit import fit_to_screen

SHOWN_HEADERS = (
    "x-request-id",
    "x-ratelimit-limit-requests",
    "x-ratelimit-remaining-requests",
    "x-ratelimit-reset-requests",
    "retry-after",
    "x-request-source-ip",
    "content-type",
)


def inspector_text(turn: Turn) -> dict[str, str]:
    request = json.dumps(redacted_body(turn.request_body), indent=2, ensure_ascii=False)
    headers = "\n".join(f"{name}: {turn.headers[name]}" for name in SHOWN_HEADERS if name in turn.headers)
    # Deltas are many: show each kind of event, and the deltas as a count with their first and last times.
    lines, deltas = [], [entry.seconds for entry in turn.timeline if entry.type.endswith("text.delta")]
    for entry in turn.timeline:
        if not entry.type.endswith("text.delta"):
            lines.append(f"{entry.seconds * 1000:9.1f} ms  {entry.type}")
    if deltas:
        lines.append(
            f"{len(deltas):,} text deltas from {deltas[0] * 1000:,.1f} ms to {deltas[-1] * 1000:,.1f} ms"
        )
    # The request carries no key by construction; redact() is a second guard for anything copied out.
    pages = {
        "Request": redact(request),
        "Response headers": redact(headers or "(none)"),
        "Timeline": "\n".join(lines) or "(no events)",
    }
    if turn.socket is not None:  # WebSocket mode: each message sent and received (the key is in none)
        from app.core.playground.socket_log import frames_text

        pages["Frames"] = redact(frames_text(turn.socket)) or "(no frames)"
    return pages


class TextTabsDialog(QDialog):
    def __init__(self, title: str, pages: dict[str, str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        fit_to_screen(self, 720, 520)
        self.tabs = QTabWidget()
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        for name, text in pages.items():
            view = QPlainTextEdit(text)
            view.setReadOnly(True)
            view.setFont(mono)
            view.setObjectName(name)
            self.tabs.addTab(view, name)
        copy = QPushButton("Copy")
        copy.clicked.connect(self.copy_current)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(buttons)

    def page_text(self, name: str) -> str:
        for index in range(self.tabs.count()):
            if self.tabs.tabText(index) == name:
                widget = self.tabs.widget(index)
                assert isinstance(widget, QPlainTextEdit)
                return widget.toPlainText()
        raise KeyError(name)

    def copy_current(self) -> None:
        widget = self.tabs.currentWidget()
        if isinstance(widget, QPlainTextEdit):
            QGuiApplication.clipboard().setText(widget.toPlainText())


def ask_edit(parent: QWidget, prompt: str, later: int) -> str:
    """The message edited to send again from its turn ("" when cancelled); the question says what the edit
    costs before OK: the `later` turns after it leave the conversation."""
    from PySide6.QtWidgets import QInputDialog

    question = "Send again from here:" + (
        f"\n(the {later} later turn{'s' if later != 1 else ''} of this conversation will be dropped; "
        "Cancel keeps them)"
        if later
        else ""
    )
    text, ok = QInputDialog.getMultiLineText(parent, "Edit message", question, prompt)
    return text.strip() if ok else ""
