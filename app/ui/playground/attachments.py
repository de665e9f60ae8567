"""The images attached to the next message: buttons to add them, their chips (click to remove), and why one
was refused. Images are checked and scaled by the images service; refused ones are never sent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QMimeData
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QWidget,
)

from app.ui.colours import Ink, ink_label

if TYPE_CHECKING:  # the turns' module loads with the first turn (or the first image attached)
    from app.core.playground.turns import Attachment


class AttachmentBar(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.attachments: list[Attachment] = []
        self.max_image_side = 2048
        self.thumbs = QHBoxLayout()
        self.attach_button = attach = QPushButton("Attach image…", objectName="attach")
        attach.clicked.connect(self._attach_dialog)
        self.url_button = attach_url = QPushButton("Image URL…", objectName="attach_url")
        attach_url.clicked.connect(self._attach_url_dialog)
        self.notice: QLabel = QLabel(objectName="image_notice")
        ink_label(self.notice, Ink.BAD)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(attach)
        row.addWidget(attach_url)
        row.addLayout(self.thumbs)
        row.addWidget(self.notice, 1)

    def _add(self, make: Callable[[], Attachment]) -> None:
        # The images service (Qt's image readers, the URL checks) loads with the first image, not at launch.
        from app.services.playground.images import ImageProblem

        try:
            attachment = make()
        except ImageProblem as problem:
            self.notice.setText(str(problem))  # refused: never sent, nothing else is spoiled
            return
        self.notice.clear()
        self.attachments.append(attachment)
        self._render()

    def attach_file(self, path: Path) -> None:
        from app.services.playground.images import prepare_file

        self._add(lambda: prepare_file(path, self.max_image_side))

    def attach_qimage(self, image: QImage) -> None:
        from app.services.playground.images import prepare_qimage

        self._add(lambda: prepare_qimage(image, max_side=self.max_image_side))

    def attach_url(self, url: str) -> None:
        from app.services.playground.images import prepare_url

        self._add(lambda: prepare_url(url))

    @staticmethod
    def can_take(data: QMimeData) -> bool:
        """Whether something dragged over the tab is images or addresses of them, to be dropped here."""
        return data.hasUrls() or data.hasImage()

    def attach_dropped(self, data: QMimeData) -> None:
        """What was dropped on the tab: an image itself, image files, or image addresses."""
        if data.hasImage():
            self.attach_qimage(QImage(data.imageData()))
        for url in data.urls():
            if url.isLocalFile():
                self.attach_file(Path(url.toLocalFile()))
            else:
                self.attach_url(url.toString())

    def _attach_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog  # dialogs load when first asked for, not at launch

        paths, _ = QFileDialog.getOpenFileNames(
            self, "Attach images", "", "Images (*.png *.jpg *.jpeg *.webp *.gif)"
        )
        for path in paths:
            self.attach_file(Path(path))

    def _attach_url_dialog(self) -> None:
        from PySide6.QtWidgets import QInputDialog

        url, ok = QInputDialog.getText(self, "Image URL", "https:// address of the image")
        if ok and url:
            self.attach_url(url)

    def remove(self, index: int) -> None:
        del self.attachments[index]
        self._render()

    def take(self) -> list[Attachment]:
        """The attachments for the message being sent; the bar is empty afterwards."""
        taken, self.attachments = self.attachments, []
        self._render()
        return taken

    def _render(self) -> None:
        while self.thumbs.count():
            item = self.thumbs.takeAt(0)
            widget = item.widget() if item else None
            if widget:
                widget.deleteLater()
        for index, attachment in enumerate(self.attachments):
            # What will be sent, size included, beside the name; the whole story in the tooltip.
            name = attachment.label.split(" (", 1)[0]
            name = name if len(name) <= 24 else name[:23] + "…"
            sent = f": {attachment.sent}" if attachment.sent else ""
            button = QToolButton(text=f"✕ {name}{sent} (~{attachment.tokens} tok)")
            button.setObjectName(f"thumb{index}")
            button.setToolTip(f"{attachment.label}\nClick to remove")
            button.clicked.connect(lambda _=False, i=index: self.remove(i))
            self.thumbs.addWidget(button)


class ImageDrops:
    """The Playground tab's images, all through its attachment bar: what is attached, the notice of a
    refused one, attaching a file or URL, and images dropped on the tab (a base of the tab, before QWidget)."""

    attachment_bar: AttachmentBar

    @property
    def attachments(self) -> list[Attachment]:
        return self.attachment_bar.attachments

    @property
    def image_notice(self) -> QLabel:
        return self.attachment_bar.notice

    def attach_file(self, path: Path) -> None:
        self.attachment_bar.attach_file(path)

    def attach_url(self, url: str) -> None:
        self.attachment_bar.attach_url(url)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self.attachment_bar.can_take(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        self.attachment_bar.attach_dropped(event.mimeData())
        event.acceptProposedAction()
