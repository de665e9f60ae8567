"""The tests paint in the thread that paints: Qt's pool of painting threads is off (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QTabWidget, QWidget
from pytestqt.qtbot import QtBot

TASKS = Path("/proc/self/task")


def pool_threads() -> int:
    names = []
    for task in TASKS.iterdir():
        try:
            names.append((task / "comm").read_text().strip())
        except OSError:  # a thread that ended since the listing
            continue
    return names.count("Thread (pooled)")  # what Qt names a QThreadPool's threads


@pytest.mark.skipif(not TASKS.is_dir(), reason="threads listed by /proc (Linux)")
def test_a_window_is_painted_without_handing_fills_to_other_threads(qapp: QApplication, qtbot: QtBot) -> None:
    tabs = QTabWidget()
    tabs.addTab(QWidget(), "Playground")
    qtbot.addWidget(tabs)
    tabs.resize(800, 700)
    tabs.show()
    assert not tabs.grab().isNull()  # its frame's lines span ~700 rows: a fill Qt would split over threads
    assert pool_threads() == 0
