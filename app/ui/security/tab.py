"""The Security tab: the allowlists of the organization and each project, your IP, checks, no lockout.

It lays out the panels and connects them to the services it is given; the panels only draw, the services
fetch, decide (with netrules' policy) and read and write files and settings.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QHideEvent, QShowEvent
from PySide6.QtWidgets import QApplication, QDialog, QHBoxLayout, QMessageBox, QVBoxLayout, QWidget

from app.core.security.checks import Rule
from app.models.entries import EntriesModel
from app.netrules import Address, parse_address
from app.services.security.rotation import Step
from app.services.security.service import SecurityServices
from app.services.session.session import ConsoleSession
from app.ui.widgets.keyboard import tab_chain

from .add_form import AddForm
from .changes import ListChanges
from .check_panel import CheckIpPanel
from .dialogs import TabDialogs
from .entries_panel import EntriesPanel
from .guards import AdviceFold, BlockedBanner, RecoveryPanel
from .rotation import STEPS
from .scope_bar import ScopeBar, plain_label
from .waiting_bar import WaitingBar
from .your_ip import YourIpPanel

# Up to this many entries the tab waits for the builder thread (the index takes a few ms) and shows the list
# whole at once; a longer list shows its rows first and the rest when its index is built.
WAIT_FOR_INDEX_UP_TO = 5_000


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
        self._echo_due = False
        self._build()
        # The flows the panels start: changes to the list, and the dialogs (rotation, files, history, echo).
        panels = (self.add_form, self.entries, self.scope_bar)
        self.changes = ListChanges(self, session, self.service, panels, services.tools)
        self.opener = TabDialogs(self, session, services, self.entries)
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
        self.advice = AdviceFold(plain_label("guidance"))
        self._layout = layout = QVBoxLayout(self)
        layout.addWidget(self.need)
        layout.addWidget(self.blocked_banner)
        layout.addWidget(self.scope_bar)
        layout.addWidget(self.your_ip)
        self.waiting = WaitingBar()  # an address to allow after a 403 in the Playground
        layout.addWidget(self.waiting)
        # The forms above the table: their messages grow downward, into the table's room, so the field being
        # typed in never moves (below the table they grew upward, carrying the field from under the cursor).
        forms = QHBoxLayout()  # side by side: the table keeps its rows in a small window
        forms.addWidget(self.add_form, 2)  # the wider: address, description, expiry and Add share its row
        forms.addWidget(self.check, 1)
        layout.addLayout(forms)
        layout.addWidget(self.entries, 1)
        layout.addWidget(self.recovery)
        layout.addWidget(self.advice)
        # Tab in reading order, the add form before the check beside it, the table's filter before the table.
        form, entries = self.add_form, self.entries
        tab_chain(
            form.cidr, form.description, form.expires, form.add_button, self.check.input, entries.filter
        )
        tab_chain(entries.filter, entries.view, entries.days, entries.table, entries.extend)
        tab_chain(self.recovery.command, self.recovery.copy, self.advice.toggle)

    @property
    def dialogs(self) -> dict[str, QDialog]:
        """The dialogs open beside the tab, by name: "rotation", "import", "history"."""
        return self.opener.dialogs

    def _connect(self) -> None:
        bar, service, changes, opener = self.scope_bar, self.service, self.changes, self.opener
        bar.scope_chosen.connect(lambda project_id: service.set_scope(project_id or None))
        bar.switch_clicked.connect(changes.switch_clicked)
        bar.refresh_clicked.connect(service.refresh)
        bar.resume_clicked.connect(opener.open_rotation)
        bar.action.connect(opener.open)
        self.your_ip.add_mine_clicked.connect(lambda: self.prefill_add(service.source_ip or ""))
        self.your_ip.look_up_clicked.connect(self.public_ip.lookup)
        self.your_ip.echo_settings_clicked.connect(opener.open_echo_settings)
        self.entries.remove_clicked.connect(changes.remove_selected)
        # Rows selected: what the list admitted lately is read, for the removal's question.
        self.entries.table.selectionModel().selectionChanged.connect(
            lambda *_: self.opener.tools.read_sources()
        )
        self.entries.remove_shown_clicked.connect(changes.remove_shown)
        self.entries.extend_chosen.connect(changes.extend_selected)
        service.changed_under_you.connect(changes.changed_under_you)
        service.periodic.timeout.connect(self.refresh_unless_busy)
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):  # the window regains focus: another admin may have changed it
            app.applicationStateChanged.connect(self._application_state)
        self.add_form.typed.connect(self._validate)
        self.add_form.add_clicked.connect(changes.add_entry)
        self.check.typed.connect(lambda text: self.check.show_check(service.check_ip(text)))
        self.rotation.changed.connect(self._show_rotation)
        self.rotation.changed.connect(service.refresh)
        self.public_ip.looked_up.connect(lambda _text: self._show_public_ip())
        service.loaded.connect(self._show)
        service.indexed.connect(self._show_indexed)
        service.failed.connect(lambda text: self.session.bus.error(f"Security: {text}"))
        service.guard.connect(changes.guarded)
        service.blocked_changed.connect(self._show_blocked)
        service.changed_elsewhere.connect(
            lambda text: QMessageBox.information(self, "Changed elsewhere", text)
        )
        self.session.client_changed.connect(self._client_changed)

    # -- state ------------------------------------------------------------------------------------

    def refresh_unless_busy(self) -> bool:
        """Read the list again, unless a dialog is open (its decisions rest on the list shown) or a change is
        in flight (its answer shows the list); True when it read."""
        if not self.isVisible() or self.service.changes_in_flight or QApplication.activeModalWidget():
            return False
        if any(dialog.isVisible() for dialog in self.dialogs.values()):
            return False
        self.service.refresh()
        return True

    def _application_state(self, state: Qt.ApplicationState) -> None:
        if state == Qt.ApplicationState.ApplicationActive:
            self.refresh_unless_busy()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.service.periodic.start(self.service.poll_ms())  # the setting as it is now (quicker if blocked)

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
        self.your_ip.allow_lookup(self.public_ip.allowed)
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
        if blocked_at:  # the 403 says where the service sees you now: not the address of the last good read
            self.your_ip.show_source_ip(blocked_at)
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
        index = service.ready_index(service.data, WAIT_FOR_INDEX_UP_TO)
        # A long list's rows first, while its index is built off this thread; but a list shown already stays
        # until the new one can show in its order (a reload every 30 s must not shuffle the rows and back).
        if index is not None or not self.model.entries:
            self.model.set_entries(service.entries, self._my_address(), index)
            if index is None:  # on screen now, before the index's build starts (see AllowlistService._loaded)
                self.entries.paint_now()
        self.your_ip.show_source_ip(source_ip)
        if index is not None and service.ready_index(service.org_data, WAIT_FOR_INDEX_UP_TO) is not None:
            self._show_checks()
        self._show_rotation()
        if self._echo_due:  # the service answered: not offline
            self._echo_due = False
            self.public_ip.maybe_lookup()
        self._show_public_ip()

    def _my_address(self) -> Address | None:
        source_ip = self.service.source_ip
        return parse_address(source_ip) if source_ip else None

    def _show_indexed(self) -> None:
        """The lists' indexes are built: the rows in order, "Covers you", the rule and the add form's check."""
        service = self.service
        index = service.ready_index(service.data)
        if index is None:  # a newer read's index is on its way
            return
        search = service.ready_search(service.data)  # the filter's keys, in the order by address
        if self.model.entries is not service.entries:
            self.model.set_entries(service.entries, self._my_address(), index, search)
        elif not self.model.indexed:
            self.model.set_index(index, self._my_address(), search)
        else:  # a short list: `_show` waited for its index and showed everything
            return
        if service.indexes_ready():
            self._show_checks()

    def _show_checks(self) -> None:
        self.scope_bar.show_rule(self.service.rule())
        self._validate()
        # The address being checked, against the lists just read (another scope, or entries changed).
        self.check.show_check(self.service.check_ip(self.check.input.text()))

    def _show_public_ip(self) -> None:
        public_ip = self.public_ip
        self.your_ip.show_public_ip(
            public_ip.text, self.service.source_ip, public_ip.answers, public_ip.details
        )

    def _show_rotation(self) -> None:
        plan = self.rotation.plan
        if plan is None or plan.step == Step.DONE:
            self.scope_bar.show_rotation(None)
            return
        step_text = STEPS[plan.step_number - 1][1].lower()
        self.scope_bar.show_rotation(
            f"A rotation is in progress: {plan.summary()}, step {plan.step_number} of 3 ({step_text})."
        )

    # -- the add form, and the Playground's address waiting here ------------------------------------

    def show_waiting(self, text: str, next_list: str = "") -> None:
        """What the Playground waits for in this tab ("" when nothing), and the button to the next list."""
        self.waiting.show_waiting(text, next_list)

    def prefill_add(self, ip: str) -> None:
        self.add_form.prefill(ip)

    def _validate(self) -> None:
        self.add_form.show_candidate(self.service.candidate(self.add_form.cidr.text()))
