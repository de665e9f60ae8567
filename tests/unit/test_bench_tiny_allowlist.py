"""The benches of the allowlist as code and of the refusal record run at a tiny size (BENCH_SIZE=tiny), so a
change that breaks them is seen in the default run; their figures are taken by running them in full."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tiny(module: str) -> str:
    env = {**os.environ, "BENCH_SIZE": "tiny", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", module], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_bench_policy_plan_runs() -> None:
    out = _tiny("tests.perf.bench_policy_plan")
    assert "the whole plan: median" in out and "its reads alone (baseline)" in out


@pytest.mark.timeout(180)
@pytest.mark.skipif(shutil.which("wrk") is None, reason="bench_gateway needs wrk")
def test_bench_gateway_runs_with_the_refused_cases() -> None:
    out = _tiny("tests.perf.bench_gateway")
    assert "refused (403 ip_not_allowed, recorded)" in out and "refused, many sources" in out


def test_bench_usage_runs() -> None:
    out = _tiny("tests.perf.bench_usage")
    assert "30 days by project and day" in out and "counting one answer" in out
