"""The guided key rotation: pick the quiet period and start (the successor is made and, when this console
used the old key, put into its profile at once), hand the shown value to the others, watch the old key's
last use, and revoke it once it has been quiet for the period. Closing the window keeps the progress."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.services.security.key_rotation import KeyRotationError, KeyRotationService, KeyStep
from app.services.security.keys import ApiKey, CreatedKey
from app.ui.screen_fit import fit_to_screen

from .key_create import NewKeyPanel
from .scope_bar import plain_label

EXPLANATION = (
    "A rotation proves the new key is in use before the old one goes: a successor is made (same name and "
    "permissions) and this console switches to it at once if it used the old key; give the new value to "
    "whoever else uses the old key. The old key's last use is then watched: once it has been quiet for "
    "the period below, it can be revoked. Progress is kept: close this window and come back later."
)


class KeyRotationDialog(QDialog):
    def __init__(
        self, service: KeyRotationService, old: ApiKey | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Rotate a key")
        self.setObjectName("key_rotation_dialog")
        fit_to_screen(self, 620, 360)
        self.service = service
        self.old = old
        self.quiet = QSpinBox(objectName="quiet_minutes", minimum=0, maximum=60 * 24 * 30, value=60)
        self.quiet.setSuffix(" minutes")
        self.quiet.setAccessibleName("Quiet period")
        self.start_button = QPushButton("Create the successor", objectName="start_key_rotation")
        self.start_button.clicked.connect(self.start)
        self.check_button = QPushButton("Check now", objectName="check_old_key")
        self.check_button.clicked.connect(service.check)
        self.revoke_button = QPushButton("Revoke the old key", objectName="revoke_old_key")
        self.revoke_button.clicked.connect(self.revoke_old)
        self.cancel_button = QPushButton("Cancel the rotation", objectName="cancel_key_rotation")
        self.cancel_button.clicked.connect(self.cancel)
        self.step = plain_label("key_rotation_step")
        self.new_key = NewKeyPanel(service.keys)
        form = QFormLayout()
        form.addRow(
            "Key", QLabel(f"{old.name or '(no name)'} ({old.redacted_value})" if old else "(none selected)")
        )
        form.addRow("Revoke after it is quiet for", self.quiet)
        buttons = QHBoxLayout()
        for button in (self.start_button, self.check_button, self.revoke_button, self.cancel_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(EXPLANATION, wordWrap=True))
        layout.addLayout(form)
        layout.addWidget(self.step)
        layout.addWidget(self.new_key)
        layout.addLayout(buttons)
        layout.addStretch(1)
        service.changed.connect(self._show)
        service.successor_made.connect(self._successor)
        service.failed.connect(self.step.setText)
        service.keys.failed.connect(self.step.setText)
        self._show()

    def _show(self) -> None:
        plan = self.service.plan
        waiting = plan is not None and plan.step != KeyStep.DONE
        self.start_button.setEnabled(not waiting and self.old is not None)
        self.quiet.setEnabled(not waiting)
        self.check_button.setEnabled(waiting)
        self.revoke_button.setEnabled(plan is not None and plan.step == KeyStep.QUIET)
        self.cancel_button.setEnabled(plan is not None)
        if plan is None:
            self.step.setText("Step 1 of 3: create the successor.")
            return
        switched = " This console uses the successor." if plan.switched_console else ""
        number = {KeyStep.CREATED: 2, KeyStep.QUIET: 3, KeyStep.DONE: 3}[plan.step]
        head = "Done" if plan.step == KeyStep.DONE else f"Step {number} of 3"
        self.step.setText(f"{head}: {plan.old_name} → {plan.new_id}.{switched} {plan.status}")

    def _successor(self, made: CreatedKey) -> None:
        self.new_key.show_key(
            made,
            f"The successor {made.key.name} ({made.key.id}): its value is shown this once. Copy it for "
            "whoever else uses the old key.",
        )

    def start(self) -> None:
        if self.old is None:
            return
        try:
            self.service.start(self.old, self.quiet.value() * 60)
        except KeyRotationError as error:
            self.step.setText(str(error))

    def revoke_old(self) -> None:
        plan = self.service.plan
        if plan is None:
            return
        answer = QMessageBox.question(
            self, "Revoke the old key", f"Revoke {plan.old_name} ({plan.old_id}) now?"
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        try:
            self.service.revoke_old()
        except KeyRotationError as error:
            self.step.setText(str(error))

    def cancel(self) -> None:
        self.service.cancel()
        self.new_key.forget()
