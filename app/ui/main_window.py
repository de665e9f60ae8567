"""The main window: profile switcher, connection indicator, Playground and Security tabs, notices."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

# Nothing here touches the `Qt` namespace before the first frame: its first use costs ~50 ms (PySide6 builds
# the enum types lazily), and the tabs, built just after the frame, pay it instead.
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from app.services.session import ConnectionState, ConsoleSession

if TYPE_CHECKING:
    from PySide6.QtGui import QCloseEvent

    from app.services.allow_flow import AllowAfterRefusal
    from app.services.turns import Turn

if TYPE_CHECKING:  # built after the window's first frame (ensure_tabs): their imports cost ~100 ms
    from .playground.tab import PlaygroundTab
    from .security.tab import SecurityTab
    from .settings.profiles_dialog import ProfilesDialog

TAB_LABELS = ("&Playground", "&Security")


STATE_COLOURS = {ConnectionState.OK: "#1a7f37", ConnectionState.CHECKING: "#9a6700"}


class NoticeBar(QWidget):
    """A non-modal notice above the tabs for errors; dismissed with ✕ or replaced by the next one."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("notice")
        self.label = QLabel(objectName="notice_text")
        self.label.setWordWrap(True)
        close = QPushButton("✕", objectName="notice_close")
        close.setFlat(True)
        close.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(close)
        self.setStyleSheet("#notice { background: #ffebe9; } #notice_text { color: #82071e; }")
        self.hide()

    def show_text(self, text: str) -> None:
        # Notices quote servers: never markup. Set here, after the first frame: the Qt namespace's first
        # use costs ~50 ms (PySide6 builds its enums lazily), and the window's first frame would pay it.
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setText(text)
        self.show()


