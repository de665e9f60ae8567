"""The README's CI recipe, run as written: each `run:` line of its YAML in bash, `service-console` on the
PATH, against a sandbox whose project list is on, from a runner (127.0.0.1) no entry admits yet."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.cli_support import ROOT, environment
from tests.conftest import Sandbox


def _recipe_steps() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("A CI recipe:", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    return [match.strip() for match in re.findall(r"run: (.+)", block)]


def test_the_readme_recipe_has_the_three_steps() -> None:
    steps = _recipe_steps()
    assert len(steps) == 3 and "--for-this-job" in steps[0] and "--added-by-this-job" in steps[2]


@pytest.fixture
def direct(sandbox_factory: Callable[..., Sandbox]) -> Sandbox:
    return sandbox_factory(trusted_proxies=[])


def test_the_readme_ci_recipe_runs_and_cleans_up_after_itself(direct: Sandbox, tmp_path: Path) -> None:
    project = direct.creds.project_id
    with direct.admin() as admin:  # the project's list on, admitting someone else only
        assert (
            admin.post(direct.project_list + "/entries", json={"cidr": "203.0.113.0/24"}).status_code == 201
        )
        assert admin.patch(direct.project_list + "?force=true", json={"enabled": True}).status_code == 200
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "service-console"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m app "$@"\n')
    shim.chmod(0o755)
    tests = tmp_path / "run-the-tests.sh"  # the job's own work: a request through the project's list
    tests.write_text('#!/bin/sh\nservice-console allowlist check --project "$PROJECT" | grep -q "admitted"\n')
    tests.chmod(0o755)
    env = environment(
        direct,
        SERVICE_API_KEY=direct.creds.api_key,
        PROJECT=project,
        GITHUB_RUN_ID="4242",
        GITHUB_RUN_ATTEMPT="1",
        GITHUB_JOB="test",
        PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
    )
    for step in _recipe_steps():
        done = subprocess.run(
            ["bash", "-c", step], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, f"{step}\n{done.stdout}\n{done.stderr}"
    with direct.admin() as admin:
        entries = admin.get(direct.project_list).json()["entries"]
    assert [e["cidr"] for e in entries] == ["203.0.113.0/24"]  # the job's own entry went, the other stayed


def test_remove_added_by_this_job_leaves_another_jobs_entry(direct: Sandbox, tmp_path: Path) -> None:
    from tests.cli.cli_support import cli

    mine = environment(direct, SERVICE_JOB_ID="job-1")
    theirs = environment(direct, SERVICE_JOB_ID="job-2")
    assert cli("add", "192.0.2.1", "--for-this-job", env=mine).code == 0
    assert cli("add", "192.0.2.2", "--for-this-job", "--description", "other", env=theirs).code == 0
    removed = cli("remove", "--added-by-this-job", "--json", env=mine)
    assert removed.code == 0 and [e["cidr"] for e in removed.json["removed"]] == ["192.0.2.1/32"]
    listed = cli("list", "--json", env=mine).json["entries"]
    assert [(e["cidr"], e["description"]) for e in listed] == [("192.0.2.2/32", "other [job job-2]")]
    assert cli("remove", "--added-by-this-job", env=environment(direct)).code == 2  # no job id: usage
