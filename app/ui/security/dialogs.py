"""The dialogs the Security tab opens: rotation, import and export, history, refused, simplify, keys,
certificates, the echo settings.

Rotation, import, history and refused stay open beside the tab, one of each at a time: opening one again replaces it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QDialog, QFileDialog, QWidget

from app.common.wording import counted
from app.services.security.allowlist import TransferError
from app.services.security.rotation import ListScope
from app.services.security.service import SecurityServices
from app.services.session.session import ConsoleSession

from .certificates import CertificatesDialog
from .echo import EchoSettingsDialog
from .entries_panel import EntriesPanel
from .history import HistoryDialog
from .keys_view import KeysDialog
from .policy_import_view import PolicyImportDialog
from .refused_view import RefusedDialog
from .rotation import RotationDialog
from .simplify_view import SimplifyDialog
from .transfer import ImportDialog


class TabDialogs(QObject):
    """Opens the Security tab's dialogs over `owner`; `dialogs` holds the open ones by name."""

    def __init__(
        self,
        owner: QWidget,
        session: ConsoleSession,
        services: SecurityServices,
        entries: EntriesPanel,
    ) -> None:
        super().__init__(owner)
        self.owner = owner
        self.session = session
        self.service = services.allowlist
        self.rotation = services.rotation
        self.history = services.history
        self.public_ip = services.public_ip
        self.audit = services.audit
        self.services = services
        self.certificates = services.certificates
        self.refused = services.refused
        self.tools = services.tools
        self.policy_import = services.policy_import
        self.entries = entries  # the selected entry is the one a rotation starts from
        self.dialogs: dict[str, QDialog] = {}

    def open(self, name: str) -> None:
        """One of the scope bar's actions: "rotate", "import", "export", "history" or "certificates"."""
        {
            "rotate": self.open_rotation,
            "import": self.import_file,
            "export": self.export_file,
            "history": self.open_history,
            "keys": self.open_keys,
            "certificates": self.open_certificates,
            "refused": self.open_refused,
            "simplify": self.open_simplify,
        }[name]()

    def open_echo_settings(self) -> None:
        dialog = EchoSettingsDialog(self.public_ip.echo, self.owner)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.public_ip.save_echo(dialog.result_settings())

    def open_rotation(self) -> None:
        available = self.service.available
        if not available.ok:
            self.session.bus.error(available.reason)
            return
        selected = self.entries.selected_entries()
        dialog = RotationDialog(
            self.rotation,
            list(self.service.entries),
            ListScope(self.service.project_id, self.service.scope_label),
            selected[0] if selected else None,
            self.owner,
        )
        self._show_dialog("rotation", dialog)

    def _show_dialog(self, name: str, dialog: QDialog) -> None:
        old = self.dialogs.pop(name, None)
        if old is not None:
            old.close()
            old.deleteLater()
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.destroyed.connect(
            lambda *_: self.dialogs.pop(name, None) if self.dialogs.get(name) is dialog else None
        )
        self.dialogs[name] = dialog
        dialog.show()

    def import_file(self) -> None:
        if self.service.data is None:
            self.session.bus.error("Security: the list is not loaded yet; nothing to import into.")
            return
        path, _ = QFileDialog.getOpenFileName(
            self.owner,
            "Import allowlist entries",
            str(self.service.file_folder()),
            "Allowlist files (*.csv *.json *.txt *.toml);;All files (*)",
        )
        if path:
            self.service.remember_folder(Path(path).parent)
            if path.lower().endswith(".toml"):  # a policy file: the list as it should be, not lines to add
                self.open_policy_import(Path(path))
            else:
                self.open_import(Path(path))

    def open_policy_import(self, path: Path) -> PolicyImportDialog | None:
        """The plan of a policy file for the shown list, with what it would cut off; nothing is sent yet."""
        try:
            plan = self.policy_import.plan(path)
        except TransferError as error:
            self.session.bus.error(str(error))
            return None
        dialog = PolicyImportDialog(self.policy_import, self.tools, plan, path.name, self.owner)
        self._show_dialog("policy_import", dialog)
        return dialog

    def open_import(self, path: Path) -> ImportDialog | None:
        """Read the file and show the preview; nothing is sent until the person presses Import."""
        try:
            plan = self.service.plan_file_import(path)
        except TransferError as error:
            self.session.bus.error(str(error))
            return None
        dialog = ImportDialog(self.service, plan, path.name, self.owner)
        self._show_dialog("import", dialog)
        return dialog

    def export_file(self) -> None:
        if self.service.data is None:
            self.session.bus.error("Security: the list is not loaded yet; nothing to export.")
            return
        default = "allowlist-" + (self.service.project_id or "organization")
        path, _ = QFileDialog.getSaveFileName(
            self.owner,
            "Export allowlist entries",
            str(self.service.file_folder() / (default + ".csv")),
            "CSV (*.csv);;JSON (*.json)",
        )
        if path:
            self.service.remember_folder(Path(path).parent)
            self.export_to(Path(path))

    def export_to(self, path: Path) -> None:
        try:
            count = self.service.export_to(path)
        except TransferError as error:
            self.session.bus.error(str(error))
            return
        self.session.bus.info(f"Exported {counted(count, 'entry', 'entries')} to {path.name}.")

    def open_keys(self) -> None:
        """The Keys window: admin keys and each project's keys (keys_view.py)."""
        self._show_dialog("keys", KeysDialog(self.services.keys, self.services.key_rotation, self.owner))

    def open_refused(self) -> None:
        self._show_dialog("refused", RefusedDialog(self.refused, self.owner))

    def open_simplify(self) -> None:
        if self.service.data is None:
            self.session.bus.error("Security: the list is not loaded yet; nothing to simplify.")
            return
        plan = self.tools.simplification()
        dialog = SimplifyDialog(plan, self.service.entry_limit(), self.service.scope_label, self.owner)
        dialog.accepted.connect(lambda: self.tools.apply_simplification(plan))
        self._show_dialog("simplify", dialog)

    def open_history(self) -> None:
        self._show_dialog("history", HistoryDialog(self.history, self.audit, self.owner))

    def open_certificates(self) -> None:
        self._show_dialog("certificates", CertificatesDialog(self.certificates, self.owner))
