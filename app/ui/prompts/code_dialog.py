"""Get code for a stored prompt: the request that uses it through the `prompt` parameter, in each language,
with the key read from an environment variable (never written into the code)."""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPlainTextEdit, QTabWidget, QVBoxLayout, QWidget

from app.ui.screen_fit import fit_to_screen


class PromptCodeDialog(QDialog):
    def __init__(self, snippets: dict[str, str], title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="prompt_code_dialog")
        self.setWindowTitle(f"Get code — {title}")
        self.tabs = QTabWidget(objectName="prompt_code_tabs")
        self.views: dict[str, QPlainTextEdit] = {}
        for language, code in snippets.items():
            view = QPlainTextEdit(code, readOnly=True, objectName=f"prompt_code_{language}")
            view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
            view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
            self.views[language] = view
            self.tabs.addTab(view, language)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(buttons)
        fit_to_screen(self, 820, 560)
