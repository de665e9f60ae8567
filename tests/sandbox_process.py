"""A sandbox in its own process (for kill -9 tests and benchmarks): start it, wait for its credentials."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def spawn_sandbox(
    folder: Path, *extra: str, timeout: float = 30, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    """`env` is added to this process's environment for the server."""
    creds_file = folder / "creds.json"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app.sandbox",
            "serve",
            "--port",
            "0",
            "--data",
            str(folder / "data"),
            "--credentials-out",
            str(creds_file),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **(env or {})},
    )
    line = process.stdout.readline() if process.stdout else ""
    if "listening at" not in line:
        process.kill()
        raise RuntimeError(f"the sandbox did not start: {line}")
    deadline = time.monotonic() + timeout
    while not (creds_file.exists() and creds_file.stat().st_size):
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("the sandbox wrote no credentials")
        time.sleep(0.02)
    return process, json.loads(creds_file.read_text())
