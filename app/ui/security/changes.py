"""Adding, removing and switching the shown list from the Security tab.

A change that admits every address, or that would lock the caller out, waits for a typed confirmation; the
service stops the lockouts it sees first, and `guarded` asks before forcing them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from app.services.security.allowlist import AllowlistService, Change, ChangedUnderYou
from app.services.session.session import ConsoleSession

from .add_form import AddForm
from .entries_panel import EntriesPanel
from .guards import confirm_typed, locked_out_help
from .scope_bar import ScopeBar

if TYPE_CHECKING:
    from app.services.security.allowlist import Entry
    from app.services.security.list_tools import ListTools

    from .expiry_menu import Expiry


class ListChanges(QObject):
    """The tab's add, remove and on/off actions, asked over `owner` and sent through the service."""

    def __init__(
        self,
        owner: QWidget,
        session: ConsoleSession,
        service: AllowlistService,
        panels: tuple[AddForm, EntriesPanel, ScopeBar],
        tools: ListTools | None = None,
    ) -> None:
        super().__init__(owner)
        self.owner = owner
        self.session = session
        self.service = service
        self.add_form, self.entries, self.scope_bar = panels
        self.tools = tools  # the evidence a removal's question shows: what the entries admitted lately

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
        expires_at = self.add_form.expires.expires_at()
        self.service.add(str(candidate.network), self.add_form.description.text().strip(), expires_at)
        self.add_form.clear()

    def extend_selected(self, expiry: Expiry) -> None:
        """Extend: the selected entries get the expiry chosen in the menu."""
        entries = self.entries.selected_entries()
        if not entries:
            self.session.bus.info("Select the entries to extend first.")
            return
        self.service.set_expiry([e.id for e in entries], expiry.at)

    def remove_selected(self) -> None:
        self.remove_entries(self.entries.selected_entries())

    def remove_shown(self) -> None:
        """Remove every entry the view shows (the expired, expiring or stale ones), through the same guard."""
        self.remove_entries(self.entries.shown_entries())

    def remove_entries(self, entries: list[Entry]) -> None:
        if not entries:
            return
        ids = [e.id for e in entries]
        count = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
        evidence = self.tools.evidence(entries[:10]) if self.tools is not None else []
        admitted = "\n\nWhat they admitted:\n" + "\n".join(evidence) if evidence else ""
        why = self.service.remove_lockout(ids)
        if why:  # one dialog, the typed one: it names what goes and why it locks you out
            cidrs = ", ".join(e.cidr for e in entries[:10]) + (" …" if len(entries) > 10 else "")
            self.guarded(Change.REMOVE, f"Remove {count}: {cidrs}?\n\n{why}{admitted}", ids)
            return
        names = "\n".join(e.cidr for e in entries[:10]) + ("\n…" if len(entries) > 10 else "")
        answer = QMessageBox.question(self.owner, "Remove entries", f"Remove {count}?\n\n{names}{admitted}")
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

    def changed_under_you(self, refused: ChangedUnderYou) -> None:
        """A 412: the list changed since it was read. Show what changed, and offer the change again."""
        lines = "\n".join(refused.diff.lines())
        box = QMessageBox(self.owner)
        box.setObjectName("changed_under_you")
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("The list changed under you")
        box.setText(
            "Another admin changed this list after you read it, so your change was not made:\n"
            f"{refused.what}\n\nWhat changed meanwhile (the list now shows it):"
        )
        box.setInformativeText(lines)
        again = box.addButton("Apply my change again", QMessageBox.ButtonRole.AcceptRole)
        again.setObjectName("apply_again")
        box.addButton("Leave it", QMessageBox.ButtonRole.RejectRole)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        # Opened, not exec'd: this runs inside the change's task, which must not wait on a nested loop.
        box.buttonClicked.connect(lambda button: refused.again() if button is again else None)
        box.open()

    def guarded(self, change: Change, explanation: str, entry_ids: list[str] | None = None) -> None:
        """Ask for the typed confirmation; `entry_ids` are the entries to remove (default: those the service's
        own guard refused to remove).
        A project's list is another matter: it never covers the Admin API, so the admin key keeps working
        and the change can be undone from this tab; a plain question says so, with no recovery command."""
        if self.service.project_id is not None:
            answer = QMessageBox.question(
                self.owner,
                "This project's key would be refused",
                f"{explanation.replace('you would be locked out', 'this project refuses it')}\n\n"
                "This project's API key (the Playground) would be refused from your address. The admin key "
                "keeps working: a project's list does not cover the Admin API, so you can undo this here.",
            )
            if answer != QMessageBox.StandardButton.Yes:
                self.session.bus.info("Nothing was changed.")
                return
        elif not confirm_typed(
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
            ids = entry_ids if entry_ids is not None else self.service.refused_removal
            self.service.remove(ids, force=True)
