"""The Playground's model box: the profile's models, each with the real model behind its name, and the one
to go on with (the last launch's, or a reopened conversation's) kept until the list offers it."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QComboBox, QWidget

from app.services.session.session import ConsoleSession


class ModelBox(QComboBox):
    def __init__(self, session: ConsoleSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("model")
        self.session = session
        self.preferred = ""  # the model to choose once the list offers it
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.currentTextChanged.connect(lambda _name: self.show_what_serves_each())
        session.models_changed.connect(self.show_what_serves_each)

    def prefer(self, name: str) -> None:
        """Choose `name` now if it is offered, else as soon as the list offers it."""
        if self.findText(name) >= 0:
            self.setCurrentText(name)
        else:
            self.preferred = name

    def reload(self) -> None:
        """The profile's models, keeping the one chosen (or the preferred one) when it is still offered."""
        profile = self.session.profile
        current = self.currentText() or self.preferred
        self.clear()
        if profile is not None:
            self.addItems(profile.model_names)
            if current in profile.model_names:
                self.setCurrentText(current)
            self.setMinimumWidth(self.sizeHint().width())  # never "service-p" in a small window
            self.show_what_serves_each()

    def show_what_serves_each(self) -> None:
        """Each name's real model (the server's `owned_by`: the local sandbox names the weights file), and
        whether it calls functions where the server says so."""
        # Unheard by the box: a tooltip changes no size, but told of one the box (AdjustToContents) measures
        # every item again and relays the Playground's top row, at once and again 20 ms later.
        with QSignalBlocker(self.model()):
            for row in range(self.count()):
                self.setItemData(row, self.describe(self.itemText(row)), Qt.ItemDataRole.ToolTipRole)
        self.setToolTip(self.describe(self.currentText()) if self.currentText() else "")

    def describe(self, name: str) -> str:
        """A model as its tooltip says it: what serves it, and whether it calls functions when known."""
        behind = self.session.model_details.get(name, "")
        calls = self.session.model_functions.get(name)
        functions = "" if calls is None else ("calls functions" if calls else "does not call functions")
        return " · ".join(part for part in (f"{name}: {behind}" if behind else name, functions) if part)

    def calls_functions(self) -> bool | None:
        return self.session.model_functions.get(self.currentText())
