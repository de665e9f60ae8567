"""The Security tab: the allowlists of the organization and each project, your IP, checks, no lockout.

It lays out the panels and connects them to the services it is given; the panels only draw, the services
fetch, decide (with netrules' policy) and read and write files and settings.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QDialog, QFileDialog, QHBoxLayout, QMessageBox, QVBoxLayout, QWidget

from app.models.entries import EntriesModel
from app.netrules import parse_address
from app.services.allowlist import Change, TransferError
from app.services.allowlist_checks import Rule
from app.services.rotation import ListScope, Step
from app.services.security import SecurityServices
from app.services.session import ConsoleSession

from .add_form import AddForm
from .check_panel import CheckIpPanel
from .echo import EchoSettingsDialog
from .entries_panel import EntriesPanel
from .guards import ADVICE, BlockedBanner, RecoveryPanel, confirm_typed, locked_out_help
from .history import HistoryDialog
from .rotation import STEPS, RotationDialog
from .scope_bar import ScopeBar, plain_label
from .transfer import ImportDialog
from .your_ip import YourIpPanel


class SecurityTab(QWidget):
    def __init__(
        self, session: ConsoleSession, services: SecurityServices, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.history = services.history
        self.service = services.allowlist
        self.rotation = services.rotation
        self.public_ip = services.public_ip
        self.model = EntriesModel()
        self.dialogs: dict[str, QDialog] = {}
        self._echo_due = False
        self._build()
        self._connect()
        if session.client is not None:  # the profile was activated before the tab was made
            self._client_changed()

    def _build(self) -> None:
        self.need = plain_label("need")
        self.scope_bar = ScopeBar()
        self.your_ip = YourIpPanel()
        self.entries = EntriesPanel(self.model)
        self.add_form = AddForm()
        self.check = CheckIpPanel()
        self.recovery = RecoveryPanel()
        self.blocked_banner = BlockedBanner()
        guidance = plain_label("guidance")
        guidance.setText(ADVICE)
        self._layout = layout = QVBoxLayout(self)
        layout.addWidget(self.need)
        layout.addWidget(self.blocked_banner)
        layout.addWidget(self.scope_bar)
        layout.addWidget(self.your_ip)
        layout.addWidget(self.entries, 1)
        self.waiting = plain_label("allow_waiting")  # an address to allow after a 403 in the Playground
        self.waiting.setStyleSheet("color: #0969da;")
        self.waiting.hide()
        layout.addWidget(self.waiting)
        forms = QHBoxLayout()  # side by side: the table keeps its rows in a small window
        forms.addWidget(self.add_form, 3)
        forms.addWidget(self.check, 2)
        layout.addLayout(forms)
        layout.addWidget(self.recovery)
        layout.addWidget(guidance)

    def _connect(self) -> None:
        bar, service = self.scope_bar, self.service
        bar.scope_chosen.connect(service.set_scope)
        bar.switch_clicked.connect(self._switch_clicked)
        bar.refresh_clicked.connect(service.refresh)
        bar.resume_clicked.connect(self.open_rotation)
        bar.action.connect(self._action)
        self.your_ip.add_mine_clicked.connect(lambda: self.prefill_add(service.source_ip or ""))
        self.your_ip.look_up_clicked.connect(self.public_ip.lookup)
        self.your_ip.echo_settings_clicked.connect(self.open_echo_settings)
        self.entries.remove_clicked.connect(self.remove_selected)
        self.add_form.typed.connect(self._validate)
        self.add_form.add_clicked.connect(self.add_entry)
        self.check.typed.connect(lambda text: self.check.show_check(service.check_ip(text)))
        self.rotation.changed.connect(self._show_rotation)
        self.rotation.changed.connect(service.refresh)
        self.public_ip.looked_up.connect(lambda _text: self._show_public_ip())
        service.loaded.connect(self._show)
        service.failed.connect(lambda text: self.session.bus.error(f"Security: {text}"))
        service.guard.connect(self._guarded)
        service.blocked_changed.connect(self._show_blocked)
        service.changed_elsewhere.connect(
            lambda text: QMessageBox.information(self, "Changed elsewhere", text)
        )
        self.session.client_changed.connect(self._client_changed)
        # "Your IP" and "Covers you" follow a new simulated source address at once, not at the next Refresh.
        self.session.simulated_ip_changed.connect(lambda _ip: self.service.refresh())

    # -- state ------------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.service.periodic.start()

    def hideEvent(self, event: QHideEvent) -> None:
        # a hidden tab (another tab, a minimised or closed window) polls nobody
        self.service.periodic.stop()
        super().hideEvent(event)

    def _client_changed(self) -> None:
        self.recovery.show_command(self.session.recovery_command())
        available = self.service.available
        self.need.setText(available.reason)
        self.need.setVisible(not available.ok)
        self.service.reset()
        self._show_blocked()
        self.model.set_entries([], None)
        self._echo_due = True
        self.your_ip.clear_public_ip()
        self._show_rotation()
        self.service.refresh()

    def _show_blocked(self) -> None:
        """While the admin key is refused, the banner says so with the recovery panel in it; then it goes."""
        blocked_at = self.service.blocked_at
        banner, recovery = self.blocked_banner, self.recovery
        home = self._layout if blocked_at is None else banner.box
        if recovery.parentWidget() is not (self if blocked_at is None else banner):
            (banner.box if blocked_at is None else self._layout).removeWidget(recovery)
            if blocked_at is None:
                home.insertWidget(self._layout.count() - 1, recovery)  # back above the guidance
            else:
                home.addWidget(recovery)
            recovery.show()
        recovery.help.setVisible(blocked_at is None)  # in the banner, the banner's words say it
        if blocked_at is None:
            banner.hide()
            return
        banner.show_blocked(blocked_at)
        # What the 403 itself tells: the Admin API answers to the organization's list alone, so it is on.
        service = self.service
        if service.project_id is None:
            self.scope_bar.show_switch(True)
            self.scope_bar.show_rule(Rule(False, True))
        if service.data is None:  # refused from the first read
            self.scope_bar.show_scopes([(p.id, p.label) for p in service.projects], service.project_id)
            self.your_ip.show_source_ip(blocked_at or None)
            self._show_public_ip()

    def _show(self) -> None:
        service = self.service
        self.scope_bar.show_scopes([(p.id, p.label) for p in service.projects], service.project_id)
        self.scope_bar.show_switch(service.data is not None and service.data.enabled)
        source_ip = service.source_ip
        address = parse_address(source_ip) if source_ip else None
        self.model.set_entries(service.entries, address, service.entry_index(service.data))
        self.your_ip.show_source_ip(source_ip)
        self.scope_bar.show_rule(service.rule())
        self._validate()
        self._show_rotation()
        if self._echo_due:  # the service answered: not offline
            self._echo_due = False
            self.public_ip.maybe_lookup()
        self._show_public_ip()

    def _show_public_ip(self) -> None:
        self.your_ip.show_public_ip(self.public_ip.text, self.service.source_ip, self.public_ip.answers)

    def _show_rotation(self) -> None:
        plan = self.rotation.plan
        if plan is None or plan.step == Step.DONE:
            self.scope_bar.show_rotation(None)
            return
        step_text = STEPS[plan.step_number - 1][1].lower()
        self.scope_bar.show_rotation(
            f"A rotation is in progress: {plan.summary()}, step {plan.step_number} of 3 ({step_text})."
        )

    # -- add, remove, switch ----------------------------------------------------------------------

    def show_waiting(self, text: str) -> None:
        """What the Playground waits for in this tab ("" when nothing)."""
        self.waiting.setText(text)
        self.waiting.setVisible(bool(text))

    def prefill_add(self, ip: str) -> None:
        self.add_form.prefill(ip)

    def _validate(self) -> None:
        self.add_form.show_candidate(self.service.candidate(self.add_form.cidr.text()))

    def add_entry(self) -> None:
        candidate = self.service.candidate(self.add_form.cidr.text())
        if candidate is None or candidate.network is None:
            return
        if candidate.admits_everyone and not confirm_typed(
            self,
            "Admit every address?",
            f"{candidate.network} admits every address of its family: the allowlist is switched off in effect.",
            "ALLOW ALL",
        ):
            return
        self.service.add(str(candidate.network), self.add_form.description.text().strip())
        self.add_form.clear()

    def remove_selected(self) -> None:
        entries = self.entries.selected_entries()
        if not entries:
            return
        ids = [e.id for e in entries]
        count = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
        why = self.service.remove_lockout(ids)
        if why:  # one dialog, the typed one: it names what goes and why it locks you out
            cidrs = ", ".join(e.cidr for e in entries[:10]) + (" …" if len(entries) > 10 else "")
            self._guarded(Change.REMOVE, f"Remove {count}: {cidrs}?\n\n{why}", ids)
            return
        names = "\n".join(e.cidr for e in entries[:10]) + ("\n…" if len(entries) > 10 else "")
        answer = QMessageBox.question(self, "Remove entries", f"Remove {count}?\n\n{names}")
        if answer == QMessageBox.StandardButton.Yes:
            self.service.remove(ids)

    def _switch_clicked(self, checked: bool) -> None:
        self.scope_bar.show_switch(not checked)  # shows the real state until the service confirms
        if not checked:
            self.service.set_enabled(False)
            return
        why = self.service.enable_lockout()
        if why:
            self._guarded(Change.ENABLE, why)
            return
        self.service.set_enabled(True)

    def _guarded(self, change: str, explanation: str, entry_ids: list[str] | None = None) -> None:
        """Ask for the typed confirmation; `entry_ids` are the entries to remove (default: the selection)."""
        if not confirm_typed(
            self,
            "You would lock yourself out",
            f"{explanation}\n\n{locked_out_help(self.session.recovery_command())}",
            "LOCK ME OUT",
        ):
            self.session.bus.info("Nothing was changed.")
            return
        if change == Change.ENABLE:
            self.service.set_enabled(True, force=True)
        elif change == Change.REMOVE:
            ids = entry_ids or [e.id for e in self.entries.selected_entries()]
            self.service.remove(ids, force=True)

    # -- dialogs ----------------------------------------------------------------------------------

    def _action(self, name: str) -> None:
        {
            "rotate": self.open_rotation,
            "import": self.import_file,
            "export": self.export_file,
            "history": self.open_history,
        }[name]()

    def open_echo_settings(self) -> None:
        dialog = EchoSettingsDialog(self.public_ip.echo, self)
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
            self,
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
            self, "Import allowlist entries", "", "Allowlist files (*.csv *.json *.txt);;All files (*)"
        )
        if path:
            self.open_import(Path(path))

    def open_import(self, path: Path) -> ImportDialog | None:
        """Read the file and show the preview; nothing is sent until the person presses Import."""
        try:
            plan = self.service.plan_file_import(path)
        except TransferError as error:
            self.session.bus.error(str(error))
            return None
        dialog = ImportDialog(self.service, plan, path.name, self)
        self._show_dialog("import", dialog)
        return dialog

    def export_file(self) -> None:
        if self.service.data is None:
            self.session.bus.error("Security: the list is not loaded yet; nothing to export.")
            return
        default = "allowlist-" + (self.service.project_id or "organization")
        path, _ = QFileDialog.getSaveFileName(
            self, "Export allowlist entries", default + ".csv", "CSV (*.csv);;JSON (*.json)"
        )
        if path:
            self.export_to(Path(path))

    def export_to(self, path: Path) -> None:
        try:
            count = self.service.export_to(path)
        except TransferError as error:
            self.session.bus.error(str(error))
            return
        self.session.bus.info(f"Exported {count:,} entries to {path.name}.")

    def open_history(self) -> None:
        self._show_dialog("history", HistoryDialog(self.history, self))
