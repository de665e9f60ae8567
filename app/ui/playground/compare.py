"""Compare on another model: the window that picks the other model, runs the comparison and shows each turn
as a row (compare_row.py), the re-run streaming beside the original."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication, QScreen
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.common.wording import counted
from app.core.playground.compare import CompareSource, compare_title, default_model, plan_rows
from app.core.playground.cost import conversation_cost, short_usd, turn_cost
from app.core.playground.turns import TurnStatus
from app.services.playground.compare import CompareJob, CompareService
from app.services.prices import price_source

from .compare_row import MUTED, CompareRowView, side_status

# Rows are built as they are reached (scrolled to, or run), as the Playground's turns are: a row costs ~4 ms
# (two text views), so a 200-turn conversation would take ~0.8 s to open with every row built at once.
FIRST_ROWS = 12


class CompareDialog(QDialog):
    open_requested = Signal(str)  # the new conversation's id

    def __init__(
        self, service: CompareService, source: CompareSource, models: list[str], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.service = service
        self.source = source
        self.job: CompareJob | None = None
        self.prices = price_source(service.session)  # each answer's cost, as the Playground shows it
        self.prices.changed.connect(self._show_costs)
        self.setWindowTitle(f"Compare “{source.title}” on another model")
        self.setObjectName("compare_dialog")
        count = len(source.turns)
        intro = QLabel(f"Re-run its {count} turn{'s' if count != 1 else ''} on", objectName="intro")
        self.model = QComboBox(objectName="compare_model")
        self.model.addItems(models)
        self.model.setCurrentText(default_model(models, source.model))
        self.model.currentTextChanged.connect(self._plan)
        self.run_button = QPushButton("Run", objectName="run_compare")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run)
        self.stop_button = QPushButton("Stop", objectName="stop_compare", enabled=False)
        self.stop_button.setToolTip("Stop the comparison (Esc); the turns done so far stay saved")
        self.stop_button.clicked.connect(self.service.stop)
        top = QHBoxLayout()
        for widget in (intro, self.model, self.run_button, self.stop_button):
            top.addWidget(widget)
        top.addStretch(1)
        self.progress = QLabel(objectName="progress")
        self.progress.setTextFormat(Qt.TextFormat.PlainText)
        self.progress.setWordWrap(True)

        self.rows = plan_rows(source, self.model.currentText())
        self.views: list[CompareRowView] = []  # the rows built so far, from the first
        body = QWidget()
        self._column = QVBoxLayout(body)
        self._column.addStretch(1)
        scroll = QScrollArea(objectName="compare_rows")
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        scroll.verticalScrollBar().valueChanged.connect(self._maybe_more)
        self._scroll = scroll
        self.build_rows(FIRST_ROWS)

        self.open_button = QPushButton("Open the new conversation", objectName="open_compare", enabled=False)
        self.open_button.clicked.connect(self._open)
        close = QPushButton("Close", objectName="close_compare")
        close.clicked.connect(self.close)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.open_button)
        bottom.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.progress)
        layout.addWidget(scroll, 1)
        layout.addLayout(bottom)
        self._plan()
        self._fit_screen()

    def _fit_screen(self) -> None:
        # None while the dialog is on no screen yet, whatever the stub says
        screen: QScreen | None = (self.parentWidget() or self).screen()
        screen = screen or QGuiApplication.primaryScreen()
        room = screen.availableGeometry()
        self.resize(min(1100, room.width() - 40), min(760, room.height() - 60))

    def build_rows(self, count: int) -> None:
        """Build the rows up to `count` (they show their row's state: planned, run, or skipped)."""
        while len(self.views) < min(count, len(self.rows)):
            index = len(self.views)
            view = CompareRowView(index + 1, self.rows[index], self.prices.book())
            self._column.insertWidget(index, view)
            self.views.append(view)
            view.plan(self.rows[index], self.model.currentText())
            rerun = self.rows[index].rerun
            if rerun is None or rerun.status not in (TurnStatus.PENDING, TurnStatus.STREAMING):
                self._finished(index)  # a row reached after its re-run ended, or was skipped

    def _view(self, index: int) -> CompareRowView:
        self.build_rows(index + 1)
        return self.views[index]

    def _maybe_more(self, value: int) -> None:
        bar = self._scroll.verticalScrollBar()
        if value >= bar.maximum() - bar.pageStep():  # near the end: the next rows
            self.build_rows(len(self.views) + FIRST_ROWS)

    def _plan(self) -> None:
        model = self.model.currentText()
        self.rows = plan_rows(self.source, model)
        for view, row in zip(self.views, self.rows, strict=False):  # the rows not built yet plan when built
            view.plan(row, model)
        same = model == self.source.model
        self.progress.setText(
            f"{model} is the conversation's own model: the re-run shows how much its answers vary."
            if same
            else f"Each prompt is sent to {model} with its own options, on a thread of {model}'s answers."
        )

    # -- running ------------------------------------------------------------------------------------

    def run(self) -> None:
        model = self.model.currentText()
        job = self.service.start(self.source, model)
        if job is None:
            return
        self.job = job
        self.rows = job.rows
        for view, row in zip(self.views, self.rows, strict=False):
            view.plan(row, model)
        job.turn_started.connect(self._started)
        # Bound methods only: Qt drops them when the window is deleted, while a stopped job still reports.
        job.text_arrived.connect(self._text)
        job.turn_updated.connect(self._say)
        job.turn_finished.connect(self._finished)
        job.done.connect(self._done)
        self._set_running(True)
        self.progress.setText(f"Running on {model}…")

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.model.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.open_button.setEnabled(not running and self.job is not None)

    def _started(self, index: int) -> None:
        assert self.job is not None
        self.progress.setText(f"Turn {index + 1} of {len(self.rows)} on {self.job.model}…")
        self._view(index).rerun.start()  # the row that runs is built, and the rows before it
        self._say(index)

    def _text(self, index: int, chunk: str) -> None:
        self.views[index].rerun.answer.append_plain(chunk)

    def _say(self, index: int) -> None:
        rerun = self.rows[index].rerun
        if rerun is not None and index < len(self.views):
            self.views[index].rerun.say(*side_status(rerun, self.prices.book()))

    def _finished(self, index: int) -> None:
        """A row's re-run ended, or was skipped; a row not built yet shows it when it is built."""
        if index >= len(self.views):
            return
        row, side = self.rows[index], self.views[index].rerun
        if row.rerun is not None:
            side.show_turn(row.rerun, self.prices.book())
        elif row.skipped:
            side.say(row.skipped, MUTED)

    def _done(self) -> None:
        job = self.job
        if job is None:
            return
        self._set_running(False)
        ran = [row.rerun for row in self.rows if row.rerun is not None]
        answered = sum(1 for turn in ran if turn.status == TurnStatus.COMPLETED)
        title = compare_title(self.source.title, job.model)
        self.progress.setText(
            f"Saved as “{title}” in the sidebar: {answered} of {counted(len(self.rows), 'turn')} answered."
            + self._costs_text()
        )

    def _costs_text(self) -> str:
        """Both sides' costs, when the prices are known and an answer on each side had one."""
        prices = self.prices.book()
        if prices is None:
            return ""
        sides = [
            [row.original for row in self.rows],
            [row.rerun for row in self.rows if row.rerun is not None],
        ]
        original, rerun = (conversation_cost(turn_cost(turn, prices) for turn in turns) for turns in sides)
        if not original.priced or not rerun.priced:
            return ""
        unknown = " (some answers' cost unknown)" if original.unknown or rerun.unknown else ""
        return f" Cost: original {short_usd(original.usd)}, re-run {short_usd(rerun.usd)}{unknown}."

    def _show_costs(self) -> None:
        """Other prices: every finished answer's line says its cost again."""
        prices = self.prices.book()
        for view, row in zip(self.views, self.rows, strict=False):
            view.original.show_figures(row.original, prices)
            if row.rerun is not None and row.rerun.status not in (TurnStatus.PENDING, TurnStatus.STREAMING):
                view.rerun.show_figures(row.rerun, prices)
        if self.job is not None and not self.running:
            self._done()  # its summary's costs

    def _open(self) -> None:
        if self.job is not None:
            self.open_requested.emit(self.job.conversation_id)

    # -- closing ------------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.job is not None and self.job.running

    def reject(self) -> None:
        """Esc stops a comparison under way; pressed again (or when none runs), it closes."""
        if self.running:
            self.service.stop()
            return
        super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.running:
            self.service.stop()  # the turns done so far stay saved
        super().closeEvent(event)


def show_compare(
    parent: QWidget,
    service: CompareService,
    conversation_id: str | None,
    models: list[str],
    open_conversation: Callable[[str], object],
) -> CompareDialog | None:
    """The compare window for a saved conversation (the open one by default); a notice when there is none."""
    source = service.source(conversation_id)
    if source is None:
        service.session.bus.info(
            "Nothing to compare yet: send a message first, or right-click a saved conversation."
        )
        return None
    dialog = CompareDialog(service, source, models, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open_requested.connect(open_conversation)
    dialog.show()
    return dialog
