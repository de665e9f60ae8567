"""The main window: the connection toolbar, the menus, the Playground, Security, Prompts and Usage tabs,
notices."""

from __future__ import annotations

from typing import TYPE_CHECKING

# Nothing here imports or touches the `Qt` namespace before the first frame: importing the name costs ~15 ms
# and its first use ~50 ms (PySide6 builds the enum types lazily); the tabs, built just after the frame, pay.
import shiboken6
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QScrollArea,
    QTabWidget,
    QWidget,
)

from app.services.session.messages import Message, MessageLevel
from app.services.session.session import ConnectionState, ConsoleSession
from app.ui import screen_fit
from app.ui.screen_fit import clamp_to_screen, fit_to_screen

from .menus import Menus
from .page import NoticeBar as NoticeBar  # tests find it here, beside the window
from .page import PageLayout, SteadyTabs
from .status_line import StatusBar
from .toolbar import ConnectionBar

if TYPE_CHECKING:
    from PySide6.QtGui import QCloseEvent, QResizeEvent

    from app.core.evals.sent import SentRequest
    from app.core.playground.turns import Turn
    from app.core.prompt_turns import StoredPrompt
    from app.services.security.address_admission import AddressAdmission

if TYPE_CHECKING:  # built after the window's first frame (ensure_tabs): their imports cost ~100 ms
    from .playground.tab import PlaygroundTab
    from .prompts.tab import PromptsTab
    from .security.tab import SecurityTab
    from .settings.profiles_dialog import ProfilesDialog
    from .usage.tab import UsageTab

TAB_LABELS = ("&Playground", "&Security", "P&rompts", "&Usage")


