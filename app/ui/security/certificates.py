"""Certificates (mutual TLS): the organization's CA certificates with where each is active, upload by file
picker or drop, activate and deactivate at the organization or a project, delete, and a test CA made here.

Activating one that this console's own profile sends no client certificate for would lock the console out:
that takes the lockout guard's typed confirmation. It stays open beside the tab, as History does.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.core.security.certificates import EXPIRING_DAYS, CertificateRow
from app.services.security.certificates import CertificatesService
from app.ui.colours import Ink, css, qcolor
from app.ui.screen_fit import fit_to_screen
from app.ui.widgets.flow_layout import flow_row
from app.ui.widgets.tables import STRETCH, size_columns

from .guards import confirm_typed
from .scope_bar import plain_label

COLUMNS = ("Name", "Subject", "Issuer", "Expires", "Fingerprint (SHA-256)", "Active for")
# Subject and issuer share the room left; the others as wide as a sample, their whole text in a tooltip.
SAMPLES = (
    "Partner CA 2026",
    STRETCH,
    STRETCH,
    "2026-12-31 ⚠",
    "AB:CD:EF:01:23:45:67",
    "project Default project",
)
ABOUT = (
    "While a certificate is active for the organization or a project, every request there needs a client "
    "certificate it issued (checked with the IP allowlist, before the key). Uploading does not activate."
)

HTTP_NOTE = (
    "This profile connects over plain HTTP, which carries no client certificate: mutual TLS needs a "
    "service served over HTTPS (a sandbox started with --tls-cert and --tls-key).\n\n"
)


class CertificatesDialog(QDialog):
    def __init__(self, service: CertificatesService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Certificates (mutual TLS)")
        self.setObjectName("certificates_dialog")
        self.setAcceptDrops(True)
        fit_to_screen(self, 1100, 520)
        self.service = service
        self.rows: list[CertificateRow] = []
        self._build()
        service.loaded.connect(self._show)
        service.failed.connect(self._failed)
        service.busy_changed.connect(self._busy)
        service.refresh()

    def _build(self) -> None:
        about = plain_label("certificates_about")
        about.setText(ABOUT)
        self.upload_button = QPushButton("Upload…", objectName="certificate_upload")
        self.upload_button.clicked.connect(self.pick_file)
        self.make_button = QPushButton("Make a test CA and client certificate…", objectName="make_test_pki")
        self.make_button.clicked.connect(self.make_test_pki)
        refresh = QPushButton("Refresh", objectName="certificates_refresh")
        refresh.clicked.connect(self.service.refresh)
        drop = QLabel("or drop a .pem file here")
        drop.setStyleSheet(css(Ink.MUTED))
        self.warning = plain_label("certificates_warning")
        self.warning.setStyleSheet(css(Ink.CAUTION))
        self.warning.hide()
        self.status = plain_label("certificates_status")

        self.model = QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(COLUMNS)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView(objectName="certificates_table")
        self.table.setAccessibleName("Certificates")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setTabKeyNavigation(False)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        size_columns(self.table, SAMPLES)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._enable())

        self.place = QComboBox(objectName="certificate_place")
        self.place.setAccessibleName("Where")
        self.place.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.activate_button = QPushButton("Activate", objectName="certificate_activate")
        self.activate_button.clicked.connect(lambda: self.set_active(True))
        self.deactivate_button = QPushButton("Deactivate", objectName="certificate_deactivate")
        self.deactivate_button.clicked.connect(lambda: self.set_active(False))
        self.delete_button = QPushButton("Delete", objectName="certificate_delete")
        self.delete_button.clicked.connect(self.delete_selected)

        layout = QVBoxLayout(self)
        layout.addWidget(about)
        layout.addWidget(flow_row(self.upload_button, drop, self.make_button, refresh))
        layout.addWidget(self.warning)
        layout.addWidget(self.table, 1)
        actions = QHBoxLayout()
        actions.addWidget(QLabel("For"))
        actions.addWidget(self.place)
        for button in (self.activate_button, self.deactivate_button):
            actions.addWidget(button)
        actions.addStretch(1)
        actions.addWidget(self.delete_button)
        layout.addLayout(actions)
        layout.addWidget(self.status)
        self._enable()

    # -- showing ----------------------------------------------------------------------------------

    def _show(self) -> None:
        selected = self.selected()
        self.rows = self.service.rows()
        self.model.setRowCount(0)
        for row in self.rows:
            cells = [row.name, row.subject, row.issuer, row.expires, row.fingerprint, row.active_in]
            items = [QStandardItem(text) for text in cells]
            for item in items:
                item.setData(row.id, Qt.ItemDataRole.UserRole)
                item.setToolTip(item.text())
            if row.warning:
                items[3].setText(f"{row.expires} ⚠")
                items[3].setToolTip(row.warning)
                items[3].setForeground(qcolor(Ink.CAUTION))
            self.model.appendRow(items)
        self._show_places()
        soon = [f"“{row.name or row.subject}” {row.warning}" for row in self.rows if row.warning]
        self.warning.setVisible(bool(soon))
        self.warning.setText(f"⚠ Within {EXPIRING_DAYS} days: " + "; ".join(soon) + ". Upload a successor.")
        count = len(self.rows)
        self.status.setText(
            f"{count} certificate{'s' if count != 1 else ''}." if count else "No certificates yet."
        )
        if selected is not None:
            self.select(selected)
        self._enable()

    def _show_places(self) -> None:
        chosen = self.place.currentData()
        self.place.clear()
        self.place.addItem("Organization", None)
        for project_id, label in self.service.projects.items():
            self.place.addItem(f"Project: {label}", project_id)
        self.place.setCurrentIndex(max(0, self.place.findData(chosen)))

    def _failed(self, text: str) -> None:
        self.status.setText(f"⚠ {text}")

    def _busy(self, busy: bool) -> None:
        for button in (self.upload_button, self.activate_button, self.deactivate_button, self.delete_button):
            button.setEnabled(not busy)
        if not busy:
            self._enable()

    def _enable(self) -> None:
        chosen = self.selected() is not None and not self.service.busy
        for button in (self.activate_button, self.deactivate_button, self.delete_button):
            button.setEnabled(chosen)

    def selected(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        return str(rows[0].data(Qt.ItemDataRole.UserRole)) if rows else None

    def select(self, certificate_id: str) -> None:
        for row in range(self.proxy.rowCount()):
            if self.proxy.index(row, 0).data(Qt.ItemDataRole.UserRole) == certificate_id:
                self.table.selectRow(row)
                return

    # -- acting -----------------------------------------------------------------------------------

    def pick_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Upload a CA certificate",
            str(Path.home()),
            "PEM certificates (*.pem *.crt *.cer);;All files (*)",
        )
        if path:
            self.service.upload(Path(path))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.service.upload(Path(url.toLocalFile()))
        event.acceptProposedAction()

    def set_active(self, active: bool) -> None:
        certificate_id = self.selected()
        if certificate_id is None:
            return
        project_id = self.place.currentData()
        if active:
            reason = self.service.lockout_reason(certificate_id, project_id)
            if reason and not confirm_typed(
                self,
                "You would lock yourself out",
                f"{reason}\n\nSet the profile's client certificate first (File > Profiles), or "
                "deactivate it from a client that has one.",
                "LOCK ME OUT",
            ):
                self.status.setText("Nothing was changed.")
                return
        self.service.set_active(certificate_id, active, project_id)

    def delete_selected(self) -> None:
        certificate_id = self.selected()
        if certificate_id is None:
            return
        answer = QMessageBox.question(
            self, "Delete the certificate?", f"Delete {certificate_id}? Uploading it again gives it a new id."
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.service.delete(certificate_id)

    def make_test_pki(self) -> None:
        try:
            made = self.service.make_trial_pki()
        except OSError as error:
            self.status.setText(f"⚠ The test certificates could not be written: {error}")
            return
        self.service.upload(made.ca_cert, "Test CA")
        answer = QMessageBox.question(
            self,
            "Use the test client certificate?",
            f"Made a test CA ({made.ca_cert.name}, uploaded, not active) and a client certificate it issued:\n"
            f"{made.client_cert}\n{made.client_key}\n\n{HTTP_NOTE if self.service.plain_http else ''}"
            "Use this client certificate in the current profile?",
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.service.use_in_profile(made)
