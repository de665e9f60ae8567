"""The Linux build's empty ICU data library (packaging/linux/icu_stub.py): it is built where the spec finds
ICU's data library, it is an ICU data package with no item, and Qt runs on it (case mapping, UTF-8 and
Latin-1 from Qt's own code), ICU's legacy codecs gone, which proves the empty one is what ICU read."""

from __future__ import annotations

import ctypes
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_icu_stub() -> Any:
    """packaging/linux/icu_stub.py, which the spec imports from its folder (packaging/ is no package)."""
    spec = importlib.util.spec_from_file_location("icu_stub", ROOT / "packaging" / "linux" / "icu_stub.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


without_icu_data = _load_icu_stub().without_icu_data

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not (shutil.which("gcc") or shutil.which("cc")),
    reason="the Linux build's, compiled with gcc",
)

QT_ON_IT = """
from PySide6.QtCore import QLocale, QStringConverter, QStringDecoder, QStringEncoder
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication([])
label = QLabel("Grüße, 東京 ✓")
label.show()
app.processEvents()
assert QLocale("de_DE").toUpper("straße") == "STRASSE"
assert QStringDecoder("ISO-8859-1").isValid() and QStringEncoder("UTF-8").isValid()
assert "ISO-8859-2" not in QStringConverter.availableCodecs()  # ICU's codecs: none in the empty data
print("ok")
"""


def test_the_spec_swaps_only_icu_data_for_an_empty_package(tmp_path: Path) -> None:
    binaries = [
        ("PySide6/Qt/lib/libicudata.so.73", "/site/PySide6/Qt/lib/libicudata.so.73", "BINARY"),
        ("PySide6/Qt/lib/libicuuc.so.73", "/site/PySide6/Qt/lib/libicuuc.so.73", "BINARY"),
    ]
    swapped = without_icu_data(binaries, tmp_path)
    assert swapped[1] == binaries[1]
    built = Path(swapped[0][1])
    assert built.parent.parent == tmp_path and built.name == "libicudata.so.73"
    assert built.stat().st_size < 100_000
    header = (ctypes.c_uint8 * 40).in_dll(ctypes.CDLL(str(built)), "icudt73_dat")
    assert bytes(header[2:4]) == b"\xda\x27" and bytes(header[12:16]) == b"ToCP"  # a common-data package
    assert int.from_bytes(bytes(header[32:36]), "little") == 0  # holding no item


def test_qt_runs_on_the_empty_icu_data(tmp_path: Path) -> None:
    pyside = pytest.importorskip("PySide6")
    bundled = sorted((Path(pyside.__file__).parent / "Qt" / "lib").glob("libicudata.so.*"))
    if not bundled:
        pytest.skip("this PySide6 bundles no ICU")
    (entry,) = without_icu_data([(bundled[0].name, str(bundled[0]), "BINARY")], tmp_path)
    env = {**os.environ, "LD_PRELOAD": entry[1], "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", QT_ON_IT], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
