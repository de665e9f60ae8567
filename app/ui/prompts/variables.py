"""A field per `{{variable}}` of the prompt: the values a Send fills in. The fields follow the text as it is
edited; a value typed stays while its variable is still there."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit, QWidget


class VariablesForm(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fields: dict[str, QLineEdit] = {}
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.empty = QLabel("No {{variables}} in this prompt.", objectName="no_variables")
        self.form.addRow(self.empty)

    def set_names(self, names: list[str]) -> None:
        if names == list(self.fields):
            return
        kept = self.values()
        while self.form.rowCount() > 1:
            self.form.removeRow(1)
        self.fields = {}
        for name in names:
            field = QLineEdit(kept.get(name, ""), objectName=f"variable_{name}", placeholderText=name)
            self.fields[name] = field
            self.form.addRow(name, field)
        self.empty.setVisible(not names)

    def values(self) -> dict[str, str]:
        return {name: field.text() for name, field in self.fields.items()}
