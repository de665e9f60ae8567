"""The command line: serve prints the keys once and writes credentials; the dashboard works on the store."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from app.sandbox.cli import main


def test_serve_prints_keys_once_and_writes_credentials(tmp_path: Path) -> None:
    creds = tmp_path / "creds.json"
    args = [
        sys.executable,
        "-m",
        "app.sandbox",
        "serve",
        "--port",
        "0",
        "--data",
        str(tmp_path / "d"),
        "--credentials-out",
        str(creds),
    ]
    outputs = []
    for _ in range(2):
        process = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        assert process.stdout is not None
        first_line = process.stdout.readline()
        assert "listening at" in first_line
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (creds.exists() and creds.stat().st_size):
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)
        outputs.append(first_line + process.stdout.read())  # not communicate(): it skips readline's buffer
        assert process.returncode == 0
    data = json.loads(creds.read_text())
    assert set(data) == {"base_url", "org_id", "project_id", "api_key", "admin_key"}
    assert data["admin_key"] in outputs[0] and data["admin_key"] not in outputs[1]
    assert (creds.stat().st_mode & 0o777) == 0o600


def test_dashboard_removes_and_shows(sandbox, capsys) -> None:
    with sandbox.admin() as admin:
        admin.post(f"{sandbox.org_list}/entries", json={"cidr": "203.0.113.0/24", "description": "office"})
        admin.patch(sandbox.org_list, params={"force": "true"}, json={"enabled": True})
    data = str(sandbox.server.config.data_dir)
    assert main(["allowlist", "remove", "203.0.113.0/24", "--data", data]) == 0
    assert main(["allowlist", "show", "--data", data]) == 0
    out = capsys.readouterr().out
    assert "removed" in out and "enabled, 0 entries" in out
    assert main(["allowlist", "remove", "198.51.100.1", "--data", data]) == 1


def test_dashboard_creates_a_working_key(sandbox) -> None:
    data = str(sandbox.server.config.data_dir)
    result = subprocess.run(
        [sys.executable, "-m", "app.sandbox", "keys", "project", "--data", data],
        capture_output=True,
        text=True,
        check=True,
    )
    key = result.stdout.strip()
    with sandbox.client(key) as client:
        assert client.get("/models").status_code == 200
