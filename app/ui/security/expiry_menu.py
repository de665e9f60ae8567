""" "Expires in": never, 1 hour, 1 day, 1 week, or a date, as a menu (Extend on a row) and as the add form's
choice; the moment chosen is Unix seconds, or None for never."""

from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6.QtCore import QDateTime, Signal
from PySide6.QtWidgets import QComboBox, QDateTimeEdit, QDialog, QDialogButtonBox, QMenu, QVBoxLayout, QWidget

from app.core.security.expiry import UNITS


@dataclass(frozen=True)
class Expiry:
    """When an entry stops admitting: `at` in Unix seconds, or None for never."""

    at: int | None


PRESETS = (("1 hour", UNITS["h"]), ("1 day", UNITS["d"]), ("1 week", UNITS["w"]))
NEVER, A_DATE = "Never", "A date…"


def ask_date(parent: QWidget, title: str) -> int | None:
    """A date and time in the future, chosen in a small dialog; None when cancelled."""
    dialog = QDialog(parent, objectName="expiry_date_dialog")
    dialog.setWindowTitle(title)
    edit = QDateTimeEdit(QDateTime.currentDateTime().addDays(1), objectName="expiry_date")
    edit.setCalendarPopup(True)
    edit.setMinimumDateTime(QDateTime.currentDateTime().addSecs(60))
    edit.setDisplayFormat("yyyy-MM-dd HH:mm")
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(edit)
    layout.addWidget(buttons)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    return int(edit.dateTime().toSecsSinceEpoch())


class ExpiryMenu(QMenu):
    """Extend: expires in 1 hour, 1 day, 1 week (from now), at a date, or never."""

    chosen = Signal(Expiry)

    def __init__(self, parent: QWidget, with_never: bool = True) -> None:
        super().__init__(parent)
        self.setObjectName("expiry_menu")
        for label, seconds in PRESETS:
            action = self.addAction(f"Expires in {label}")
            action.triggered.connect(
                lambda _=False, s=seconds: self.chosen.emit(Expiry(int(time.time() + s)))
            )
        self.addAction("Expires at a date…").triggered.connect(self._date)
        if with_never:
            self.addAction("Never expires").triggered.connect(lambda: self.chosen.emit(Expiry(None)))

    def _date(self) -> None:
        at = ask_date(self.parentWidget() or self, "Expires at")
        if at is not None:
            self.chosen.emit(Expiry(at))


class ExpiryChoice(QComboBox):
    """The add form's "Expires": never, in 1 hour, 1 day, 1 week, or at a date (asked when chosen)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("expires")
        self.setToolTip("Expires: when the entry stops admitting (the list then shows it as expired)")
        # Short words: the form shares one row with the address and the description at 800 px.
        self.addItem("No expiry", None)
        for label, seconds in PRESETS:
            self.addItem(f"For {label}", seconds)
        self.addItem("Until a date…", A_DATE)
        self.date: int | None = None
        self.activated.connect(self._chosen)

    def _chosen(self, row: int) -> None:
        if self.itemData(row) != A_DATE:
            return
        at = ask_date(self, "Expires at")
        if at is None:
            self.setCurrentIndex(0)
            return
        self.date = at
        self.setItemText(row, f"Until {QDateTime.fromSecsSinceEpoch(at).toString('yyyy-MM-dd HH:mm')}")

    def expires_at(self) -> int | None:
        """The moment chosen, from now; None for never."""
        data = self.currentData()
        if data is None:
            return None
        if data == A_DATE:
            return self.date
        return int(time.time() + int(data))

    def reset(self) -> None:
        self.setCurrentIndex(0)
        self.setItemText(self.count() - 1, "Until a date…")
        self.date = None
