"""Images for the Playground, checked and scaled with Qt's own image code before anything is sent."""

from __future__ import annotations

import base64
import math
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QImage, QImageReader

from app.core.playground.turns import Attachment

ACCEPTED = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "jpg": "image/jpeg",
    "webp": "image/webp",
    "gif": "image/gif",
}
MAX_BYTES = 20 * 1024 * 1024
DEFAULT_MAX_SIDE = 2048


class ImageProblem(ValueError):
    """The image cannot be sent; the message says why."""


def image_tokens(width: int, height: int, detail: str = "high") -> int:
    """The hosted service's documented estimate: 85 plus 170 per 512-pixel tile after scaling."""
    if detail == "low":
        return 85
    scale = min(1.0, 2048 / max(width, height))
    scaled_width, scaled_height = width * scale, height * scale
    scale = min(1.0, 768 / min(scaled_width, scaled_height))
    scaled_width, scaled_height = scaled_width * scale, scaled_height * scale
    return 85 + 170 * math.ceil(scaled_width / 512) * math.ceil(scaled_height / 512)


def prepare_image(data: bytes, label: str, max_side: int = DEFAULT_MAX_SIDE) -> Attachment:
    """Check format, size and dimensions; scale down and re-encode an oversized image. Raises ImageProblem."""
    if not data:
        raise ImageProblem(f"{label} is empty.")
    array = QByteArray(data)
    buffer = QBuffer(array)
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    image_format = bytes(reader.format().data()).decode().lower()
    if not image_format:
        raise ImageProblem(f"{label} is not an image (or it is damaged): send PNG, JPEG, WebP or GIF.")
    if image_format not in ACCEPTED:
        raise ImageProblem(f"{label} is a {image_format.upper()} image: send PNG, JPEG, WebP or GIF.")
    image = reader.read()
    if image.isNull():
        raise ImageProblem(f"{label} could not be decoded: {reader.errorString()}.")
    width, height = image.width(), image.height()
    mime = ACCEPTED[image_format]
    note = f"{image_format.upper()} {width}×{height}, {kb(len(data))}"
    if max(width, height) > max_side or len(data) > MAX_BYTES:
        scaled = (
            image.scaled(
                max_side,
                max_side,
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
            if max(width, height) > max_side
            else image
        )
        # Never larger than needed: the scaled image in the original's kind (PNG at full compression for
        # the lossless ones: Qt's PNG "quality" 90 is nearly none, and a 1 KB drawing became 8 MB), JPEG
        # when that is smaller and the image has no transparency, and the original itself when it fits
        # the limit and is smaller still (the service scales it the same way).
        candidates = [encode(scaled, "jpeg" if image_format in ("jpeg", "jpg") else "png")]
        if not scaled.hasAlphaChannel() and image_format not in ("jpeg", "jpg"):
            candidates.append(encode(scaled, "jpeg"))
        smallest, smallest_mime = min(candidates, key=lambda candidate: len(candidate[0]))
        if len(data) <= MAX_BYTES and len(data) <= len(smallest):
            note += ", sent as it is (smaller than any scaled copy)"
        else:
            data, mime, image = smallest, smallest_mime, scaled
            kind = mime.removeprefix("image/").upper()
            note += f" → scaled to {image.width()}×{image.height()}, sent as {kind}, {kb(len(data))}"
        if len(data) > MAX_BYTES:
            raise ImageProblem(f"{label} is still larger than 20 MB after scaling.")
        width, height = image.width(), image.height()
    url = f"data:{mime};base64,{base64.b64encode(data).decode()}"
    sent = f"{mime.removeprefix('image/').upper()} {width}×{height}, {kb(len(data))}"
    return Attachment(url, f"{label} ({note})", image_tokens(width, height), sent)


def kb(size: int) -> str:
    return f"{size / 1024:,.0f} KB" if size >= 1024 else f"{size:,} bytes"


def encode(image: QImage, image_format: str) -> tuple[bytes, str]:
    array = QByteArray()
    buffer = QBuffer(array)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # PySide6 6.11 takes the format as str (its stub says bytes, which it refuses at run time). For PNG Qt
    # maps "quality" to compression, 0 being the most; for JPEG 85 keeps text in screenshots readable.
    quality = 0 if image_format == "png" else 85
    image.save(buffer, image_format.upper(), quality)  # type: ignore[call-overload]
    return bytes(array.data()), ACCEPTED[image_format]


def prepare_file(path: Path, max_side: int = DEFAULT_MAX_SIDE) -> Attachment:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ImageProblem(f"{path.name} cannot be read: {error.strerror}.") from None
    return prepare_image(data, path.name, max_side)


def prepare_qimage(
    image: QImage, label: str = "Pasted image", max_side: int = DEFAULT_MAX_SIDE
) -> Attachment:
    if image.isNull():
        raise ImageProblem("The clipboard holds no image.")
    data, _ = encode(image, "png")
    return prepare_image(data, label, max_side)


def prepare_url(url: str) -> Attachment:
    url = url.strip()
    if not url.startswith(("http://", "https://")):
        raise ImageProblem("An image URL must start with http:// or https://.")
    return Attachment(url, url, 85)
