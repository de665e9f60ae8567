"""The Open Responses compliance suite itself (bin/compliance-test.ts) against the sandbox, when
packaging/compliance_suite.sh has made it runnable in .compliance-suite (from a checkout named by
OPENRESPONSES_REPO); skipped otherwise. Every test it runs must pass."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Sandbox

SUITE = Path(os.environ.get("COMPLIANCE_SUITE") or Path(__file__).resolve().parents[2] / ".compliance-suite")
TSX = SUITE / "node_modules" / ".bin" / "tsx"


@pytest.mark.timeout(300)
def test_the_compliance_suite_passes(sandbox: Sandbox) -> None:
    if shutil.which("node") is None or not TSX.exists() or not (SUITE / ".stamp").exists():
        pytest.skip("run packaging/compliance_suite.sh with OPENRESPONSES_REPO set to a checkout first")
    command = [
        str(TSX),
        "bin/compliance-test.ts",
        "--base-url",
        sandbox.url,
        "--model",
        "service-pro",
        "--json",
    ]
    run = subprocess.run(
        [*command, "--api-key", sandbox.creds.api_key], cwd=SUITE, capture_output=True, text=True, timeout=280
    )
    report = json.loads(run.stdout[run.stdout.index("{") :])
    failed = [
        (result["id"], result.get("errors")) for result in report["results"] if result["status"] == "failed"
    ]
    assert not failed
    assert report["summary"]["passed"] + report["summary"].get("skipped", 0) == report["summary"]["total"]