class MainWindow(QMainWindow):
    def __init__(self, session: ConsoleSession) -> None:
        super().__init__()
        self.session = session
        from app.common.sqlite_rescue import check_early
        from app.core.playground.files import CONVERSATIONS_FILE

        # First: SQLite checks the saved conversations on another core while the window and the Playground
        # are made (~25 ms for a thousand; begun with the tabs, the list still waited ~5 ms for it).
        check_early(session.data_dir / CONVERSATIONS_FILE)
        self.setWindowTitle("Service Console")
        fit_to_screen(self, 1100, 800)  # a first launch on an 800x600 screen fits it, Send included
        from app.services.session.ui_state import UiState

        self.ui_state = UiState(session.profiles.settings)  # the window as it was when the console quit
        geometry = self.ui_state.window_geometry
        # A size saved at another scale is another size in points (684x418 at scale 2 is half the window
        # at scale 1): that launch opens at the first launch's size.
        if geometry is not None and abs(self.ui_state.window_scale - screen_fit.scale(self)) < 0.01:
            self.restoreGeometry(geometry)
            clamp_to_screen(self)  # left on a larger screen, or at a higher resolution
        self.connection_bar = bar = ConnectionBar(session)
        self.addToolBar(bar)
        # The toolbar's controls, as the window's own: what a person (and a test) finds at the top.
        self.profile_box, self.indicator = bar.profile_box, bar.indicator
        self.simulated_ip, self.simulated_label = bar.simulated_ip, bar.simulated_label
        self.notice = NoticeBar()
        self.tabs = QTabWidget(objectName="tabs")
        self._playground: PlaygroundTab | None = None
        self._security: SecurityTab | None = None
        self._prompts: PromptsTab | None = None
        self._usage: UsageTab | None = None
        self.admission: AddressAdmission | None = None
        for label in TAB_LABELS:  # placeholders for the first frame; ensure_tabs() puts the real ones in
            self.tabs.addTab(QWidget(), label)
        central = QWidget()
        layout = PageLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.notice)
        layout.addWidget(self.tabs)
        # The tabs scroll inside the window when the screen is smaller than they need (an 800x600 screen at
        # twice the scale has 400x300 points): the window always fits, and nothing is cut, only scrolled to.
        self.page_scroll = QScrollArea(objectName="page_scroll", widgetResizable=True)
        self.page_scroll.setWidget(central)
        self.setCentralWidget(self.page_scroll)
        self.menus = Menus(self, session, self.tabs, self.open_settings)
        session.bus.posted.connect(self.show_message)
        session.connection_changed.connect(self.show_connection)
        session.client_changed.connect(bar.sync_profile_controls)
        session.profiles.changed.connect(bar.fill_profiles)
        bar.fill_profiles()
        self._status_bar = StatusBar.of_window(self)  # a long message wraps, not cut at the window's edge
        self.statusBar().showMessage("Starting…")
        # Which engine answers in the sandbox (and a local model's loading), beside the passing messages.
        self.engine_label = QLabel(objectName="engine_label")
        self.statusBar().addPermanentWidget(self.engine_label)
        session.engine_changed.connect(self.engine_label.setText)

    def ensure_tabs(self) -> None:
        """Build the Playground tab (once), and the Security tab if it is the one shown: the app calls this
        right after the first frame. The Security tab is built when it is first shown or asked for
        (`security`): its modules and widgets were a large part of what a launch on the Playground waited for."""
        if self._playground is not None:
            return
        from PySide6.QtCore import Qt  # after the first frame (see the imports above)

        self.menus.apply_shortcuts()
        self._status_bar.settle()
        self.page_scroll.setFrameShape(QScrollArea.Shape.NoFrame)  # here: enums cost before the first frame
        self.page_scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a frame, not a stop on the Tab chain
        SteadyTabs(self.tabs)
        from .focus_ring import install_focus_rings

        install_focus_rings()  # in the window's dialogs too: it follows the focus in every window
        from .playground.tab import PlaygroundTab

        current = self.ui_state.tab if 0 <= self.ui_state.tab < len(TAB_LABELS) else 0
        self._playground = PlaygroundTab(self.session)
        self._playground.restore_options(self.ui_state.playground)
        if self.ui_state.conversation:  # the conversation open at the last quit, if it is still saved
            self._playground.keeper.open(self.ui_state.conversation)
        # Kept as it changes, not only at quit: a console ended by the system (logout, kill) reopens it too.
        self._playground.keeper.opened.connect(self._remember_conversation)
        self._put_tab(0, self._playground)
        if current in (1, 2, 3):
            self._tab_shown(current)
        self.tabs.setCurrentIndex(current)
        self.tabs.currentChanged.connect(self._tab_shown)
        self._playground.allow_ip_requested.connect(self.allow_ip)
        self._playground.settings_requested.connect(self.open_settings)
        self._playground.prompt_version_requested.connect(self.open_prompt_version)
        self.sidebar_action = self.menus.add_sidebar_toggle(self._show_sidebar)
        self._sidebar_stepped_aside = False
        self._fit_sidebar()
        if self.session.client is not None:  # the profile was activated before the tabs existed
            self._playground.reload_models()
        if current == 0:  # a person's first key goes into the message box, not the Profile box
            self._playground.message.setFocus()

    def _put_tab(self, index: int, tab: QWidget) -> None:
        """Replace the placeholder at `index` by its tab, the tab shown staying the one shown."""
        current = self.tabs.currentIndex()
        placeholder = self.tabs.widget(index)
        tab.setGeometry(self.tabs.currentWidget().geometry())  # the page's, before it is shown (SideSplit)
        self.tabs.blockSignals(True)  # the swap is no change of tab for the menus or for _tab_shown
        self.tabs.removeTab(index)
        self.tabs.insertTab(index, tab, TAB_LABELS[index])
        self.tabs.setCurrentIndex(current)
        self.tabs.blockSignals(False)
        if placeholder:  # deleted with its tab put in: a deleted widget's area is repainted, shown or not,
            shiboken6.delete(placeholder)  # and deleted later it costs the tab a whole repaint of its own

    def _tab_shown(self, index: int) -> None:
        if index == 1:
            self._ensure_security()
        elif index == 2:
            self._ensure_prompts()
        elif index == 3:
            self._ensure_usage()

    def _ensure_usage(self) -> None:
        if self._usage is None:  # built when first shown, as the Security tab is
            from .usage.tab import UsageTab

            self._usage = UsageTab(self.session)
            self._put_tab(3, self._usage)

    def _ensure_prompts(self) -> None:
        if self._prompts is None:  # built when first shown, as the Security tab is
            from .prompts.tab import PromptsTab

            self._prompts = PromptsTab(self.session)
            self._prompts.open_in_playground.connect(self.open_in_playground)
            self._put_tab(2, self._prompts)
            self._prompts.playground_requested.connect(self.open_prompt_in_playground)

    def open_prompt_in_playground(
        self, stored: StoredPrompt, values: dict[str, str] | None = None, model: str = ""
    ) -> None:
        """The Playground, sending from this prompt version with its variables filled (editable there)."""
        self.tabs.setCurrentWidget(self.playground)
        self.playground.use_prompt(stored, values, model)

    def open_prompt_version(self, prompt_id: str, version: str) -> None:
        """The Prompts tab on one version of a prompt (a Playground turn's "from prompt NAME vN")."""
        self.tabs.setCurrentIndex(2)  # built as it is shown
        self._ensure_prompts()
        assert self._prompts is not None
        self._prompts.open_version(prompt_id, version)

    def open_in_playground(self, sent: SentRequest) -> None:
        """An eval cell's request as it was sent: its prompt version and the row's values in the Playground."""
        from .eval_handoff import open_in_playground  # built at the first use: a launch opens no eval

        open_in_playground(self.playground, sent)
        self.tabs.setCurrentIndex(0)
        self.activateWindow()

    def _ensure_security(self) -> None:
        if self._security is not None:
            return
        self.ensure_tabs()
        from app.services.security.service import SecurityServices

        from .security.tab import SecurityTab

        self._security = SecurityTab(self.session, SecurityServices.create(self.session, self))
        # The scope of the last launch, chosen once the projects load (its first read is still to come).
        self._security.service.restore_scope = self.ui_state.security_scope or None
        self._put_tab(1, self._security)
        self._connect_admission()

    def _connect_admission(self) -> None:
        """After a 403 in the Playground: the Security tab on the list that refused, then the request again."""
        from app.services.security.address_admission import AddressAdmission

        security = self.security
        flow = self.admission = AddressAdmission(security.service, self)
        flow.open_list.connect(self._open_list)
        flow.next_list.connect(self._offer_next_list)
        security.waiting.next_clicked.connect(flow.open_next)
        flow.admitted.connect(self._send_again)
        flow.ended.connect(lambda: security.show_waiting(""))
        self.session.client_changed.connect(flow.cancel)

    @property
    def playground(self) -> PlaygroundTab:
        self.ensure_tabs()
        assert self._playground is not None
        return self._playground

    @property
    def security(self) -> SecurityTab:
        self.ensure_tabs()
        self._ensure_security()
        assert self._security is not None
        return self._security

    # -- connection, notices, the allow flow --------------------------------------------------------------------

    def _about(self) -> None:
        """Help > About (the menus own it)."""
        self.menus.about()

    def show_connection(self, state: ConnectionState, detail: str) -> None:
        self.connection_bar.show_state(state, detail)
        self.statusBar().showMessage(detail, 10000)

    def show_message(self, message: Message) -> None:
        self.statusBar().showMessage(message.text, 15000)
        if message.level == MessageLevel.ERROR:
            self.notice.show_text(message.text)

    def open_settings(self) -> ProfilesDialog:
        from .settings.profiles_dialog import ProfilesDialog

        dialog = ProfilesDialog(self.session, self)
        dialog.show()
        return dialog

    def allow_ip(self, index: int) -> None:
        """Allow the address a turn was refused at, in the list that refused it (see AddressAdmission)."""
        self._ensure_security()
        assert self.admission is not None
        self.admission.start(self.playground.service.turns[index])

    def _open_list(self, project_id: str | None, address: str) -> None:
        security = self.security
        self.tabs.setCurrentWidget(security)
        security.service.set_scope(project_id)  # read again: the flow moves on when it admits the address
        security.prefill_add(address)
        label = security.service.label_for(project_id)
        security.show_waiting(
            f"Waiting for {address} to be admitted by this list ({label}): the Playground then sends the "
            "refused request again."
        )

    def _offer_next_list(self, project_id: str | None, address: str) -> None:
        """One list admits the address now, another still refuses it: say so and offer that one (shown as is)."""
        security = self.security
        done = security.service.label_for(security.service.project_id)
        label = security.service.label_for(project_id)
        if security.add_form.cidr.text() == address:  # it is on this list now: no "Duplicate" left under it
            security.add_form.clear()
        security.show_waiting(
            f"“{done}” admits {address} now; “{label}” still refuses it. The Playground sends the refused "
            "request again once both admit it.",
            f"Open “{label}”…",
        )

    def _send_again(self, turn: Turn) -> None:
        """Every list that refused the turn admits its address now: the Playground runs it again, as Retry."""
        from app.core.playground.turns import ErrorKind

        turns = self.playground.service.turns
        index = next((i for i, kept in enumerate(turns) if kept is turn), None)
        if index is None or turn.error_kind != ErrorKind.BLOCKED:  # edited, or a new conversation since
            return
        self.tabs.setCurrentWidget(self.playground)
        self.playground.retry(index)
        self.session.bus.info(f"{turn.source_ip} is allowed now: the refused request was sent again.")

    # -- a window narrower than the Playground with its conversation list ----------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_sidebar()

    def _fit_sidebar(self) -> None:
        """The conversation list steps aside while the window is narrower than the Playground with it (twice
        the scale on a laptop's screen), and comes back when there is room; View > Conversation list (F9) too."""
        if self._playground is None:
            return
        sidebar = self._playground.sidebar
        # The viewport's width without asking for the viewport: the first QWidget that Qt made and Python is
        # handed (viewport()) makes PySide create every widget class it could be, with their enums: ~15 ms of
        # a launch that did nothing else with them.
        bar = self.page_scroll.verticalScrollBar()
        room = self.page_scroll.maximumViewportSize().width() - (bar.width() if bar.isVisible() else 0)
        beside = sidebar.minimumSizeHint().width() + self._playground.splitter.handleWidth()
        needed = self.tabs.minimumSizeHint().width() + (0 if sidebar.isVisibleTo(self) else beside)
        if sidebar.isVisibleTo(self) and room < needed:
            self.sidebar_action.setChecked(False)
            self._sidebar_stepped_aside = True  # after the toggle, which takes any change for a person's
        elif self._sidebar_stepped_aside and room >= needed:
            self.sidebar_action.setChecked(True)

    def _show_sidebar(self, shown: bool) -> None:
        self._sidebar_stepped_aside = False  # a person's choice stays until they change it
        self.playground.sidebar.setVisible(shown)

    def _remember_conversation(self, conversation_id: str) -> None:
        self.ui_state.conversation = conversation_id

    def closeEvent(self, event: QCloseEvent) -> None:
        scope = None if self._security is None else self._security.service.project_id or ""
        options = None if self._playground is None else self._playground.saved_options()
        self.ui_state.save_window(
            self.saveGeometry(), screen_fit.scale(self), self.tabs.currentIndex(), scope, options
        )
        if self._playground is not None:
            self._playground.stop()  # the open conversation is kept as it opens (_remember_conversation)
        super().closeEvent(event)
