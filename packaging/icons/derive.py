"""Derives the platform icons from resources/icon.png with Pillow: .ico for Windows, .icns for macOS.

Run: python packaging/icons/derive.py OUT_DIR   (prints the paths it wrote)
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

SOURCE = Path(__file__).resolve().parents[2] / "resources" / "icon.png"


def derive(out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    image = Image.open(SOURCE).convert("RGBA")
    ico, icns = out_dir / "service-console.ico", out_dir / "service-console.icns"
    image.save(ico, sizes=[(16, 16), (24, 24), (32, 32), (48, 48), (64, 64), (128, 128), (256, 256)])
    image.save(icns)
    return ico, icns


if __name__ == "__main__":
    for path in derive(Path(sys.argv[1])):
        print(path)
