"""The Open Responses compliance suite itself (bin/compliance-test.ts) against the sandbox, when
packaging/compliance_suite.sh has made it runnable in .compliance-suite (from a checkout named by
OPENRESPONSES_REPO); skipped otherwise. Every one of its tests must pass: none failed, none skipped, and as
many results as the suite has tests (17 at the commit docs/contract.md names)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Sandbox

SUITE = Path(os.environ.get("COMPLIANCE_SUITE") or Path(__file__).resolve().parents[2] / ".compliance-suite")
BUN = SUITE / "node_modules" / ".bin" / "bun"


def suite_test_ids() -> list[str]:
    """The ids of the tests the suite defines, read from its source, so a result left out is seen."""
    source = (SUITE / "src" / "lib" / "compliance-tests.ts").read_text(encoding="utf-8")
    return re.findall(r'^    id: "([a-z0-9-]+)",$', source, flags=re.MULTILINE)


# The suite runs its tests at once; each has its own limit (30 s a WebSocket turn), the run a few minutes.
@pytest.mark.timeout(300)
def test_the_compliance_suite_passes(sandbox: Sandbox) -> None:
    if not BUN.exists() or not (SUITE / ".stamp").exists():
        pytest.skip("run packaging/compliance_suite.sh with OPENRESPONSES_REPO set to a checkout first")
    command = [str(BUN), "bin/compliance-test.ts", "--base-url", sandbox.url, "--model", "service-pro"]
    run = subprocess.run(
        [*command, "--json", "--api-key", sandbox.creds.api_key],
        cwd=SUITE,
        capture_output=True,
        text=True,
        timeout=280,
    )
    report = json.loads(run.stdout[run.stdout.index("{") :])
    results = {result["id"]: result for result in report["results"]}
    for test_id, result in results.items():
        print(f"{result['status']:>8}  {test_id}  {result.get('errors') or ''}")
    summary, commit = report["summary"], (SUITE / ".stamp").read_text().strip()
    print(f"{summary['passed']} of {summary['total']} passed (suite {commit})")
    not_passed = {name: got.get("errors") for name, got in results.items() if got["status"] != "passed"}
    assert sorted(results) == sorted(suite_test_ids())
    assert not_passed == {}
    assert summary["passed"] == summary["total"] == len(suite_test_ids())
