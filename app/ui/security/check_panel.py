"""Check an IP: what the organization's list, and the project's when one is chosen, say of an address."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGroupBox, QLineEdit, QVBoxLayout, QWidget

from app.core.security.checks import IpCheck, ListCheck
from app.netrules.policy import Verdict

from .scope_bar import plain_label


def describe(check: ListCheck) -> str:
    said = check.answer
    if not said.enabled:
        return f"{check.label}: list off, allowed."
    if said.admitted_by is not None:
        return f"{check.label}: allowed by {said.admitted_by}."
    if said.expired is not None:  # it held the address until its expiry: say why it no longer admits
        return f"{check.label}: blocked ({said.expired} expired)."
    return f"{check.label}: blocked" + (f" (nearest entry: {said.nearest})." if said.nearest else ".")


class CheckIpPanel(QGroupBox):
    typed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Check an IP", parent)
        self.input = QLineEdit(objectName="check_ip", placeholderText="an address, e.g. 198.51.100.7")
        self.input.textChanged.connect(self.typed)
        self.result = plain_label("check_result")
        layout = QVBoxLayout(self)
        layout.addWidget(self.input)
        layout.addWidget(self.result)
        layout.addStretch(1)  # beside the taller add form: the answer sits under the field

    def show_check(self, check: IpCheck | None) -> None:
        if check is None:
            self.result.clear()
        elif check.error:
            self.result.setText(f"✗ {check.error}")
        else:
            together = "ALLOWED" if check.verdict is Verdict.ADMITTED else "BLOCKED"
            refused = {
                Verdict.ORGANIZATION: " by the organization's list",
                Verdict.PROJECT: " by the project's list",
                Verdict.BOTH: " by both lists",
            }
            lines = [describe(item) for item in check.lists]
            lines.append(f"Together: {together}{refused.get(check.verdict, '')}")
            self.result.setText("\n".join(lines))
