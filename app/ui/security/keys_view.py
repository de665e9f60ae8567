"""The Keys window: the organization's admin keys or a project's keys in a sortable table (name, redacted
value, owner, created, last used), a view of the keys unused for N days, and Create, Revoke, Rotate and
"This key leaked". Revoking the key this console uses asks for the typed word the lockout guard asks."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.core.security.key_views import unused_for
from app.models.keys import CREATED, NAME, KeysModel
from app.services.security.key_rotation import KeyRotationService, LeakReport
from app.services.security.keys import ApiKey, CreatedKey, KeysService
from app.ui.screen_fit import fit_to_screen
from app.ui.widgets.flow_layout import flow_row

from .guards import confirm_typed
from .key_create import CreateKeyDialog, NewKeyPanel
from .key_rotation import KeyRotationDialog
from .scope_bar import plain_label

LOCK_WORD = "LOCK ME OUT"  # the lockout guard's typed word: revoking this console's own key is as final


class KeysDialog(QDialog):
    def __init__(
        self, service: KeysService, rotation: KeyRotationService, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keys")
        fit_to_screen(self, 900, 480)
        self.service = service
        self.rotation = rotation
        self.model = KeysModel()
        self.rotation_dialog: KeyRotationDialog | None = None
        self._build()
        service.loaded.connect(self._show)
        service.failed.connect(self.status.setText)
        service.created.connect(self._created)
        service.busy.connect(self._busy)
        rotation.leak_handled.connect(self._leak_handled)
        rotation.changed.connect(self._show_rotation)
        self._show_rotation()
        service.refresh()
        rotation.check()  # a rotation kept from an earlier run: its old key as it is now

    def _build(self) -> None:
        self.scope = QComboBox(objectName="keys_scope")
        self.scope.setAccessibleName("Keys of")
        self.scope.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.scope.activated.connect(lambda _i: self.service.set_scope(self.scope.currentData() or None))
        self.unused = QCheckBox("Only keys unused for", objectName="keys_unused")
        self.days = QSpinBox(objectName="keys_unused_days", minimum=1, maximum=3650, value=30, suffix=" days")
        self.unused.toggled.connect(lambda _on: self._show())
        self.days.valueChanged.connect(lambda _days: self._show() if self.unused.isChecked() else None)
        refresh = QPushButton("Refresh", objectName="keys_refresh")
        refresh.clicked.connect(self.service.refresh)
        top = flow_row(QLabel("Keys of"), self.scope, self.unused, self.days, refresh)
        self.table = QTableView(objectName="keys_table")
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(CREATED, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)  # the name takes the room left
        self.buttons: dict[str, QPushButton] = {}
        for label, name, slot in (
            ("Create…", "create_key", self.create_key),
            ("Revoke…", "revoke_key", self.revoke),
            ("Rotate…", "rotate_key", self.rotate),
            ("This key leaked…", "leaked_key", self.leaked),
        ):
            button = QPushButton(label, objectName=name)
            button.clicked.connect(slot)
            self.buttons[name] = button
        actions = flow_row(*self.buttons.values())
        self.new_key = NewKeyPanel(self.service)
        self.new_key.used.connect(lambda _name: self.service.refresh())
        self.rotation_banner = plain_label("key_rotation_banner")
        self.status = plain_label("keys_status")
        layout = QVBoxLayout(self)
        layout.addWidget(top)
        layout.addWidget(self.rotation_banner)
        layout.addWidget(self.table, 1)
        layout.addWidget(actions)
        layout.addWidget(self.new_key)
        layout.addWidget(self.status)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._enable())
        self._enable()

    # -- showing ----------------------------------------------------------------------------------

    def _show(self) -> None:
        service = self.service
        self.scope.blockSignals(True)
        self.scope.clear()
        self.scope.addItem(service.scope_label(None), None)
        for project in service.projects:
            self.scope.addItem(service.scope_label(project.id), project.id)
        self.scope.setCurrentIndex(max(0, self.scope.findData(service.project_id)))
        self.scope.blockSignals(False)
        keys = list(service.keys)
        if self.unused.isChecked():
            keys = unused_for(keys, self.days.value(), time.time())
        self.model.set_keys(keys, {key.id for key in keys if service.in_use(key)})
        total = len(service.keys)
        noun = "key" if total == 1 else "keys"
        shown = (
            f"{len(keys)} of {total} {noun} unused for {self.days.value()} days"
            if self.unused.isChecked()
            else f"{total} {noun}"
        )
        self.status.setText(f"{shown}.")
        self._enable()

    def _busy(self, busy: bool) -> None:
        if busy:
            self.status.setText("Working…")
        elif self.status.text() == "Working…":
            self._show()

    def _show_rotation(self) -> None:
        plan = self.rotation.plan
        self.rotation_banner.setVisible(plan is not None)
        if plan is not None:
            self.rotation_banner.setText(f"Key rotation of {plan.old_name}: {plan.step_text}. {plan.status}")

    def selected(self) -> ApiKey | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.key_at(rows[0].row()) if rows else None

    def _enable(self) -> None:
        chosen = self.selected() is not None
        for name in ("revoke_key", "rotate_key", "leaked_key"):
            self.buttons[name].setEnabled(chosen)

    def select(self, key_id: str) -> None:
        row = next((at for at, key in enumerate(self.model.keys) if key.id == key_id), -1)
        if row >= 0:
            self.table.selectRow(row)

    # -- actions ----------------------------------------------------------------------------------

    def create_key(self) -> None:
        form = CreateKeyDialog(self.service, self)
        if form.exec() == QDialog.DialogCode.Accepted:
            self.service.create(form.name.text().strip(), form.chosen_project(), form.chosen_permissions())

    def _created(self, made: CreatedKey) -> None:
        self.new_key.show_key(made)

    def _guarded(self, key: ApiKey, what: str) -> bool:
        """Yes/No for any key; the typed word when it is the key this console uses."""
        slot = self.service.in_use(key)
        if slot is None:
            answer = QMessageBox.question(self, what, f"{what}: {key.name} ({key.redacted_value})?")
            return answer == QMessageBox.StandardButton.Yes
        kind = "admin key" if slot == "admin_key" else "API key"
        return confirm_typed(
            self,
            "This console uses this key",
            f"{key.name} ({key.redacted_value}) is the {kind} this console uses. Revoked, it is refused from "
            "the next request on: this console is locked out until another key is put into its profile.",
            LOCK_WORD,
        )

    def revoke(self) -> None:
        key = self.selected()
        if key is not None and self._guarded(key, "Revoke the key"):
            self.service.revoke(key)
        elif key is not None:
            self.status.setText("Nothing was changed.")

    def rotate(self) -> None:
        dialog = KeyRotationDialog(self.rotation, self.selected(), self)
        self.rotation_dialog = dialog
        dialog.show()

    def leaked(self) -> None:
        key = self.selected()
        if key is None:
            return
        switch = " This console switches to the new key at once." if self.service.in_use(key) else ""
        answer = QMessageBox.warning(
            self,
            "This key leaked",
            f"Make a new key like {key.name}, then revoke {key.name} ({key.redacted_value}) at once.{switch} "
            "Whoever else uses it is refused from the next request on, until given the new key.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.rotation.leaked(key)

    def _leak_handled(self, report: LeakReport) -> None:
        shown_once = (
            "The new key's value, below, is shown this once: copy it for whoever else used the old one."
        )
        self.new_key.show_key(report.successor, f"{report.text(time.time())}\n{shown_once}")
