"""Draws the application icon (resources/icon.png, 512 px) with Qt's painter; run again to change it.

The .ico (Windows) and .icns (macOS) are derived from the PNG at build time by Pillow (packaging/icons/derive.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QGuiApplication,
    QImage,
    QLinearGradient,
    QPainter,
    QPainterPath,
    QPen,
)

SIZE = 512


def draw() -> QImage:
    image = QImage(SIZE, SIZE, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    gradient = QLinearGradient(0, 0, 0, SIZE)
    gradient.setColorAt(0, QColor("#1f6feb"))
    gradient.setColorAt(1, QColor("#0b3d91"))
    painter.setBrush(QBrush(gradient))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawRoundedRect(QRectF(24, 24, SIZE - 48, SIZE - 48), 96, 96)
    # A shield: the allowlist.
    shield = QPainterPath(QPointF(256, 96))
    shield.cubicTo(QPointF(320, 136), QPointF(372, 140), QPointF(404, 136))
    shield.cubicTo(QPointF(404, 300), QPointF(340, 380), QPointF(256, 424))
    shield.cubicTo(QPointF(172, 380), QPointF(108, 300), QPointF(108, 136))
    shield.cubicTo(QPointF(140, 140), QPointF(192, 136), QPointF(256, 96))
    painter.setBrush(QColor(255, 255, 255, 235))
    painter.drawPath(shield)
    # A prompt caret inside it: the Playground.
    painter.setPen(QPen(QColor("#1f6feb"), 30, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    painter.drawLine(QPointF(190, 210), QPointF(250, 260))
    painter.drawLine(QPointF(250, 260), QPointF(190, 310))
    painter.drawLine(QPointF(272, 318), QPointF(326, 318))
    painter.end()
    return image


if __name__ == "__main__":
    app = QGuiApplication(sys.argv[:1])
    target = Path(__file__).resolve().parents[2] / "resources" / "icon.png"
    draw().save(str(target))
    print(target)
