"""An 800x600 screen: the first launch, a size restored from a larger screen, and the dialogs all fit its
available area, with their buttons on screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QAbstractButton, QDialog, QWidget
from pytestqt.qtbot import QtBot

from app.ui import screen_fit
from app.ui.main_window import MainWindow
from app.ui.security.tab import SecurityTab
from tests.gui.reach import choose
from tests.gui.test_security_transfer import CSV_FILE, open_preview

SCREEN = QRect(0, 0, 800, 600)


@pytest.fixture
def small_screen(monkeypatch: pytest.MonkeyPatch) -> QRect:
    monkeypatch.setattr(screen_fit, "available", lambda _widget: SCREEN)
    return SCREEN


def assert_fits(window: QWidget) -> None:
    assert window.width() <= SCREEN.width() and window.height() <= SCREEN.height(), window.size()
    hint = window.minimumSizeHint()
    assert hint.width() <= SCREEN.width() and hint.height() <= SCREEN.height() - 32, (type(window), hint)
    for button in window.findChildren(QAbstractButton):
        if not button.isVisibleTo(window):
            continue
        corner = button.mapTo(window, button.rect().bottomRight())
        assert window.rect().contains(corner), (button.text(), corner, window.size())


def test_a_first_launch_fits_the_screen(small_screen: QRect, console: MainWindow) -> None:
    window = MainWindow(console.session)
    try:
        assert_fits(window)
    finally:
        window.deleteLater()


def test_a_size_left_on_a_larger_screen_is_brought_onto_this_one(
    small_screen: QRect, console: MainWindow, qtbot: QtBot
) -> None:
    console.resize(1400, 1000)
    console.move(300, 200)
    console.ui_state.window_geometry = console.saveGeometry()
    window = MainWindow(console.session)
    qtbot.addWidget(window)
    assert window.width() <= 800 and window.height() <= 600
    assert SCREEN.contains(window.frameGeometry().topLeft())


def test_profiles_history_and_import_preview_fit(
    small_screen: QRect,
    console: MainWindow,
    qtbot: QtBot,
    tab: SecurityTab,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    profiles = console.open_settings()
    qtbot.waitUntil(profiles.isVisible)
    assert_fits(profiles)
    profiles.reject()
    choose(tab, "history")
    history = tab.dialogs["history"]
    assert isinstance(history, QDialog)
    assert_fits(history)
    history.reject()
    path = tmp_path / "entries.csv"
    path.write_text(CSV_FILE)
    preview = open_preview(qtbot, tab, monkeypatch, path)
    assert_fits(preview)
    preview.reject()


def test_the_keys_window_and_its_rotation_fit(small_screen: QRect, qtbot: QtBot, tab: SecurityTab) -> None:
    from app.ui.security.key_rotation import KeyRotationDialog
    from app.ui.security.keys_view import KeysDialog

    choose(tab, "keys")
    keys = tab.dialogs["keys"]
    assert isinstance(keys, KeysDialog)
    qtbot.waitUntil(lambda: keys.model.rowCount() > 0)
    assert_fits(keys)
    keys.table.selectRow(0)
    qtbot.mouseClick(keys.buttons["rotate_key"], Qt.MouseButton.LeftButton)
    assert isinstance(keys.rotation_dialog, KeyRotationDialog)
    assert_fits(keys.rotation_dialog)
    keys.rotation_dialog.reject()
    keys.reject()


def test_the_scope_bar_keeps_one_line_and_the_new_windows_fit(
    small_screen: QRect, console: MainWindow, qtbot: QtBot, tab: SecurityTab
) -> None:
    """At 800x600 the scope bar's controls share one line (a second costs the entries table its rows), and
    the windows behind its menus fit the screen with their buttons on it."""
    console.resize(SCREEN.size())
    console.tabs.setCurrentWidget(console.security)
    qtbot.waitUntil(tab.scope_bar.isVisible)
    qtbot.wait(50)  # the layout's pass after the resize
    controls: list[QWidget] = [tab.scope_bar.scope]
    controls += [w for w in tab.scope_bar.findChildren(QAbstractButton) if w.isVisibleTo(tab.scope_bar)]
    tops = {
        w.mapTo(tab.scope_bar, w.rect().center()).y() for w in controls if w.objectName() != "resume_rotation"
    }
    assert len(tops) == 1, sorted((w.objectName(), w.y()) for w in controls)
    for name in ("keys", "certificates", "refused", "simplify"):
        choose(tab, name)
        qtbot.waitUntil(lambda n=name: n in tab.dialogs and tab.dialogs[n].isVisible())  # type: ignore[misc]
        assert_fits(tab.dialogs[name])
        tab.dialogs[name].close()
