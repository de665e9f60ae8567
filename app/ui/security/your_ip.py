"""Your IP: the address the service sees (with Add my IP), and your public IP as echo services see it."""

from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget


class YourIpPanel(QWidget):
    add_mine_clicked = Signal()
    look_up_clicked = Signal()
    echo_settings_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.my_ip = QLabel(objectName="my_ip")
        self.my_ip.setWordWrap(True)
        add_mine = QPushButton("Add my IP", objectName="add_mine")
        add_mine.clicked.connect(self.add_mine_clicked)
        ip_row = QHBoxLayout()
        ip_row.addWidget(self.my_ip, 1)
        ip_row.addWidget(add_mine)
        self.public_ip_label = QLabel(objectName="public_ip")
        self.public_ip_label.setWordWrap(True)
        look_up = QPushButton("Look up public IP", objectName="look_up")
        look_up.clicked.connect(self.look_up_clicked)
        echo_settings = QPushButton("Echo services…", objectName="echo_settings")
        echo_settings.clicked.connect(self.echo_settings_clicked)
        self.look_up = look_up
        # The buttons first, the answer after them: a longer or shorter answer never moves a button.
        public_row = QHBoxLayout()
        public_row.addWidget(look_up)
        public_row.addWidget(echo_settings)
        public_row.addWidget(self.public_ip_label, 1)
        for button in (add_mine, look_up, echo_settings):
            button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(ip_row)
        layout.addLayout(public_row)

    def show_source_ip(self, source_ip: str | None) -> None:
        # Rich text for the bold address; the address comes from the server, so it is escaped.
        seen = html.escape(source_ip) if source_ip else "unknown"
        self.my_ip.setText(
            f"Your IP as the service sees it: <b>{seen}</b>. It can differ from your machine's own address "
            "behind a proxy, VPN or NAT, and IPv4 and IPv6 are separate."
        )

    def allow_lookup(self, allowed: bool) -> None:
        """Hosted profiles only: for the local sandbox the button is off and says why."""
        self.look_up.setEnabled(allowed)
        self.look_up.setToolTip(
            "Asks the echo services which public address your requests come from"
            if allowed
            else "Not for the local sandbox: it sees you as loopback or its simulated IP"
        )

    def show_public_ip(
        self, text: str, seen: str | None, answers: dict[int, str], details: list[str] | None = None
    ) -> None:
        """`text`: the public IP service's sentence (rich text it escaped); `seen`: what the service saw;
        `details`: why a family found none, shown as the tooltip."""
        self.public_ip_label.setToolTip("\n".join(details or []))
        if seen and answers and seen not in answers.values():
            text += (
                f" They differ from the {html.escape(seen)} the service sees: your requests to it go through "
                "a proxy, VPN or NAT, or over the other IP family."
            )
        self.public_ip_label.setText(
            text
        )  # never hidden: an empty answer keeps its place, the buttons theirs

    def clear_public_ip(self) -> None:
        self.public_ip_label.clear()
