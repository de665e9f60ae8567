"""The Security tab: the allowlists of the organization and each project, your IP, checks, no lockout."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.models.entries import EntriesModel
from app.netrules import (
    EntryError,
    Relation,
    describe_findings,
    parse_address,
    parse_entry,
    warnings_for,
)
from app.netrules.policy import (
    Verdict,
    answer,
    enabling_locks_out,
    never_admitted,
    removal_locks_out,
    verdict,
)
from app.netrules.transfer import FileError, plan_import, read_entries
from app.services.allowlist import AllowlistService
from app.services.history import ChangeHistory
from app.services.public_ip import PublicIpService
from app.services.rotation import RotationService, Step
from app.services.session import ConsoleSession
from app.ui.widgets.tables import STRETCH, size_columns

from .echo import EchoSettingsDialog
from .history import HistoryDialog
from .rotation import STEPS, RotationDialog
from .transfer import ImportDialog, export_text

if TYPE_CHECKING:
    from app.api.admin import Entry

DEFAULT_ENTRY_LIMIT = 1000  # CONTRACT.md: 1,000 per list by default; the service does not report it

WHOLE_SPACE = {"0.0.0.0/0", "::/0"}
LOCKED_OUT_HELP = (
    "Locked out? The allowlist covers the Admin API too; only the web dashboard escapes it. Switch the list off "
    "there (Settings > Security), or for the local sandbox run: python -m app.sandbox allowlist disable --data DIR"
)


def confirm_typed(parent: QWidget, title: str, explanation: str, word: str) -> bool:
    """A typed confirmation for the changes that can lock people out or open the API to all."""
    text, ok = QInputDialog.getText(parent, title, f"{explanation}\n\nType {word} to go ahead:")
    return ok and text.strip() == word


class SecurityTab(QWidget):
    def __init__(self, session: ConsoleSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.history = ChangeHistory(session.data_dir / "allowlist-history.jsonl", self)
        self.service = AllowlistService(session, self.history, self)
        self.rotation = RotationService(session, self.history, self)
        self.public_ip = PublicIpService(session, session.profiles.settings, self)
        self.model = EntriesModel()
        self.dialogs: dict[str, QDialog] = {}
        self._echo_due = False
        self._build()
        self.rotation.changed.connect(self._show_rotation)
        self.rotation.changed.connect(self.service.refresh)
        self.public_ip.looked_up.connect(lambda _text: self._show_public_ip())
        self.service.loaded.connect(self._show)
        self.service.failed.connect(self._failed)
        self.service.guard.connect(self._guarded)
        self.service.changed_elsewhere.connect(self._changed_elsewhere)
        session.client_changed.connect(self._client_changed)

    def _build(self) -> None:
        self.need = QLabel(objectName="need")
        self.need.setWordWrap(True)
        self.scope = QComboBox(objectName="scope")
        self.scope.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.scope.activated.connect(lambda _i: self.service.set_scope(self.scope.currentData()))
        self.switch = QCheckBox("Allowlist on", objectName="switch")
        self.switch.clicked.connect(self._switch_clicked)
        refresh = QPushButton("Refresh", objectName="refresh")
        refresh.clicked.connect(self.service.refresh)
        self.rule = QLabel(objectName="rule")
        self.rule.setWordWrap(True)
        top = QHBoxLayout()
        for widget in (QLabel("Scope"), self.scope, self.switch, refresh):
            top.addWidget(widget)
        top.addStretch(1)
        for label, name, slot in (
            ("Rotate an IP…", "rotate", self.open_rotation),
            ("Import…", "import", self.import_file),
            ("Export…", "export", self.export_file),
            ("History…", "history", self.open_history),
        ):
            button = QPushButton(label, objectName=name)
            button.clicked.connect(slot)
            top.addWidget(button)

        self.rotation_banner = QLabel(objectName="rotation_banner")
        self.rotation_banner.setWordWrap(True)
        self.rotation_banner.setStyleSheet("color: #9a6700;")
        resume = QPushButton("Resume rotation…", objectName="resume_rotation")
        resume.clicked.connect(self.open_rotation)
        self.rotation_row = QWidget()
        banner_layout = QHBoxLayout(self.rotation_row)
        banner_layout.setContentsMargins(0, 0, 0, 0)
        banner_layout.addWidget(self.rotation_banner, 1)
        banner_layout.addWidget(resume)
        self.rotation_row.setVisible(False)

        self.my_ip = QLabel(objectName="my_ip")
        self.my_ip.setWordWrap(True)
        add_mine = QPushButton("Add my IP", objectName="add_mine")
        add_mine.clicked.connect(lambda: self.prefill_add(self._source_ip() or ""))
        ip_row = QHBoxLayout()
        ip_row.addWidget(self.my_ip, 1)
        ip_row.addWidget(add_mine)
        self.public_ip_label = QLabel(objectName="public_ip")
        self.public_ip_label.setWordWrap(True)
        look_up = QPushButton("Look up public IP", objectName="look_up")
        look_up.clicked.connect(self.public_ip.lookup)
        echo_settings = QPushButton("Echo services…", objectName="echo_settings")
        echo_settings.clicked.connect(self.open_echo_settings)
        public_row = QHBoxLayout()
        public_row.addWidget(self.public_ip_label, 1)
        public_row.addWidget(look_up)
        public_row.addWidget(echo_settings)
        public_row.addStretch(0)  # with no answer shown yet, the buttons keep their size
        for button in (add_mine, look_up, echo_settings):
            button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

        self.filter = QLineEdit(objectName="filter", placeholderText="Filter by address or description")
        self.filter.textChanged.connect(self.model.set_filter)
        self.table = QTableView(objectName="entries")
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        size_columns(
            self.table,
            ("ffff:ffff:ffff:ffff::/64", STRETCH, "2026-12-31 23:59", "4,294,967,296", "Covers you"),
        )
        remove = QPushButton("Remove selected…", objectName="remove")
        remove.clicked.connect(self.remove_selected)

        add_box = QGroupBox("Add an entry")
        self.cidr = QLineEdit(
            objectName="cidr", placeholderText="203.0.113.7 or 203.0.113.0/24 or 2001:db8::/48"
        )
        self.cidr.textChanged.connect(self._validate)
        self.description = QLineEdit(objectName="description", placeholderText="What it is for (optional)")
        self.description.setMaxLength(200)
        self.add_button = QPushButton("Add", objectName="add", enabled=False)
        self.add_button.clicked.connect(self.add_entry)
        self.verdict = QLabel(objectName="verdict")
        self.verdict.setWordWrap(True)
        self.suggestions = QHBoxLayout()
        row = QHBoxLayout()
        row.addWidget(self.cidr, 2)
        row.addWidget(self.description, 3)
        row.addWidget(self.add_button)
        add_layout = QVBoxLayout(add_box)
        add_layout.addLayout(row)
        add_layout.addWidget(self.verdict)
        add_layout.addLayout(self.suggestions)

        check_box = QGroupBox("Check an IP")
        self.check_input = QLineEdit(objectName="check_ip", placeholderText="an address, e.g. 198.51.100.7")
        self.check_input.textChanged.connect(self.check_ip)
        self.check_result = QLabel(objectName="check_result")
        self.check_result.setWordWrap(True)
        check_layout = QVBoxLayout(check_box)
        check_layout.addWidget(self.check_input)
        check_layout.addWidget(self.check_result)

        help_label = QLabel(
            LOCKED_OUT_HELP + "\n\nCI runners draw changing addresses from large pools: list a fixed "
            "egress (a proxy or self-hosted runners) instead. A restrictive organization list also "
            "blocks the hosted web Playground, whose requests come from the service's own servers; "
            "a project-level list on another project avoids that."
        )
        help_label.setWordWrap(True)
        help_label.setObjectName("guidance")

        layout = QVBoxLayout(self)
        layout.addWidget(self.need)
        layout.addLayout(top)
        layout.addWidget(self.rotation_row)
        layout.addWidget(self.rule)
        layout.addLayout(ip_row)
        layout.addLayout(public_row)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        layout.addWidget(remove, alignment=Qt.AlignmentFlag.AlignRight)
        layout.addWidget(add_box)
        layout.addWidget(check_box)
        layout.addWidget(help_label)

    # -- state ------------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.service.periodic.start()

    def hideEvent(self, event: QHideEvent) -> None:
        # a hidden tab (another tab, a minimised or closed window) polls nobody
        self.service.periodic.stop()
        super().hideEvent(event)

    def _client_changed(self) -> None:
        available = self.service.available
        self.need.setText(available.reason)
        self.need.setVisible(not available.ok)
        self.service.reset()
        self.model.set_entries([], None)
        self._echo_due = True
        self.public_ip_label.clear()
        self._show_rotation()
        self.service.refresh()

    def _source_ip(self) -> str | None:
        return self.service.source_ip

    def _show(self) -> None:
        data = self.service.data
        self.scope.blockSignals(True)
        self.scope.clear()
        self.scope.addItem("Organization", None)
        for project in self.service.projects:
            self.scope.addItem(f"Project: {project.label}", project.id)
        self.scope.setCurrentIndex(max(0, self.scope.findData(self.service.project_id)))
        self.scope.blockSignals(False)
        self.switch.setChecked(data is not None and data.enabled)
        source_ip = self._source_ip()
        address = parse_address(source_ip) if source_ip else None
        self.model.set_entries(self.service.entries, address, self.service.entry_index(data))
        self.my_ip.setText(
            f"Your IP as the service sees it: <b>{source_ip or 'unknown'}</b>. It can differ from your machine's "
            "own address behind a proxy, VPN or NAT, and IPv4 and IPv6 are separate."
        )
        self._show_rule()
        self._validate()
        self._show_rotation()
        if self._echo_due:  # the service answered: not offline
            self._echo_due = False
            self.public_ip.maybe_lookup()
        self._show_public_ip()

    def _show_rule(self) -> None:
        org, data = self.service.org_data, self.service.data
        org_on, project_on = org is not None and org.enabled, data is not None and data.enabled
        if self.service.project_id is None:
            state = "on" if org_on else "off"
            self.rule.setText(f"The organization's list is {state}: it applies to every project and key.")
            return
        text = (
            f"Effective rule for this project: an address must pass the organization's list "
            f"({'on' if org_on else 'off'}) AND this project's list ({'on' if project_on else 'off'})."
        )
        if org_on:
            org_index, project_index = self.service.entry_index(org), self.service.entry_index(data)
            never = [str(network) for network in never_admitted(org_index, project_index)]
            if never:
                text += f" ⚠ The organization's list never admits: {', '.join(never[:5])}" + (
                    " …" if len(never) > 5 else ""
                )
        self.rule.setText(text)

    def _failed(self, text: str) -> None:
        self.session.bus.error(f"Security: {text}")

    def _changed_elsewhere(self, text: str) -> None:
        QMessageBox.information(self, "Changed elsewhere", text)

    # -- add --------------------------------------------------------------------------------------

    def prefill_add(self, ip: str) -> None:
        self.cidr.setText(ip)
        self.cidr.setFocus()

    def _clear_suggestions(self) -> None:
        while self.suggestions.count():
            item = self.suggestions.takeAt(0)
            if item.widget():
                item.widget().deleteLater()

    def _validate(self) -> None:
        self._clear_suggestions()
        text = self.cidr.text().strip()
        if not text:
            self.verdict.clear()
            self.add_button.setEnabled(False)
            return
        try:
            network = parse_entry(text)
        except EntryError as error:
            self.verdict.setText(f"✗ {error.message}")
            self.verdict.setStyleSheet("color: #cf222e;")
            self.add_button.setEnabled(False)
            for suggestion in error.suggestions:
                button = QPushButton(f"Use {suggestion}")
                button.setObjectName(f"use_{suggestion}")
                button.clicked.connect(lambda _=False, s=suggestion: self.cidr.setText(s))
                self.suggestions.addWidget(button)
            return
        findings = self.service.entry_index(self.service.data).relate(network)
        notes = describe_findings(findings, str(network)) + warnings_for(network)
        duplicate = any(f.relation is Relation.DUPLICATE for f in findings)
        self.verdict.setText(
            ("✓ " + str(network) if not duplicate else "✗ Duplicate")
            + ("\n" + "\n".join(notes) if notes else "")
        )
        self.verdict.setStyleSheet(
            "color: #cf222e;" if duplicate else "color: #1a7f37;" if not notes else "color: #9a6700;"
        )
        self.add_button.setEnabled(not duplicate and self.service.data is not None)

    def add_entry(self) -> None:
        network = parse_entry(self.cidr.text())
        if str(network) in WHOLE_SPACE and not confirm_typed(
            self,
            "Admit every address?",
            f"{network} admits every address of its family: the allowlist is switched off in effect.",
            "ALLOW ALL",
        ):
            return
        self.service.add(str(network), self.description.text().strip())
        self.cidr.clear()
        self.description.clear()

    # -- remove and switch ------------------------------------------------------------------------

    def selected_entries(self) -> list[Entry]:
        rows = {index.row() for index in self.table.selectionModel().selectedRows()}
        return [self.model.entry(row) for row in sorted(rows)]

    def remove_selected(self) -> None:
        entries = self.selected_entries()
        if not entries:
            return
        names = "\n".join(e.cidr for e in entries[:10]) + ("\n…" if len(entries) > 10 else "")
        answer = QMessageBox.question(
            self,
            "Remove entries",
            f"Remove {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}?\n\n{names}",
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        data = self.service.data
        ip = self._source_ip()
        if data is not None and data.enabled and ip:
            removed = {e.id for e in entries}
            if removal_locks_out(self.service.entry_index(data), removed, parse_address(ip)):
                self._guarded(
                    "remove",
                    f"Removing these entries would block your own address ({ip}) from the API.",
                    [e.id for e in entries],
                )
                return
        self.service.remove([e.id for e in entries])

    def _switch_clicked(self, checked: bool) -> None:
        self.switch.setChecked(not checked)  # shows the real state until the service confirms
        if not checked:
            self.service.set_enabled(False)
            return
        data = self.service.data
        ip = self._source_ip()
        entries = self.service.entries
        address = parse_address(ip) if ip else None
        if enabling_locks_out(self.service.entry_index(data), address):
            why = (
                "The list is empty: switching it on blocks every API request, yours included."
                if not entries
                else f"No entry covers your address ({ip or 'unknown'}): you would be locked out."
            )
            self._guarded("enable", why)
            return
        self.service.set_enabled(True)

    def _guarded(self, action: str, explanation: str, entry_ids: list[str] | None = None) -> None:
        """Ask for the typed confirmation; `entry_ids` are the entries to remove (default: the selection)."""
        if not confirm_typed(
            self, "You would lock yourself out", f"{explanation}\n\n{LOCKED_OUT_HELP}", "LOCK ME OUT"
        ):
            self.session.bus.info("Nothing was changed.")
            return
        if action == "enable":
            self.service.set_enabled(True, force=True)
        elif action == "remove":
            ids = entry_ids or [e.id for e in self.selected_entries()]
            self.service.remove(ids, force=True)

    # -- check ------------------------------------------------------------------------------------

    def check_ip(self) -> str:
        text = self.check_input.text().strip()
        if not text:
            self.check_result.clear()
            return ""
        try:
            address = parse_address(text)
        except EntryError as error:
            self.check_result.setText(f"✗ {error.message}")
            return self.check_result.text()
        lines = []
        lists = [("Organization", self.service.org_data)]
        if self.service.project_id:
            lists.append(("Project", self.service.data))
        answers = []
        for label, data in lists:
            said = answer(self.service.entry_index(data), data is not None and data.enabled, address)
            answers.append(said)
            if not said.enabled:
                lines.append(f"{label}: list off, allowed.")
            elif said.admitted_by is not None:
                lines.append(f"{label}: allowed by {said.admitted_by}.")
            else:
                lines.append(
                    f"{label}: blocked" + (f" (nearest entry: {said.nearest})." if said.nearest else ".")
                )
        together = verdict(answers[0], answers[1] if len(answers) > 1 else None)
        lines.append("Together: " + ("ALLOWED" if together is Verdict.ADMITTED else "BLOCKED"))
        self.check_result.setText("\n".join(lines))
        return self.check_result.text()

    # -- public IP --------------------------------------------------------------------------------

    def _show_public_ip(self) -> None:
        text = self.public_ip.text
        seen = self._source_ip()
        answers = self.public_ip.answers
        if seen and answers and seen not in answers.values():
            text += (
                f" They differ from the {seen} the service sees: your requests to it go through a proxy, "
                "VPN or NAT, or over the other IP family."
            )
        self.public_ip_label.setText(text)
        self.public_ip_label.setVisible(bool(text))

    def open_echo_settings(self) -> None:
        dialog = EchoSettingsDialog(self.public_ip.echo, self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            dialog.result_settings().save(self.public_ip.settings)
            self.public_ip.maybe_lookup()

    # -- rotation ---------------------------------------------------------------------------------

    def _show_rotation(self) -> None:
        plan = self.rotation.plan
        active = plan is not None and plan.step != Step.DONE
        self.rotation_row.setVisible(active)
        if plan is not None and active:
            step_text = STEPS[plan.step_number - 1][1].lower()
            self.rotation_banner.setText(
                f"A rotation is in progress: {plan.summary()}, step {plan.step_number} of 3 ({step_text})."
            )

    def open_rotation(self) -> None:
        available = self.service.available
        if not available.ok:
            self.session.bus.error(available.reason)
            return
        selected = self.selected_entries()
        dialog = RotationDialog(
            self.rotation,
            list(self.service.entries),
            (self.service.project_id, self.service.scope_label),
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

    # -- import, export, history ------------------------------------------------------------------

    def entry_limit(self) -> int:
        value = self.session.profiles.settings.value("security/entry_limit", DEFAULT_ENTRY_LIMIT)
        try:
            return max(1, int(value))
        except (TypeError, ValueError):
            return DEFAULT_ENTRY_LIMIT

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
            text = path.read_text(encoding="utf-8-sig")
            lines = read_entries(text, path.name)
        except UnicodeDecodeError:
            self.session.bus.error(f"Import: {path.name} is not a UTF-8 text file (CSV or JSON).")
            return None
        except (OSError, FileError) as error:
            self.session.bus.error(f"Import: {path.name}: {error}")
            return None
        if not lines:
            self.session.bus.error(f"Import: {path.name} holds no entries.")
            return None
        entries = [entry.model_dump() for entry in self.service.entries]
        dialog = ImportDialog(self.service, plan_import(lines, entries, self.entry_limit()), path.name, self)
        self._show_dialog("import", dialog)
        return dialog

    def export_file(self) -> None:
        if self.service.data is None:
            self.session.bus.error("Security: the list is not loaded yet; nothing to export.")
            return
        default = "allowlist-" + (
            "organization" if self.service.project_id is None else self.service.project_id
        )
        path, _ = QFileDialog.getSaveFileName(
            self, "Export allowlist entries", default + ".csv", "CSV (*.csv);;JSON (*.json)"
        )
        if path:
            self.export_to(Path(path))

    def export_to(self, path: Path) -> None:
        data = self.service.data
        scope = {
            "scope": "organization" if self.service.project_id is None else "project",
            "project_id": self.service.project_id,
            "enabled": data is not None and data.enabled,
        }
        entries = [entry.model_dump() for entry in self.service.entries]
        try:
            path.write_text(export_text(path, entries, scope), encoding="utf-8")
        except OSError as error:
            self.session.bus.error(f"Export: {error.strerror or error} ({path}).")
            return
        self.session.bus.info(f"Exported {len(entries):,} entries to {path.name}.")

    def open_history(self) -> None:
        self._show_dialog("history", HistoryDialog(self.history, self))
