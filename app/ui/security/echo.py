"""Settings of the public IP echo services: on or off, one list for IPv4 and one for IPv6."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QWidget,
)

from app.services.security.public_ip import EchoSettings

HELP = (
    "Echo services answer with the address they see you at. The console asks the IPv4 list over IPv4 only "
    "and the IPv6 list over IPv6 only, through the profile's proxy, in order until one answers. They are "
    "never asked for the local sandbox, nor while the service is unreachable. One URL per line."
)


class EchoSettingsDialog(QDialog):
    def __init__(self, settings: EchoSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Public IP echo services")
        self.setObjectName("echo_dialog")
        self.enabled = QCheckBox(
            "Look up my public IP when the Security tab opens", objectName="echo_enabled"
        )
        self.enabled.setChecked(settings.enabled)
        self.ipv4 = QPlainTextEdit("\n".join(settings.ipv4), objectName="echo_ipv4")
        self.ipv6 = QPlainTextEdit("\n".join(settings.ipv6), objectName="echo_ipv6")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow(QLabel(HELP, wordWrap=True))
        form.addRow(self.enabled)
        form.addRow("IPv4 services", self.ipv4)
        form.addRow("IPv6 services", self.ipv6)
        form.addRow(buttons)

    def result_settings(self) -> EchoSettings:
        def urls(edit: QPlainTextEdit) -> list[str]:
            return [line.strip() for line in edit.toPlainText().splitlines() if line.strip()]

        return EchoSettings(self.enabled.isChecked(), urls(self.ipv4), urls(self.ipv6))
