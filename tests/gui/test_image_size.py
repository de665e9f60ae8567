"""A scaled image is never larger than needed, and its chip says what will be sent, size included."""

from __future__ import annotations

import base64
import os
from functools import cache
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QToolButton
from pytestqt.qtbot import QtBot

from app.services.playground.images import encode, prepare_image
from app.ui.main_window import MainWindow
from tests.gui.reach import child


def sent_bytes(url: str) -> int:
    return len(base64.b64decode(url.split(",", 1)[1]))


@cache
def flat_png(size: tuple[int, int]) -> bytes:
    """A white PNG, made once for the tests that read it (Qt takes ~0.15 CPU-s to write 3000×2000)."""
    image = QImage(*size, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    return encode(image, "png")[0]


def test_a_small_flat_png_stays_small(qapp: QApplication) -> None:
    data = flat_png((3000, 2000))
    assert len(data) < 64 * 1024  # a drawing: a few KB
    attachment = prepare_image(data, "drawing.png")
    assert sent_bytes(attachment.url) <= len(data)  # before: 8,205 KB for a 1 KB file
    assert attachment.sent.startswith("PNG ") and ("KB" in attachment.sent or "bytes" in attachment.sent)


def test_a_noisy_photo_is_sent_compressed_and_scaled(qapp: QApplication) -> None:
    width, height = 2600, 1800
    image = QImage(os.urandom(width * height * 4), width, height, QImage.Format.Format_RGB32).copy()
    # Written as PNG without compression (quality 100): noise does not compress, and Qt spends ~0.45 CPU-s
    # trying at any other level. The app reads it as any PNG.
    written = QByteArray()
    buffer = QBuffer(written)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert image.save(buffer, "PNG", 100)  # type: ignore[call-overload]
    data = bytes(written.data())
    assert data.startswith(b"\x89PNG") and len(data) > width * height * 3  # a noisy photo's PNG, 14 MB
    attachment = prepare_image(data, "photo.png")
    assert "2048×" in attachment.sent and sent_bytes(attachment.url) < len(data) // 2
    assert attachment.sent.startswith("JPEG")  # the smaller encoding, the image having no transparency


def test_the_chip_says_what_is_sent(console: MainWindow, qtbot: QtBot, tmp_path: Path) -> None:
    tab = console.playground
    path = tmp_path / "a-rather-long-file-name-for-a-drawing.png"
    path.write_bytes(flat_png((3000, 2000)))
    tab.attach_file(path)
    qtbot.waitUntil(lambda: tab.findChild(QToolButton, "thumb0") is not None)
    chip = child(tab, QToolButton, "thumb0")
    qtbot.waitUntil(chip.isVisible)
    text = chip.text()
    assert text.startswith("✕ a-rather-long-file-name…: PNG 2048×1365, ") and (
        "KB" in text or "bytes" in text
    )
    assert "tok)" in text and "3000×2000" in chip.toolTip()
