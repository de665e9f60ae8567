"""`service-console eval run` as CI runs it: a stored prompt on a dataset against the sandbox, the exit code
saying whether the pass rate reached --min-pass."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.cli_support import app_command, environment
from tests.conftest import Sandbox


@pytest.fixture
def direct(sandbox_factory: Callable[..., Sandbox]) -> Sandbox:
    return sandbox_factory(trusted_proxies=[])


def stored_prompt(sandbox: Sandbox) -> str:
    with sandbox.admin() as admin:
        made = admin.post(
            f"/organizations/{sandbox.creds.org_id}/prompts",
            json={"name": "Echo", "input": "Say {{word}} please"},
        )
        assert made.status_code == 200, made.text
        return str(made.json()["id"])


def test_the_exit_code_follows_the_pass_rate(direct: Sandbox, tmp_path: Path) -> None:
    prompt_id = stored_prompt(direct)
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        "".join(json.dumps({"word": word, "expected": word}) + "\n" for word in ("apple", "pear"))
    )
    env = environment(direct, SERVICE_API_KEY=direct.creds.api_key)
    base = ["run", str(rows), "--prompt", f"{prompt_id}@1", "--model", "service-pro"]
    passing = app_command(
        "eval", *base, "--grader", "contains", "--json", "--out", str(tmp_path / "run.json"), env=env
    )
    assert passing.code == 0, passing.err
    assert passing.json["pass_rate"] == 1.0 and len(passing.json["cells"]) == 2
    assert json.loads((tmp_path / "run.json").read_text())["summary"][0]["passed"] == 2
    # Priced at the service's table (the admin key reads it): each cell and the variant's sum.
    assert all(cell["cost"] > 0 for cell in passing.json["cells"])
    assert passing.json["summary"][0]["cost"] == pytest.approx(sum(c["cost"] for c in passing.json["cells"]))
    failing = app_command("eval", *base, "--grader", "exact", "--min-pass", "0.5", env=env)
    assert failing.code == 1 and "Pass rate 0.0% (below 50.0%)" in failing.out
    assert ", $0.0" in failing.out.splitlines()[0]  # the variant's line says its cost
    judged = app_command(
        "eval", *base, "--grader", "rubric:Says the word", "--min-pass", "0", "--json", env=env
    )
    assert judged.code == 0 and all(cell["reasons"][0].startswith("rubric:") for cell in judged.json["cells"])


def test_usage_keys_and_network_have_the_allowlist_commands_codes(direct: Sandbox, tmp_path: Path) -> None:
    prompt_id = stored_prompt(direct)
    rows = tmp_path / "rows.csv"
    rows.write_text("word\napple\n")
    env = environment(direct, SERVICE_API_KEY=direct.creds.api_key)
    base = ["run", str(rows), "--prompt", prompt_id, "--model", "service-pro"]
    assert app_command("eval", *base, "--grader", "maybe", env=env).code == 2
    assert (
        app_command(
            "eval", "run", str(tmp_path / "none.csv"), "--prompt", prompt_id, "--model", "m", env=env
        ).code
        == 2
    )
    assert (
        app_command("eval", "run", str(rows), "--prompt", "pmpt_none", "--model", "service-pro", env=env).code
        == 2
    )
    assert app_command("eval", *base, env=environment(direct)).code == 3  # no API key
    wrong = app_command("eval", *base, env=environment(direct, SERVICE_API_KEY="sk-wrong-key"))
    assert wrong.code == 3 and "sk-wrong-key" not in wrong.out + wrong.err
    down = environment(direct, SERVICE_API_KEY="x", SERVICE_BASE_URL="http://127.0.0.1:9/v1")
    assert app_command("eval", *base, "--json", env=down).code == 4
