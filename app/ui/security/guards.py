"""The words and the typed confirmation of the changes that can lock people out or open the API to all."""

from __future__ import annotations

from textwrap import fill

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.colours import Ink, hex_of

ADVICE = (
    "CI runners draw changing addresses from large pools: list a fixed egress (a proxy or "
    "self-hosted runners) instead. A restrictive organization list also blocks the hosted web Playground, whose "
    "requests come from the service's own servers; a project-level list on another project avoids that."
)


class AdviceFold(QWidget):
    """The advice, folded under one line: it is read once, and open it took three lines from the table at
    800x600."""

    def __init__(self, label: QLabel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.toggle = QToolButton(objectName="advice_toggle", checkable=True, autoRaise=True)
        self.toggle.setText("Tips: CI runners and the hosted Playground ▸")
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.label = label
        label.setText(ADVICE)
        label.hide()
        self.toggle.toggled.connect(self._show)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.toggle)
        layout.addWidget(label)

    def _show(self, shown: bool) -> None:
        self.label.setVisible(shown)
        self.toggle.setText(f"Tips: CI runners and the hosted Playground {'▾' if shown else '▸'}")


def locked_out_help(command: str | None) -> str:
    """How a locked-out admin recovers: the service's web dashboard, or the sandbox's own command, exactly."""
    if command:
        return (
            "Locked out? The allowlist covers the Admin API too. The local sandbox's dashboard is its command "
            f"line, which works on the store directly: {command}"
        )
    return (
        "Locked out? The allowlist covers the Admin API too; only the service's web dashboard escapes it: "
        "switch the list off there."
    )


def confirm_typed(parent: QWidget, title: str, explanation: str, word: str) -> bool:
    """A typed confirmation for the changes that can lock people out or open the API to all."""
    # Wrapped by hand: QInputDialog's label does not wrap, and a long sentence made it 1,300 px wide.
    wrapped = "\n\n".join(
        fill(part, 90, break_long_words=False, break_on_hyphens=False) for part in explanation.split("\n\n")
    )
    text, ok = QInputDialog.getText(parent, title, f"{wrapped}\n\nType {word} to go ahead:")
    return ok and text.strip() == word


class RecoveryPanel(QWidget):
    """How to recover from a lockout, with the sandbox's exact command (its real data folder) to copy."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.help = QLabel(objectName="recovery_help")
        self.help.setWordWrap(True)
        self.help.setTextFormat(Qt.TextFormat.PlainText)
        self.command = QLineEdit(objectName="recovery_command", readOnly=True)
        self.command.setAccessibleName("Recovery command")
        self.copy = QPushButton("Copy", objectName="copy_recovery_command")
        self.copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.command.text()))
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.command, 1)
        row.addWidget(self.copy)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.help)
        layout.addLayout(row)
        self.show_command(None)

    def show_command(self, command: str | None) -> None:
        self.help.setText(
            locked_out_help(None)
            if command is None
            else "Locked out? The allowlist covers the Admin API too. The local sandbox's dashboard is its "
            "command line, which works on the store directly; this switches the organization's list off:"
        )
        self.command.setText(command or "")
        for widget in (self.command, self.copy):
            widget.setVisible(command is not None)


class BlockedBanner(QFrame):
    """Shown while the IP allowlist refuses the admin key: the address the service saw, and (the tab puts it
    here meanwhile) the recovery panel. It goes away by itself at the first read that is answered."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("blocked_banner")
        self.label = QLabel(objectName="blocked_text")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # the address comes from the server
        self.box = QVBoxLayout(self)
        self.box.setContentsMargins(8, 6, 8, 6)
        self.box.addWidget(self.label)
        self.setStyleSheet(
            f"#blocked_banner {{ background: {hex_of(Ink.NOTICE_BACKGROUND)}; border: 1px solid {hex_of(Ink.BAD)};"
            f" border-radius: 4px; }} #blocked_text {{ color: {hex_of(Ink.NOTICE_TEXT)}; }}"
        )
        self.hide()

    def show_blocked(self, source_ip: str) -> None:
        seen = source_ip or "an address it did not name"
        self.label.setText(
            "403: this console's admin key is blocked by the IP allowlist: the organization's list is on and "
            f"does not admit {seen}, the address the service sees you at. The lists can be neither read nor "
            "changed from here. Switch the list off from the dashboard, which the allowlist does not cover, "
            "then press Refresh."
        )
        self.show()
