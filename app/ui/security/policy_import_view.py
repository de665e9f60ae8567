"""Import of a policy file (.toml) into the shown list: the plan, line by line (`+` added, `-` removed with
whom it admitted lately, `~` changed or switched), then Apply makes exactly that as one change. A plan that
would lock this machine out is not applied from here (the command line's `apply --force` can)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from app.core.security.policy_plan import ListPlan, plan_lines
from app.services.security.list_tools import ListTools
from app.services.security.policy_import import PolicyImport
from app.ui.screen_fit import fit_to_screen


class PolicyImportDialog(QDialog):
    def __init__(
        self,
        importer: PolicyImport,
        tools: ListTools,
        plan: ListPlan,
        name: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Import {name} into {plan.label}")
        self.setObjectName("policy_import_dialog")
        fit_to_screen(self, 760, 460)
        self.importer, self.tools, self.plan = importer, tools, plan
        self.summary = QLabel(objectName="policy_import_summary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.preview = QPlainTextEdit(objectName="policy_import_preview", readOnly=True)
        self.preview.setAccessibleName("What the import would change")
        self.preview.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.apply = buttons.addButton("Apply", QDialogButtonBox.ButtonRole.AcceptRole)
        self.apply.setObjectName("policy_import_apply")
        self.apply.setEnabled(plan.changes and not plan.locks_out)
        buttons.accepted.connect(self._apply)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.preview, 1)
        layout.addWidget(buttons)
        tools.sources_read.connect(self._show)
        self._show()
        if plan.remove:
            tools.read_sources()

    def _show(self) -> None:
        plan = self.plan
        if not plan.changes:
            said = "Nothing would change: the list is as the file says."
        elif plan.locks_out:
            said = (
                f"This would lock this machine ({plan.source_ip or 'an unknown address'}) out, so it is not "
                "applied from here; `service-console allowlist apply FILE --force` can."
            )
        else:
            said = f"Apply makes exactly these changes, all or none, on the list as read (version {plan.version})."
        self.summary.setText(said)
        lines = plan_lines(plan)
        if plan.remove:
            after = [(e.cidr, e.expires_at) for e in plan.policy.entries]
            evidence = self.tools.evidence(list(plan.remove), after, plan.enabled_after)
            lines += ["", "What the removed entries admitted:", *evidence]
        self.preview.setPlainText("\n".join(lines))

    def _apply(self) -> None:
        self.importer.apply(self.plan)
        self.accept()

    def done(self, result: int) -> None:
        self.tools.sources_read.disconnect(self._show)
        super().done(result)
