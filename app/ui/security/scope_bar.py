"""The top of the Security tab: the scope, the list's switch, the actions, the effective rule, and the
banner of a rotation in progress. It only draws; the tab decides what its signals mean."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.security.checks import Rule
from app.ui.colours import Ink, css
from app.ui.widgets.combo_items import show_items
from app.ui.widgets.flow_layout import flow_row

# The windows the bar opens, by button: one line of buttons at 800x600 leaves the entries table its rows, so
# the list's tools and the credentials' windows sit behind a menu each (Space or Enter opens it, arrows and
# each item's underlined letter choose), as admin consoles group theirs.
MENUS = (
    (
        "List",
        "list_tools",
        (
            ("&Import…", "import"),
            ("&Export…", "export"),
            ("&Simplify…", "simplify"),
            ("&History…", "history"),
            ("&Refused requests…", "refused"),
        ),
    ),
    ("Credentials", "credentials", (("&Keys…", "keys"), ("&Certificates…", "certificates"))),
)
ACTIONS = (("Rotate an IP…", "rotate"), *(item for _l, _n, items in MENUS for item in items))


def plain_label(name: str) -> QLabel:
    """A wrapping label that shows its text as text, whatever markup a server put in it."""
    label: QLabel = QLabel(objectName=name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


class ScopeBar(QWidget):
    scope_chosen = Signal(str)  # a project id, or "" for the organization
    switch_clicked = Signal(bool)
    refresh_clicked = Signal()
    action = Signal(str)  # one of ACTIONS' names
    resume_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scope = QComboBox(objectName="scope")
        self.scope.setAccessibleName("Scope")
        self.scope.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.scope.activated.connect(lambda _i: self.scope_chosen.emit(self.scope.currentData() or ""))
        self.switch = QCheckBox("Allowlist on", objectName="switch")
        self.switch.clicked.connect(self.switch_clicked)
        refresh = QPushButton("Refresh", objectName="refresh")
        refresh.clicked.connect(self.refresh_clicked)
        rotate = QPushButton("Rotate an IP…", objectName="rotate")
        rotate.clicked.connect(lambda: self.action.emit("rotate"))
        buttons = [rotate]
        self.menu_actions: dict[str, QAction] = {}  # by name, to reach an item behind its menu
        for label, name, items in MENUS:
            button = QPushButton(label, objectName=name)
            button.setAccessibleName(f"{label} menu")
            menu = QMenu(button, objectName=f"{name}_menu")
            for text, item in items:
                action = menu.addAction(text)
                action.setObjectName(item)
                action.triggered.connect(lambda _=False, n=item: self.action.emit(n))
                self.menu_actions[item] = action
            button.setMenu(menu)
            buttons.append(button)
        # One line where there is room, wrapping in a narrow window (twice the scale on a laptop's screen).
        top = flow_row(QLabel("Scope"), self.scope, self.switch, refresh, *buttons)

        self.rotation_banner = plain_label("rotation_banner")
        self.rotation_banner.setStyleSheet(css(Ink.CAUTION))
        resume = QPushButton("Resume rotation…", objectName="resume_rotation")
        resume.clicked.connect(self.resume_clicked)
        self.rotation_row = QWidget()
        banner = QHBoxLayout(self.rotation_row)
        banner.setContentsMargins(0, 0, 0, 0)
        banner.addWidget(self.rotation_banner, 1)
        banner.addWidget(resume)
        self.rotation_row.setVisible(False)

        self.rule = plain_label("rule")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(top)
        layout.addWidget(self.rotation_row)
        layout.addWidget(self.rule)

    def show_scopes(self, projects: list[tuple[str, str]], chosen: str | None) -> None:
        """`projects`: (id, label) of each project; the organization comes first."""
        # Every read shows the scopes again (each poll, each change): the same projects keep their items.
        show_items(
            self.scope, [("Organization", None), *((f"Project: {label}", id_) for id_, label in projects)]
        )
        self.scope.blockSignals(True)
        self.scope.setCurrentIndex(max(0, self.scope.findData(chosen)))
        self.scope.blockSignals(False)

    def show_switch(self, on: bool) -> None:
        self.switch.setChecked(on)

    def show_rule(self, rule: Rule) -> None:
        if not rule.project:
            state = "on" if rule.organization_on else "off"
            self.rule.setText(f"The organization's list is {state}: it applies to every project and key.")
            return
        text = (
            "Effective rule for this project: an address must pass the organization's list "
            f"({'on' if rule.organization_on else 'off'}) AND this project's list "
            f"({'on' if rule.project_on else 'off'})."
        )
        never = rule.never_admitted
        if never:
            text += f" ⚠ The organization's list never admits: {', '.join(never[:5])}" + (
                " …" if len(never) > 5 else ""
            )
        self.rule.setText(text)

    def show_rotation(self, text: str | None) -> None:
        """The banner of a rotation in progress; None hides it."""
        self.rotation_row.setVisible(text is not None)
        if text is not None:
            self.rotation_banner.setText(text)
