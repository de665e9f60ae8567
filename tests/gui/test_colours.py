"""Colours come from one place that knows light from dark: under a dark palette the figures line and
"Connected" keep a readable contrast, and no widget module spells a colour of its own."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.ui.colours import DARK, LIGHT
from app.ui.main_window import MainWindow
from tests.gui.test_playground import send, wait_done

ROOT = Path(__file__).resolve().parents[2]


def luminance(colour: QColor) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.red()) + 0.7152 * channel(colour.green()) + 0.0722 * channel(colour.blue())


def contrast(a: QColor, b: QColor) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def style_colour(style: str) -> QColor:
    found = re.search(r"color:\s*(#[0-9a-fA-F]{6})", style)
    assert found is not None, style
    return QColor(found.group(1))


@pytest.fixture
def dark_palette(qapp: QApplication) -> Iterator[QPalette]:
    previous = qapp.palette()
    dark = QPalette(previous)
    for role, colour in (
        (QPalette.ColorRole.Window, "#1e1e1e"),
        (QPalette.ColorRole.Base, "#2b2b2b"),
        (QPalette.ColorRole.WindowText, "#f0f0f0"),
        (QPalette.ColorRole.Text, "#f0f0f0"),
    ):
        dark.setColor(role, QColor(colour))
    qapp.setPalette(dark)
    yield dark
    qapp.setPalette(previous)


def test_the_figures_line_and_connected_are_readable_on_a_dark_desktop(
    dark_palette: QPalette, console: MainWindow, qtbot: QtBot
) -> None:
    background = dark_palette.color(QPalette.ColorRole.Window)
    qtbot.waitUntil(lambda: console.indicator.text() == "● Connected")
    assert contrast(style_colour(console.indicator.styleSheet()), background) >= 4.5
    tab = console.playground
    send(qtbot, tab, "Hello in the dark")
    wait_done(qtbot, tab)
    figures = tab.views[0].status
    assert "tok" in figures.text()  # the per-answer figures line
    assert contrast(figures.palette().color(QPalette.ColorRole.WindowText), background) >= 4.5


@pytest.mark.parametrize("palette", [LIGHT, DARK])
def test_every_ink_reads_on_its_own_background(palette: dict[str, str]) -> None:
    window = QColor("#ffffff" if palette is LIGHT else "#1e1e1e")
    for ink, colour in palette.items():
        if "background" in ink:
            continue
        on = (
            QColor(palette[next(k for k in palette if k.endswith("background"))])
            if ink.endswith("_text")
            else window
        )
        assert contrast(QColor(colour), on) >= 4.5, (ink, colour)


def test_no_widget_module_spells_a_colour() -> None:
    spelt = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in (ROOT / "app").rglob("*.py")
        if path.name != "colours.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"#[0-9a-fA-F]{6}\b", line.split("  #")[0]) and not line.lstrip().startswith("#")
    ]
    assert spelt == []
