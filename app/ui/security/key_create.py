"""Making a key: the form (name, where, permissions) and the panel that shows the new value once, with Copy
and "Use in a profile…", which puts it straight into a profile's keychain entry."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.common.secrets import KeychainUnavailable
from app.core.security.key_views import ENDPOINT_GROUPS
from app.services.security.keys import CreatedKey, KeysService


class CreateKeyDialog(QDialog):
    """Name, project (or the organization's admin keys) and permissions of a new key."""

    def __init__(self, service: KeysService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Create a key")
        self.name = QLineEdit(objectName="key_name", placeholderText="what it is for, e.g. CI of repo X")
        self.scope = QComboBox(objectName="key_scope")
        self.scope.addItem("Admin key (organization)", None)
        for project in service.projects:
            self.scope.addItem(f"Project {project.label}", project.id)
        if service.project_id is not None:
            self.scope.setCurrentIndex(max(0, self.scope.findData(service.project_id)))
        self.permissions = QComboBox(objectName="key_permissions")
        self.permissions.addItem("All", "all")
        self.permissions.addItem("Read only", "read_only")
        self.permissions.addItem("Only these endpoints", "endpoints")
        self.groups = [QCheckBox(group, objectName=f"group_{group}") for group in ENDPOINT_GROUPS]
        groups_row = QHBoxLayout()
        for box in self.groups:
            groups_row.addWidget(box)
            box.setEnabled(False)
        self.permissions.currentIndexChanged.connect(self._permissions_chosen)
        form = QFormLayout()
        form.addRow("Name", self.name)
        form.addRow("For", self.scope)
        form.addRow("Permissions", self.permissions)
        form.addRow("", groups_row)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.name.textChanged.connect(lambda _text: self._valid())
        for box in self.groups:
            box.toggled.connect(lambda _on: self._valid())
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self._valid()

    def _permissions_chosen(self) -> None:
        for box in self.groups:
            box.setEnabled(self.permissions.currentData() == "endpoints")
        self._valid()

    def chosen_permissions(self) -> str | list[str]:
        mode = str(self.permissions.currentData())
        return [box.text() for box in self.groups if box.isChecked()] if mode == "endpoints" else mode

    def chosen_project(self) -> str | None:
        data = self.scope.currentData()
        return str(data) if data else None

    def _valid(self) -> None:
        ok = bool(self.name.text().strip()) and self.chosen_permissions() != []
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)


class NewKeyPanel(QWidget):
    """A key just made: its value, shown here once, with Copy and "Use in a profile…"."""

    used = Signal(str)  # where it went, for the status line

    def __init__(self, service: KeysService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.made: CreatedKey | None = None
        self.note = QLabel(objectName="new_key_note", wordWrap=True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.value = QLineEdit(objectName="new_key_value", readOnly=True)
        self.value.setAccessibleName("New key")
        self.copy = QPushButton("Copy", objectName="copy_new_key")
        self.copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.value.text()))
        self.use = QPushButton("Use in a profile…", objectName="use_new_key")
        self.use.clicked.connect(self.use_in_profile)
        self.done = QPushButton("Done", objectName="forget_new_key")
        self.done.clicked.connect(self.forget)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.value, 1)
        for button in (self.copy, self.use, self.done):
            row.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.note)
        layout.addLayout(row)
        self.hide()

    def show_key(self, made: CreatedKey, note: str = "") -> None:
        self.made = made
        self.value.setText(made.value)
        self.value.setCursorPosition(0)  # the key's start (its kind and owner) in sight
        self.note.setText(
            note
            or f"{made.key.name} ({made.key.id}): this is the only time the service shows its value. "
            "Copy it, or put it into a profile, before pressing Done."
        )
        self.show()

    def forget(self) -> None:
        """The value leaves the window (it stays wherever the person put it)."""
        self.made = None
        self.value.clear()
        self.hide()

    def use_in_profile(self) -> None:
        made = self.made
        if made is None:
            return
        profiles = self.service.session.profiles.settings.load().profiles
        current = self.service.session.profile
        names = [profile.name for profile in profiles]
        start = names.index(current.name) if current is not None and current.name in names else 0
        slot = "admin key" if made.key.kind == "admin" else "API key"
        name, ok = QInputDialog.getItem(
            self, "Use in a profile", f"Make it the {slot} of:", names, start, False
        )
        chosen = next((profile for profile in profiles if profile.name == name), None)
        if not ok or chosen is None:
            return
        try:
            where = self.service.use_in_profile(chosen.id, made)
        except KeychainUnavailable as error:
            self.note.setText(str(error))
            return
        self.note.setText(f"The {slot} of “{chosen.name}” is now {made.key.name} ({where}).")
        self.used.emit(chosen.name)
