"""What an eval runs: the dataset (a table of variable values and the expected answer, typed here or loaded
from CSV or JSONL), the variants (prompt versions × models) and the graders."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.evals.dataset import EXPECTED, Dataset, Row
from app.core.evals.graders import Grader, GraderError, parse_grader
from app.core.evals.run import Variant
from app.core.prompts.draft import StoredPrompt


class EvalSetup(QWidget):
    def __init__(
        self, versions: list[StoredPrompt], models: list[str], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.prompt_versions = versions
        names = versions[0].variables if versions else ()
        self.columns = [*names, EXPECTED]
        self.rows = QTableWidget(1, len(self.columns), objectName="eval_rows")
        self.rows.setHorizontalHeaderLabels(self.columns)
        self.add_row = QPushButton("&Add row", objectName="eval_add_row")
        self.load_button = QPushButton("&Load CSV or JSONL…", objectName="eval_load")
        self.versions = QListWidget(objectName="eval_versions")
        for index, stored in enumerate(versions):
            item = QListWidgetItem(f"Version {stored.version}" + (f" — {stored.note}" if stored.note else ""))
            item.setCheckState(Qt.CheckState.Checked if index == 0 else Qt.CheckState.Unchecked)
            self.versions.addItem(item)
        self.models = QLineEdit(", ".join(models[:1]), objectName="eval_models")
        self.models.setPlaceholderText("Models, separated by commas")
        self.graders = QLineEdit("contains", objectName="eval_graders")
        self.graders.setPlaceholderText("exact; contains; regex:…; json; number:0.1; rubric:…")
        self.concurrency = QSpinBox(objectName="eval_concurrency", minimum=1, maximum=32, value=8)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_row)
        buttons.addWidget(self.load_button)
        buttons.addStretch(1)
        form = QFormLayout()
        form.addRow("&Versions", self.versions)
        form.addRow("&Models", self.models)
        form.addRow("&Graders", self.graders)
        form.addRow("At a &time", self.concurrency)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.rows, 1)
        layout.addLayout(buttons)
        layout.addLayout(form)
        self.add_row.clicked.connect(lambda: self.rows.insertRow(self.rows.rowCount()))

    def dataset(self) -> Dataset:
        """The table's rows that hold something; a variable left empty is sent empty."""
        rows = []
        for index in range(self.rows.rowCount()):
            texts = [self._text(index, column) for column in range(len(self.columns))]
            if not any(texts):
                continue
            values = dict(zip(self.columns[:-1], texts[:-1], strict=True))
            rows.append(Row(values, texts[-1] or None))
        return Dataset(rows)

    def show_dataset(self, dataset: Dataset) -> None:
        self.rows.setRowCount(len(dataset.rows))
        for index, row in enumerate(dataset.rows):
            for column, name in enumerate(self.columns):
                value = row.expected if name == EXPECTED else row.values.get(name)
                self.rows.setItem(index, column, QTableWidgetItem(value or ""))

    def variants(self) -> list[Variant]:
        models = [model.strip() for model in self.models.text().split(",") if model.strip()]
        chosen = [
            stored
            for index, stored in enumerate(self.prompt_versions)
            if self.versions.item(index).checkState() == Qt.CheckState.Checked
        ]
        return [Variant(stored, model) for stored in chosen for model in models]

    def grader_list(self) -> list[Grader]:
        """Raises GraderError naming the one written wrong."""
        specs = [spec.strip() for spec in self.graders.text().split(";") if spec.strip()]
        if not specs:
            raise GraderError("Name at least one grader (contains, exact, regex:…).")
        return [parse_grader(spec) for spec in specs]

    def _text(self, row: int, column: int) -> str:
        item = self.rows.item(row, column)
        return item.text().strip() if item is not None else ""
