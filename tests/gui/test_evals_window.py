"""The Evals window as a person uses it, on the embedded sandbox: rows typed, two models, a run filling the
grid, its summary, the run saved, reopened and exported."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit, QTableWidget, QTableWidgetItem
from pytestqt.qtbot import QtBot

from app.api.prompts import StoredPrompt
from app.common.prices import default_prices
from app.core.evals.sent import SentRequest
from app.core.profile import Profile
from app.services.session.ui_state import PlaygroundState
from app.ui.eval_handoff import playground_state
from app.ui.main_window import MainWindow
from app.ui.prompts.eval_dialog import EvalDialog
from tests.gui.reach import client_of, profile_of
from tests.gui.test_playground_servers import choose_profile
from tests.gui.test_prompts_tab import prompts_tab, save


def shown(grid: QTableWidget, row: int, column: int) -> QTableWidgetItem:
    item = grid.item(row, column)
    assert item is not None, f"no cell at {row}, {column}"
    return item


def type_cell(qtbot: QtBot, table: QTableWidget, row: int, column: int, text: str) -> None:
    """Go to the cell, F2, type, Tab (to the next cell, left with Escape): as a person fills a row from the
    keyboard."""
    table.window().activateWindow()
    qtbot.waitUntil(table.window().isActiveWindow)
    table.setFocus()
    table.setCurrentCell(row, column)
    qtbot.keyClick(table, Qt.Key.Key_F2)
    editor = QApplication.focusWidget()
    assert isinstance(editor, QLineEdit)
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    following = QApplication.focusWidget()
    assert following is not None
    qtbot.keyClick(following, Qt.Key.Key_Escape)


def evals_window(qtbot: QtBot, console: MainWindow) -> EvalDialog:
    tab = prompts_tab(console)
    qtbot.mouseClick(tab.new_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(tab.editor.name, "Echo")
    qtbot.keyClicks(tab.editor.message, "Say {{word}} please")
    save(qtbot, tab, "first", 1)
    qtbot.mouseClick(tab.evaluate_button, Qt.MouseButton.LeftButton)
    assert tab.eval_dialog is not None
    return tab.eval_dialog


def test_a_run_fills_the_grid_and_is_saved_reopened_and_exported(
    qtbot: QtBot, console: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialog = evals_window(qtbot, console)
    setup = dialog.setup
    assert setup.columns == ["word", "expected"]
    type_cell(qtbot, setup.rows, 0, 0, "apple")
    type_cell(qtbot, setup.rows, 0, 1, "apple")
    qtbot.mouseClick(setup.add_row, Qt.MouseButton.LeftButton)
    type_cell(qtbot, setup.rows, 1, 0, "pear")
    type_cell(qtbot, setup.rows, 1, 1, "plum")
    setup.models.clear()
    qtbot.keyClicks(setup.models, "service-pro, service-ultra")
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.status.text().startswith("Running"), timeout=10000)
    assert dialog.status.text().startswith("Done"), dialog.status.text()
    grid = dialog.grid
    assert (grid.rowCount(), grid.columnCount()) == (2, 2)
    assert [shown(grid, row, 0).text() for row in range(2)] == ["pass", "fail"]
    assert "ms" in shown(grid, 0, 1).toolTip() and "apple" in shown(grid, 0, 1).toolTip()
    assert "Echo v1 · service-pro: 1/2 passed (50%)" in dialog.summary.text()

    saved, exported = tmp_path / "run.json", tmp_path / "run.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a, **_k: (str(saved), ""))
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a, **_k: (str(exported), ""))
    qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    assert len(list(csv.DictReader(io.StringIO(exported.read_text())))) == 4

    again = evals_window(qtbot, console)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_a, **_k: (str(saved), ""))
    qtbot.mouseClick(again.open_button, Qt.MouseButton.LeftButton)
    assert again.status.text() == "Reopened: 4 of 4 answered."
    assert [shown(again.grid, row, 0).text() for row in range(2)] == ["pass", "fail"]


def test_a_grader_written_wrong_is_named_and_nothing_runs(qtbot: QtBot, console: MainWindow) -> None:
    dialog = evals_window(qtbot, console)
    type_cell(qtbot, dialog.setup.rows, 0, 0, "apple")
    dialog.setup.graders.clear()
    qtbot.keyClicks(dialog.setup.graders, "regex:(")
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    assert "not a regular expression" in dialog.status.text() and dialog.grid.rowCount() == 0


def test_a_dataset_loaded_from_a_file_and_a_run_stopped(
    qtbot: QtBot, console: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialog = evals_window(qtbot, console)
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(f'{{"word": "w{i}", "expected": "w{i}"}}\n' for i in range(40)))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_a, **_k: (str(rows), ""))
    qtbot.mouseClick(dialog.setup.load_button, Qt.MouseButton.LeftButton)
    assert dialog.setup.rows.rowCount() == 40 and dialog.setup.rows.item(39, 0).text() == "w39"
    dialog.setup.concurrency.setValue(1)
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.status.text().startswith("Running"), timeout=10000)
    assert dialog.status.text().startswith("Stopped"), dialog.status.text()
    assert dialog.run is not None and len(dialog.run.cells) < 40 and dialog.run_button.isEnabled()


def run_and_wait(qtbot: QtBot, dialog: EvalDialog) -> None:
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.status.text().startswith("Running"), timeout=10000)
    assert dialog.status.text().startswith("Done"), dialog.status.text()


def test_a_second_run_says_what_changed_and_a_cell_opens_in_the_playground(
    qtbot: QtBot, console: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialog = evals_window(qtbot, console)
    setup = dialog.setup
    type_cell(qtbot, setup.rows, 0, 0, "apple")
    type_cell(qtbot, setup.rows, 0, 1, "apple")
    qtbot.mouseClick(setup.add_row, Qt.MouseButton.LeftButton)
    type_cell(qtbot, setup.rows, 1, 0, "pear")
    type_cell(qtbot, setup.rows, 1, 1, "plum")
    run_and_wait(qtbot, dialog)
    assert "out tokens, $0.000" in shown(dialog.grid, 0, 0).toolTip()  # priced at the sandbox's table
    assert "vs previous run" not in dialog.summary.text()  # nothing before it

    setup.graders.clear()
    qtbot.keyClicks(setup.graders, "contains:pear")
    run_and_wait(qtbot, dialog)
    grid = dialog.grid
    assert [shown(grid, row, 0).text() for row in range(2)] == ["fail ▼", "pass ▲"]
    assert "pass→fail" in shown(grid, 0, 0).toolTip() and "fail→pass" in shown(grid, 1, 0).toolTip()
    assert shown(grid, 0, 0).background().color() == shown(grid, 1, 0).background().color()
    assert "vs previous run: pass rate ±0 pts" in dialog.summary.text()
    assert "1 fail→pass, 1 pass→fail" in dialog.summary.text()

    saved = tmp_path / "second.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a, **_k: (str(saved), ""))
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_a, **_k: (str(saved), ""))
    qtbot.mouseClick(dialog.compare_button, Qt.MouseButton.LeftButton)  # against itself: nothing flipped
    assert dialog.status.text() == "Compared with second.json."
    assert [shown(grid, row, 0).text() for row in range(2)] == ["fail", "pass"]
    assert "0 fail→pass, 0 pass→fail" in dialog.summary.text()

    grid.setCurrentCell(1, 0)
    assert dialog.playground_button.isEnabled()
    qtbot.mouseClick(dialog.playground_button, Qt.MouseButton.LeftButton)
    playground = console.playground
    assert console.tabs.currentIndex() == 0
    use = playground.prompt_source.use  # the version in use, the row's values in its form
    assert use is not None and list(use.values.values()) == ["pear"] and use.stored.version == "1"
    assert playground.message.toPlainText() == ""  # the prompt's message goes; nothing typed after it
    assert playground.model.currentText() == "service-pro"
    console.tabs.setCurrentIndex(2)
    cell = grid.visualItemRect(shown(grid, 0, 0)).center()
    # A view takes a double-click after the press of its first click, as a mouse sends them.
    qtbot.mouseClick(grid.viewport(), Qt.MouseButton.LeftButton, pos=cell)
    qtbot.mouseDClick(grid.viewport(), Qt.MouseButton.LeftButton, pos=cell)
    use = playground.prompt_source.use
    assert console.tabs.currentIndex() == 0 and use is not None and list(use.values.values()) == ["apple"]


def test_a_cell_sent_with_options_opens_with_them_in_the_playground() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    stored = StoredPrompt(
        id="pmpt_1",
        version="3",
        instructions="Answer about {{city}}.",
        input="Where is {{city}}?",
        options={
            "temperature": 0.4,
            "max_output_tokens": 300,
            "reasoning": {"effort": "low"},
            "text": {"format": {"type": "json_schema", "name": "place", "schema": schema}},
        },
        variables=("city",),
    )
    sent = SentRequest(stored, {"city": "Lima"}, "service-think", {"temperature": 0.9})
    state = playground_state(PlaygroundState(web_search=True), sent)
    assert (state.model, state.instructions, state.web_search) == (
        "service-think",
        "",  # the version's own instructions go with it
        True,
    )
    assert (state.temperature, state.max_output_tokens, state.reasoning_effort) == (0.9, 300, "low")
    assert state.structured and json.loads(state.schema) == schema
    plain = playground_state(
        PlaygroundState(structured=True), SentRequest(stored.model_copy(update={"options": {}}), {}, "m")
    )
    assert not plain.structured and plain.temperature is None


def test_without_an_admin_key_each_cell_is_priced_at_the_playgrounds_default_table(
    qtbot: QtBot, console: MainWindow
) -> None:
    session = console.session
    dialog = evals_window(qtbot, console)  # the prompt saved through the admin key, then run without one
    first, key = profile_of(session), client_of(session).transport.settings.api_key
    assert key
    other = Profile(id="p-plain", name="Project key only", base_url=first.base_url, org_id=first.org_id)
    other.project_id = first.project_id
    session.profiles.save(other)
    session.secrets.set(other.id, "api_key", key)
    choose_profile(qtbot, console, "Project key only")
    assert not client_of(session).has_key("admin")
    type_cell(qtbot, dialog.setup.rows, 0, 0, "apple")
    type_cell(qtbot, dialog.setup.rows, 0, 1, "apple")
    dialog.setup.models.clear()
    qtbot.keyClicks(dialog.setup.models, "service-pro")
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.status.text().startswith("Running"), timeout=10000)
    run = dialog.service.run
    assert run is not None
    cell = run.cells[(0, 0)]
    assert cell.input_tokens and cell.output_tokens
    price = default_prices("service")["service-pro"]
    assert cell.cost == price.cost(cell.input_tokens, 0, cell.output_tokens)  # the sandbox caches nothing
    assert f"${cell.cost:.6f}" in shown(dialog.grid, 0, 0).toolTip()
    assert "cost not known" not in dialog.summary.text()
