"""The Certificates dialog against the embedded sandbox, as an admin uses it: a test CA made and uploaded, a
certificate expiring soon dropped on the dialog and flagged, activation stopped by the lockout guard, and
activation for a project with the typed confirmation, then deactivated."""

from __future__ import annotations

import datetime
import stat
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from app.ui.security.certificates import CertificatesDialog
from app.ui.security.tab import SecurityTab
from tests.gui.reach import child, choose, embedded, profile_of
from tests.gui.test_security import typed


def ca_expiring_in(days: int, folder: Path) -> Path:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Partner CA")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=300))
        .not_valid_after(now + datetime.timedelta(days=days, hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    path = folder / "partner-ca.pem"
    path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return path


def open_dialog(qtbot: QtBot, tab: SecurityTab) -> CertificatesDialog:
    choose(tab, "certificates")
    dialog = tab.dialogs["certificates"]
    assert isinstance(dialog, CertificatesDialog)
    qtbot.waitUntil(lambda: "No certificates" in dialog.status.text())
    return dialog


def drop(dialog: CertificatesDialog, path: Path) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(
        QPointF(20, 20),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    dialog.dropEvent(event)


def test_certificates_made_dropped_guarded_and_activated_for_a_project(
    qtbot: QtBot, tab: SecurityTab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialog = open_dialog(qtbot, tab)
    service = dialog.service
    questions: list[str] = []

    def answer_no(_parent: object, _title: str, text: str, *args: object) -> QMessageBox.StandardButton:
        questions.append(text)
        return QMessageBox.StandardButton.No

    monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.question", answer_no)
    qtbot.mouseClick(child(dialog, QPushButton, "make_test_pki"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 1)
    made = sorted(service.pki_folder.iterdir())
    assert [p.suffix for p in made] == [".key", ".pem", ".pem"]
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in made)  # the client's key among them
    assert questions and "Use this client certificate" in questions[0] and "plain HTTP" in questions[0]
    assert "test CA" in dialog.model.item(0, 1).text() and dialog.model.item(0, 5).text() == "—"
    assert not dialog.warning.isVisible()

    drop(dialog, ca_expiring_in(9, tmp_path))
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 2)
    assert dialog.warning.isVisible() and "“partner-ca” expires in 9 days" in dialog.warning.text()

    store = embedded(tab.session).store.certificates
    org_id = profile_of(tab.session).org_id
    dialog.select(service.certificates[0].id)
    asked = typed(monkeypatch, None)  # the guard's question, cancelled
    qtbot.mouseClick(dialog.activate_button, Qt.MouseButton.LeftButton)
    assert asked and "plain HTTP" in asked[0] and "lock this console out" in asked[0]
    assert store.active_at("organization", org_id) == frozenset()
    assert dialog.status.text() == "Nothing was changed."

    project_id, label = next(iter(service.projects.items()))
    dialog.place.setCurrentIndex(dialog.place.findData(project_id))
    chosen = dialog.selected()
    assert chosen is not None
    asked = typed(monkeypatch, "LOCK ME OUT")
    qtbot.mouseClick(dialog.activate_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: store.active_at("project", project_id) == {chosen})
    qtbot.waitUntil(lambda: any(row.active_in == f"project {label}" for row in dialog.rows))

    dialog.select(chosen)
    qtbot.mouseClick(dialog.deactivate_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: store.active_at("project", project_id) == frozenset())
    qtbot.waitUntil(lambda: all(row.active_in == "—" for row in dialog.rows))
