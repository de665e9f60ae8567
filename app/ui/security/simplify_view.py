"""Simplify…: the fewest entries admitting exactly the addresses the shown list admits, previewed before
anything is sent: each new range and the entries it replaces, the count before and after, and the entry
limit. Entries with different expiries never merge, so nothing is ever admitted longer or wider."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.netrules.simplify import Simplification
from app.ui.screen_fit import fit_to_screen


class SimplifyDialog(QDialog):
    def __init__(self, plan: Simplification, limit: int, scope: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Simplify the allowlist: {scope}")
        self.setObjectName("simplify_dialog")
        fit_to_screen(self, 720, 420)
        self.plan = plan
        summary = QLabel(objectName="simplify_summary")
        summary.setWordWrap(True)
        if plan.merges:
            summary.setText(
                f"{plan.before:,} entries become {plan.after:,} (limit {limit:,}), admitting exactly the same "
                "addresses: no address is added, and entries that expire at different times stay apart."
            )
        else:
            summary.setText(
                f"Nothing to simplify: the {plan.before:,} entries (limit {limit:,}) are already the fewest "
                "ranges for the addresses they admit."
            )
        self.tree = QTreeWidget(objectName="simplify_preview")
        self.tree.setAccessibleName("New ranges and the entries they replace")
        self.tree.setHeaderLabels(["New range / replaces", "Description"])
        for merge in plan.merges:
            top = QTreeWidgetItem([merge.cidr, merge.description])
            for entry in merge.replaces:
                top.addChild(QTreeWidgetItem([f"  {entry.cidr}", entry.description]))
            self.tree.addTopLevelItem(top)
        self.tree.expandAll()
        self.tree.resizeColumnToContents(0)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.apply = buttons.addButton("Simplify", QDialogButtonBox.ButtonRole.AcceptRole)
        self.apply.setObjectName("simplify_apply")
        self.apply.setEnabled(bool(plan.merges))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(summary)
        layout.addWidget(self.tree, 1)
        layout.addWidget(buttons)
