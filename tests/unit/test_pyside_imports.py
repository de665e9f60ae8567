"""PySide6's `__feature__` import hook is taken out at launch: imports skip it, and Qt still loads its classes
lazily through the import PySide6 wrapped. Run in a fresh interpreter: the test process's own imports
must not decide it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import builtins, json, sys
import PySide6.QtCore
feature = sys.modules["shibokensupport.feature"]
hooked = builtins.__import__ is builtins.__feature_import__
import fractions  # imported through the hook: PySide6 notes whether it uses PySide6
noted_before = "fractions" in feature.pyside_feature_dict
from app.pyside_imports import load_pyside
load_pyside()
import colorsys  # after: no hook, nothing noted
from PySide6.QtWidgets import QApplication, QPushButton  # a class PySide6 loads lazily
app = QApplication([])
button = QPushButton("works")
print(json.dumps({
    "hooked": hooked,
    "noted_before": noted_before,
    "hooked_after": builtins.__import__ is builtins.__feature_import__,
    "noted_after": "colorsys" in feature.pyside_feature_dict,
    "lazy_import_kept": builtins.__import__ is builtins.__orig_import__,
    "button": button.text(),
}))
"""


def test_the_feature_hook_is_taken_out_and_qt_classes_still_load() -> None:
    environment = os.environ | {"PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["hooked"] and seen["noted_before"]  # what PySide6 does by itself: the probe sees the hook
    assert not seen["hooked_after"] and not seen["noted_after"] and seen["lazy_import_kept"]
    assert seen["button"] == "works"
