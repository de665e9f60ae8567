"""PySide6 6.12.0 on Python 3.11 dies after some thousands of void calls (none_dealloc; docs/stack.md)."""

from __future__ import annotations

import subprocess
import sys


def test_200000_void_method_calls_do_not_crash() -> None:
    script = (
        "from PySide6.QtCore import QObject\n"
        "o = QObject()\n"
        "for i in range(200_000):\n"
        "    o.setObjectName('x')\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-500:]