class MainWindow(QMainWindow):
    def __init__(self, session: ConsoleSession) -> None:
        super().__init__()
        self.session = session
        self.setWindowTitle("Service Console")
        self.resize(1100, 800)
        from app.services.ui_state import UiState

        self.ui_state = UiState(session.profiles.settings)  # the window as it was when the console quit
        geometry = self.ui_state.window_geometry
        if geometry is not None:
            self.restoreGeometry(geometry)
        self._build_toolbar()
        self.notice = NoticeBar()
        self.tabs = QTabWidget(objectName="tabs")
        self._pending_shortcuts: list[tuple[QAction, QKeySequence | QKeySequence.StandardKey]] = []
        self._playground: PlaygroundTab | None = None
        self._security: SecurityTab | None = None
        self.allow_flow: AllowAfterRefusal | None = None
        for label in TAB_LABELS:  # placeholders for the first frame; ensure_tabs() puts the real ones in
            self.tabs.addTab(QWidget(), label)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.notice)
        layout.addWidget(self.tabs)
        self.setCentralWidget(central)
        self._build_menus()
        session.bus.posted.connect(self.show_message)
        session.connection_changed.connect(self.show_connection)
        session.client_changed.connect(self._sync_profile_controls)
        session.profiles.changed.connect(self._fill_profiles)
        self._fill_profiles()
        self.statusBar().showMessage("Starting…")
        # Which engine answers in the sandbox (and a local model's loading), beside the passing messages.
        self.engine_label = QLabel(objectName="engine_label")
        self.statusBar().addPermanentWidget(self.engine_label)
        session.engine_changed.connect(self.engine_label.setText)

    def ensure_tabs(self) -> None:
        """Build the Playground and Security tabs (once). The app calls this right after the first frame."""
        if self._playground is not None:
            return
        for action, shortcut in self._pending_shortcuts:
            action.setShortcut(shortcut)
        self._pending_shortcuts.clear()
        from app.services.security import SecurityServices

        from .playground.tab import PlaygroundTab
        from .security.tab import SecurityTab

        current = self.ui_state.tab if 0 <= self.ui_state.tab < len(TAB_LABELS) else 0
        self._playground = PlaygroundTab(self.session)
        self._playground.restore_options(self.ui_state.playground)
        if self.ui_state.conversation:  # the conversation open at the last quit, if it is still saved
            self._playground.keeper.open(self.ui_state.conversation)
        # Kept as it changes, not only at quit: a console ended by the system (logout, kill) reopens it too.
        self._playground.keeper.opened.connect(self._remember_conversation)
        self._security = SecurityTab(self.session, SecurityServices.create(self.session, self))
        # The scope of the last launch, chosen once the projects load (its first read is still to come).
        self._security.service.restore_scope = self.ui_state.security_scope or None
        for index, (tab, label) in enumerate(
            zip((self._playground, self._security), TAB_LABELS, strict=True)
        ):
            placeholder = self.tabs.widget(index)
            self.tabs.removeTab(index)
            self.tabs.insertTab(index, tab, label)
            if placeholder:
                placeholder.deleteLater()
        self.tabs.setCurrentIndex(current)
        self._playground.allow_ip_requested.connect(self.allow_ip)
        self._connect_allow_flow()
        self._playground.settings_requested.connect(self.open_settings)
        if self.session.client is not None:  # the profile was activated before the tabs existed
            self._playground.reload_models()

    def _connect_allow_flow(self) -> None:
        """After a 403 in the Playground: the Security tab on the list that refused, then the request again."""
        from app.services.allow_flow import AllowAfterRefusal

        security = self.security
        flow = self.allow_flow = AllowAfterRefusal(security.service, self)
        flow.open_list.connect(self._open_list)
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
        assert self._security is not None
        return self._security

    def _build_toolbar(self) -> None:
        bar = QToolBar("Connection", objectName="connection_bar")
        bar.setMovable(False)
        self.profile_box = QComboBox(objectName="profile_box")
        self.profile_box.setMinimumWidth(200)
        self.profile_box.activated.connect(self._profile_chosen)
        self.indicator = QLabel("● Starting", objectName="indicator")
        # Plain text by construction: the indicator only ever shows the fixed state names below.
        check = QPushButton("Check", objectName="check_connection")
        check.clicked.connect(
            lambda: self.session.tasks.start("session.check", self.session.check_connection())
        )
        self.simulated_ip = QLineEdit(objectName="simulated_ip", placeholderText="simulated source IP")
        self.simulated_ip.setToolTip(
            "Local sandbox only: requests appear to come from this address "
            "(sent as X-Forwarded-For, which the embedded sandbox trusts)."
        )
        self.simulated_ip.setMaximumWidth(220)
        self.simulated_ip.editingFinished.connect(self._play_ip)
        self.simulated_label = QLabel(" Play IP: ")
        for widget in (
            QLabel(" Profile: "),
            self.profile_box,
            QLabel("  "),
            self.indicator,
            check,
            self.simulated_label,
            self.simulated_ip,
        ):
            bar.addWidget(widget)
        self.addToolBar(bar)

    def _action(self, text: str, shortcut: QKeySequence | QKeySequence.StandardKey) -> QAction:
        """A menu action whose shortcut is set after the first frame (ensure_tabs): the first setShortcut
        makes PySide6 build every Qt enum type, about 60-80 ms."""
        action = QAction(text, self)
        self._pending_shortcuts.append((action, shortcut))
        return action

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        settings = self._action("&Profiles…", QKeySequence("Ctrl+,"))
        settings.triggered.connect(self.open_settings)
        quit_action = self._action("&Quit", QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addActions([settings, quit_action])
        view = self.menuBar().addMenu("&View")
        for number, name in ((1, "Playground"), (2, "Security")):
            action = self._action(name, QKeySequence(f"Ctrl+{number}"))
            action.triggered.connect(lambda _=False, i=number - 1: self.tabs.setCurrentIndex(i))
            view.addAction(action)
        refresh = self._action("Check connection", QKeySequence("F5"))
        refresh.triggered.connect(
            lambda: self.session.tasks.start("session.check", self.session.check_connection())
        )
        view.addAction(refresh)
        help_menu = self.menuBar().addMenu("&Help")
        logs = QAction("Open log folder", self)
        logs.triggered.connect(self._open_logs)
        about = QAction("About", self)
        about.triggered.connect(self._about)
        help_menu.addActions([logs, about])

    def _play_ip(self) -> None:
        """Only an address plays: `999.1.1.1` would reach the service as "unknown" (and be offered as such)."""
        import ipaddress

        text = self.simulated_ip.text().strip()
        try:
            address = str(ipaddress.ip_address(text)) if text else ""
        except ValueError:
            self.simulated_ip.setStyleSheet("color: #cf222e;")
            self.session.bus.warning(
                f"“{text[:60]}” is not an IPv4 or IPv6 address: the simulated IP is unchanged."
            )
            return
        self.simulated_ip.setStyleSheet("")
        self.session.set_simulated_ip(address)
        self.session.tasks.start("session.check", self.session.check_connection())

    def _about(self) -> None:
        from PySide6.QtCore import qVersion
        from PySide6.QtWidgets import QMessageBox

        from app import __version__

        QMessageBox.about(
            self,
            "About Service Console",
            f"Service Console {__version__}\n\n"
            "A console for the service's Playground and IP allowlists, with a local sandbox.\n\n"
            f"Qt {qVersion()}",
        )

    def _open_logs(self) -> None:
        import logging

        for handler in logging.getLogger().handlers:
            path = getattr(handler, "baseFilename", None)
            if path:
                from PySide6.QtCore import QUrl
                from PySide6.QtGui import QDesktopServices

                QDesktopServices.openUrl(QUrl.fromLocalFile(str(path).rsplit("/", 1)[0]))

    # -- profiles and connection --------------------------------------------------------------------

    def _fill_profiles(self) -> None:
        self.profile_box.blockSignals(True)
        self.profile_box.clear()
        for profile in self.session.profiles.all():
            self.profile_box.addItem(profile.name, profile.id)
        index = self.profile_box.findData(self.session.profiles.current_id())
        self.profile_box.setCurrentIndex(max(0, index))
        self.profile_box.blockSignals(False)

    def _profile_chosen(self, index: int) -> None:
        profile_id = self.profile_box.itemData(index)
        if profile_id:
            self.session.tasks.start("session.activate", self.session.activate(profile_id))

    def _sync_profile_controls(self) -> None:
        profile = self.session.profile
        sandbox = profile is not None and profile.is_sandbox
        self.simulated_ip.setVisible(sandbox)
        self.simulated_label.setVisible(sandbox)
        if profile is not None:
            self.simulated_ip.setText(profile.simulated_ip)
        self._fill_profiles()

    def show_connection(self, state: str, detail: str) -> None:
        names = {
            ConnectionState.OK: "Connected",
            ConnectionState.CHECKING: "Checking",
            ConnectionState.DOWN: "Down",
            ConnectionState.BAD_KEY: "Bad key",
            ConnectionState.BLOCKED: "Blocked (403)",
            ConnectionState.NO_KEY: "No key",
            ConnectionState.ERROR: "Error",
        }
        self.indicator.setText(f"● {names.get(state, state)}")
        self.indicator.setToolTip(f"<p>{html.escape(detail)}</p>")  # a tooltip guesses rich text: say so
        self.indicator.setStyleSheet(f"color: {STATE_COLOURS.get(state, '#cf222e')};")
        self.statusBar().showMessage(detail, 10000)

    def show_message(self, level: str, text: str) -> None:
        self.statusBar().showMessage(text, 15000)
        if level == "error":
            self.notice.show_text(text)

    def open_settings(self) -> ProfilesDialog:
        from .settings.profiles_dialog import ProfilesDialog

        dialog = ProfilesDialog(self.session, self)
        dialog.show()
        return dialog

    def allow_ip(self, index: int) -> None:
        """Allow the address a turn was refused at, in the list that refused it (see AllowAfterRefusal)."""
        self.ensure_tabs()
        assert self.allow_flow is not None
        self.allow_flow.start(self.playground.service.turns[index])

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

    def _send_again(self, turn: Turn) -> None:
        """Every list that refused the turn admits its address now: the Playground runs it again, as Retry."""
        from app.services.turns import ErrorKind

        turns = self.playground.service.turns
        index = next((i for i, kept in enumerate(turns) if kept is turn), None)
        if index is None or turn.error_kind != ErrorKind.BLOCKED:  # edited, or a new conversation since
            return
        self.tabs.setCurrentWidget(self.playground)
        self.playground.retry(index)
        self.session.bus.info(f"{turn.source_ip} is allowed now: the refused request was sent again.")

    def _remember_conversation(self, conversation_id: str) -> None:
        self.ui_state.conversation = conversation_id

    def closeEvent(self, event: QCloseEvent) -> None:
        self.ui_state.window_geometry = self.saveGeometry()
        self.ui_state.tab = self.tabs.currentIndex()
        if self._security is not None:
            self.ui_state.security_scope = self._security.service.project_id or ""
        if self._playground is not None:
            self.ui_state.playground = self._playground.saved_options()
            self.ui_state.conversation = self._playground.keeper.current_id or ""
            self._playground.stop()
        super().closeEvent(event)
