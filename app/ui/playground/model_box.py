"""The Playground's model box: the profile's models, each with the real model behind its name, and the one
to go on with (the last launch's, or a reopened conversation's) kept until the list offers it."""

from __future__ import annotations

from PySide6.QtCore import Qt
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
        """Each name's real model (the server's `owned_by`: the local sandbox names the weights file)."""
        details = self.session.model_details
        for row in range(self.count()):
            name = self.itemText(row)
            behind = details.get(name, "")
            self.setItemData(row, f"{name}: {behind}" if behind else name, Qt.ItemDataRole.ToolTipRole)
        current = self.currentText()
        self.setToolTip(f"{current}: {details[current]}" if details.get(current) else "")
