"""The connection toolbar: the profile switcher, the connection state, Check, and the sandbox's Play IP."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QPushButton, QToolBar, QWidget

from app.services.session.session import ConnectionState, ConsoleSession
from app.ui.colours import Ink, css
from app.ui.widgets.combo_items import show_items

STATE_COLOURS = {ConnectionState.OK: Ink.GOOD, ConnectionState.CHECKING: Ink.CAUTION}
STATE_NAMES = {
    ConnectionState.OK: "Connected",
    ConnectionState.CHECKING: "Checking",
    ConnectionState.DOWN: "Down",
    ConnectionState.BAD_KEY: "Bad key",
    ConnectionState.BLOCKED: "Blocked (403)",
    ConnectionState.NO_KEY: "No key",
    ConnectionState.ERROR: "Error",
}


class ConnectionBar(QToolBar):
    """Chooses the profile and shows its connection; with the sandbox, plays a source IP."""

    def __init__(self, session: ConsoleSession, parent: QWidget | None = None) -> None:
        super().__init__("Connection", parent, objectName="connection_bar")
        self.session = session
        self.setMovable(False)
        self.profile_box = QComboBox(objectName="profile_box")
        self.profile_box.setMinimumWidth(200)
        self.profile_box.setAccessibleName("Profile")
        self.profile_box.activated.connect(self._profile_chosen)
        self.indicator = QLabel("● Starting", objectName="indicator")
        # Plain text by construction: the indicator only ever shows the fixed state names above.
        check = QPushButton("Check", objectName="check_connection")
        check.clicked.connect(lambda: session.tasks.start("session.check", session.check_connection()))
        self.simulated_ip = QLineEdit(objectName="simulated_ip", placeholderText="simulated source IP")
        self.simulated_ip.setAccessibleName("Simulated source IP")
        self.simulated_ip.setToolTip(
            "Local sandbox only: the Playground's requests appear to come from this address "
            "(sent as X-Forwarded-For, which the embedded sandbox trusts); the console's own Admin API calls, "
            "the Security tab's, keep coming from this machine."
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
            self.addWidget(widget)

    def fill_profiles(self) -> None:
        """The profiles, the current one chosen. Left as they are when nothing changed (each activation and
        each save of the profiles asks again): emptied and filled again, the box would measure its items anew
        and relay the toolbar."""
        box = self.profile_box
        saved = self.session.profiles.settings.load()  # the list and the current one, in one read
        show_items(box, [(profile.name, profile.id) for profile in saved.profiles])
        index = max(0, box.findData(saved.current_profile))
        if index != box.currentIndex():
            box.blockSignals(True)
            box.setCurrentIndex(index)
            box.blockSignals(False)

    def _profile_chosen(self, index: int) -> None:
        profile_id = self.profile_box.itemData(index)
        if profile_id:
            self.session.tasks.start("session.activate", self.session.activate(profile_id))

    def sync_profile_controls(self) -> None:
        """The profile changed: Play IP shows for the sandbox only, with the address it plays."""
        profile = self.session.profile
        sandbox = profile is not None and profile.is_sandbox
        for widget in (self.simulated_ip, self.simulated_label):  # each show or hide relays the toolbar
            if widget.isHidden() == sandbox:
                widget.setVisible(sandbox)
        if profile is not None and self.simulated_ip.text() != profile.simulated_ip:
            self.simulated_ip.setText(profile.simulated_ip)
        self.fill_profiles()

    def show_state(self, state: ConnectionState, detail: str) -> None:
        import html  # here: the states come after the first frame, which need not wait for html (~3 ms)

        name = STATE_NAMES[state]
        if state == ConnectionState.BLOCKED and self.session.blocked_key:  # which key: they are refused apart
            name = f"Blocked: {self.session.blocked_key} key (403)"
        self.indicator.setText(f"● {name}")
        self.indicator.setToolTip(f"<p>{html.escape(detail)}</p>")  # a tooltip guesses rich text: say so
        sheet = css(STATE_COLOURS.get(ConnectionState(state), Ink.BAD))
        if sheet != self.indicator.styleSheet():  # a sheet set again polishes the label again, and relays it
            self.indicator.setStyleSheet(sheet)

    def _play_ip(self) -> None:
        """Only an address plays: `999.1.1.1` would reach the service as "unknown" (and be offered as such)."""
        import ipaddress

        text = self.simulated_ip.text().strip()
        try:
            address = str(ipaddress.ip_address(text)) if text else ""
        except ValueError:
            self.simulated_ip.setStyleSheet(css(Ink.BAD))
            self.session.bus.warning(
                f"“{text[:60]}” is not an IPv4 or IPv6 address: the simulated IP is unchanged."
            )
            return
        self.simulated_ip.setStyleSheet("")
        self.session.set_simulated_ip(address)
        self.session.tasks.start("session.check", self.session.check_connection())
