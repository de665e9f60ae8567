"""The Linux build's ICU data: PySide6's wheels bundle ICU, whose data library is 32 MB, for what Qt asks of
it here (collation in its own file dialog, text codecs other than UTF-8 and Latin-1, neither of which the
console uses: it reads and writes UTF-8 and sorts by its own keys). The spec swaps that library for one built
from icu_stub.c, an empty data package with the same name and symbol, so ICU loads and finds nothing.

Measured with PySide6 6.11 (ICU 73): case mapping, number and date formats, UTF-8 and Latin-1 work as
before (Qt's own code); a collator for a named locale falls back to code-point order with one warning.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA_LIBRARY = re.compile(r"(?:^|/)libicudata\.so\.(\d+)$")


def stub_library(version: str, work: Path) -> Path:
    """libicudata.so.VERSION with no data, compiled into `work` (gcc: the machines that build have it)."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        raise SystemExit("The Linux build needs gcc (or cc) to make its empty ICU data library.")
    name = f"libicudata.so.{version}"
    built = work / "icu-stub" / name
    built.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            compiler,
            "-O2",
            "-shared",
            "-fPIC",
            f"-DICU_DATA_SYMBOL=icudt{version}_dat",
            f"-Wl,-soname,{name}",
            "-o",
            str(built),
            str(HERE / "icu_stub.c"),
        ],
        check=True,
    )
    return built


def without_icu_data(binaries: list[tuple[str, str, str]], work: Path) -> list[tuple[str, str, str]]:
    """The binaries with ICU's data library replaced by the empty one."""
    replaced = []
    for destination, source, kind in binaries:
        found = DATA_LIBRARY.search(destination.replace("\\", "/"))
        if found:
            source = str(stub_library(found.group(1), work))
        replaced.append((destination, source, kind))
    return replaced
