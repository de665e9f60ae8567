"""Adding, removing and switching the shown list from the Security tab.

A change that admits every address, or that would lock the caller out, waits for a typed confirmation; the
service stops the lockouts it sees first, and `guarded` asks before forcing them.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox, QWidget

from app.services.security.allowlist import AllowlistService, Change
from app.services.session.session import ConsoleSession

from .add_form import AddForm
from .entries_panel import EntriesPanel
from .guards import confirm_typed, locked_out_help
from .scope_bar import ScopeBar


class ListChanges(QObject):
    """The tab's add, remove and on/off actions, asked over `owner` and sent through the service."""

    def __init__(
        self,
        owner: QWidget,
        session: ConsoleSession,
        service: AllowlistService,
        panels: tuple[AddForm, EntriesPanel, ScopeBar],
    ) -> None:
        super().__init__(owner)
        self.owner = owner
        self.session = session
        self.service = service
        self.add_form, self.entries, self.scope_bar = panels

    def add_entry(self) -> None:
        candidate = self.service.candidate(self.add_form.cidr.text())
        if candidate is None or candidate.network is None:
            return
        if candidate.admits_everyone and not confirm_typed(
            self.owner,
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
            self.guarded(Change.REMOVE, f"Remove {count}: {cidrs}?\n\n{why}", ids)
            return
        names = "\n".join(e.cidr for e in entries[:10]) + ("\n…" if len(entries) > 10 else "")
        answer = QMessageBox.question(self.owner, "Remove entries", f"Remove {count}?\n\n{names}")
        if answer == QMessageBox.StandardButton.Yes:
            self.service.remove(ids)

    def switch_clicked(self, checked: bool) -> None:
        self.scope_bar.show_switch(not checked)  # shows the real state until the service confirms
        if not checked:
            self.service.set_enabled(False)
            return
        why = self.service.enable_lockout()
        if why:
            self.guarded(Change.ENABLE, why)
            return
        self.service.set_enabled(True)

    def guarded(self, change: Change, explanation: str, entry_ids: list[str] | None = None) -> None:
        """Ask for the typed confirmation; `entry_ids` are the entries to remove (default: the selection)."""
        if not confirm_typed(
            self.owner,
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
