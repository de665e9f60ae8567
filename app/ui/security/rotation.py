"""The guided rotation: a dialog that plans it, then walks the three steps, and can be closed at any time."""

from __future__ import annotations

import html
from textwrap import shorten
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.netrules import EntryError, parse_entry
from app.services.security.rotation import ListScope, RotationError, RotationService, Step
from app.ui.colours import Ink, css
from app.ui.screen_fit import fit_to_screen

if TYPE_CHECKING:
    from app.services.security.allowlist import Entry

STEPS = (
    (Step.PLANNED, "Add the new entry"),
    (Step.ADDED, "Confirm that requests succeed from the new IP"),
    (Step.CONFIRMED, "Remove the old entry"),
)
EXPLANATION = (
    "Rotation as the service recommends: the new entry is added first, a probe from the new address must "
    "succeed and be seen inside the new entry, and only then is the old entry removed. Progress is saved: "
    "close this window, move to the new network, open the console again and go on."
)


class RotationDialog(QDialog):
    def __init__(
        self,
        service: RotationService,
        entries: list[Entry],
        scope: ListScope,
        selected: Entry | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Rotate an allowlisted IP")
        self.setObjectName("rotation_dialog")
        fit_to_screen(self, 620, 380)
        self.service = service
        self.entries = entries
        self.scope = scope
        intro = QLabel(EXPLANATION, wordWrap=True)

        self.planning = QWidget(objectName="planning")
        self.old = QComboBox(objectName="old_entry")
        # A 200-character description must not make the dialog wider than the screen: the shown label is
        # cut at a word, the whole one is the item's tooltip.
        self.old.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.old.setMinimumContentsLength(40)
        for row, entry in enumerate(entries):
            label = entry.cidr + (f" — {entry.description}" if entry.description else "")
            self.old.addItem(shorten(label, 70, placeholder="…"), entry)
            self.old.setItemData(row, label, Qt.ItemDataRole.ToolTipRole)
        if selected is not None:
            self.old.setCurrentIndex(
                max(0, next((i for i, e in enumerate(entries) if e.id == selected.id), 0))
            )
        self.new = QLineEdit(objectName="new_cidr", placeholderText="the new address or range")
        self.new.textChanged.connect(self._validate)
        self.description = QLineEdit(
            objectName="new_description", placeholderText="(the old entry's description)"
        )
        self.new_verdict = QLabel(objectName="new_verdict", wordWrap=True, textFormat=Qt.TextFormat.PlainText)
        self.start_button = QPushButton("Start: add the new entry", objectName="start", enabled=False)
        self.start_button.clicked.connect(self._start)
        form = QFormLayout(self.planning)
        form.addRow(f"Old entry ({scope.label})", self.old)
        form.addRow("New entry", self.new)
        form.addRow("", self.new_verdict)
        form.addRow("Description", self.description)
        form.addRow("", self.start_button)

        self.progress = QWidget(objectName="progress")
        self.summary = QLabel(objectName="summary", wordWrap=True)
        self.step_labels = [QLabel(objectName=f"step_{i + 1}") for i in range(len(STEPS))]
        self.probe_text = QLabel(objectName="probe_result", wordWrap=True)
        self.probe_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.probe_text.setTextFormat(Qt.TextFormat.PlainText)  # it quotes the address the server saw
        self.add_button = QPushButton("Add the new entry", objectName="add_new")
        self._step_focused = False  # a step button had the focus when its request began
        self.probe_button = QPushButton("Probe from here", objectName="probe")
        self.remove_button = QPushButton("Remove the old entry", objectName="remove_old")
        self.cancel_button = QPushButton("Cancel rotation…", objectName="cancel_rotation")
        self.add_button.clicked.connect(service.add_new)
        self.probe_button.clicked.connect(service.probe)
        self.remove_button.clicked.connect(service.remove_old)
        self.cancel_button.clicked.connect(self._cancel)
        progress_layout = QVBoxLayout(self.progress)
        progress_layout.addWidget(self.summary)
        for label in self.step_labels:
            progress_layout.addWidget(label)
        progress_layout.addWidget(self.probe_text)
        buttons_row = QHBoxLayout()
        for button in (self.add_button, self.probe_button, self.remove_button):
            buttons_row.addWidget(button)
        buttons_row.addStretch(1)
        buttons_row.addWidget(self.cancel_button)
        progress_layout.addLayout(buttons_row)

        self.error = QLabel(objectName="rotation_error", wordWrap=True, textFormat=Qt.TextFormat.PlainText)
        self.error.setStyleSheet(css(Ink.BAD))
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.planning)
        layout.addWidget(self.progress)
        layout.addWidget(self.error)
        layout.addStretch(1)
        layout.addWidget(close)

        service.changed.connect(self.refresh)
        service.failed.connect(self.error.setText)
        service.busy.connect(self._busy)
        self.refresh()

    def _validate(self) -> None:
        text = self.new.text().strip()
        try:
            network = parse_entry(text) if text else None
        except EntryError as error:
            self.new_verdict.setText(f"✗ {error.message}")
            self.start_button.setEnabled(False)
            return
        self.new_verdict.setText(f"✓ {network}" if network else "")
        self.start_button.setEnabled(network is not None and self.old.count() > 0)

    def _start(self) -> None:
        self.error.clear()
        try:
            self.service.start(self.scope, self.old.currentData(), self.new.text(), self.description.text())
        except RotationError as error:
            self.error.setText(str(error))

    def _cancel(self) -> None:
        plan = self.service.plan
        if plan is None:
            return
        kept = (
            f" {plan.new_cidr} stays on the list; remove it yourself if you no longer want it."
            if plan.new_id
            else ""
        )
        answer = QMessageBox.question(
            self,
            "Cancel the rotation",
            f"Stop rotating {plan.summary()}? Nothing is removed: {plan.old_cidr} stays.{kept}",
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.service.cancel()

    def _busy(self, busy: bool) -> None:
        steps = (self.add_button, self.probe_button, self.remove_button)
        for button in (*steps, self.start_button):
            button.setProperty("busy", busy)
        if busy:
            # A step pressed from the keyboard keeps the focus in the steps: disabled, the focused button
            # would hand it to the next one on the chain, Cancel rotation…, one Space away from a cancel.
            self._step_focused = any(button.hasFocus() for button in steps)
            if self._step_focused:
                self.progress.setFocus()
            for button in steps:
                button.setEnabled(False)
        else:
            self.refresh()
            if self._step_focused:  # on to the step now open (Remove after a probe), else where it was
                self._step_focused = False
                next((button for button in steps if button.isEnabled()), self.progress).setFocus(
                    Qt.FocusReason.OtherFocusReason
                )

    def refresh(self) -> None:
        plan = self.service.plan
        self.planning.setVisible(plan is None)
        self.progress.setVisible(plan is not None)
        if plan is None:
            self._validate()
            return
        self.summary.setText(
            f"<b>Rotating {html.escape(plan.summary())}</b>" + (" — done." if plan.step == Step.DONE else "")
        )
        reached = plan.step_number - 1
        for index, (label, (_step, text)) in enumerate(zip(self.step_labels, STEPS, strict=True)):
            mark = "✓" if index < reached else "→" if index == reached else "·"
            label.setText(f"{mark} {index + 1}. {text}")
        self.probe_text.setText(plan.last_probe)
        self.add_button.setEnabled(plan.step == Step.PLANNED)
        self.probe_button.setEnabled(plan.step == Step.ADDED)
        self.remove_button.setEnabled(plan.step == Step.CONFIRMED)  # never before the probe confirmed
        self.cancel_button.setVisible(plan.step != Step.DONE)
        if plan.step == Step.DONE:
            self.error.clear()

    def closeEvent(self, event: Any) -> None:
        self.service.finish()  # a finished plan is forgotten; one in progress stays saved
        super().closeEvent(event)
