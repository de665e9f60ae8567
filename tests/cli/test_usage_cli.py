"""`service-console usage` as a subprocess against a real sandbox: totals, groups, CSV and the usage exit code."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

import pytest

from tests.cli.cli_support import app_command, environment
from tests.conftest import Sandbox


@pytest.fixture
def direct(sandbox_factory: Callable[..., Sandbox]) -> Sandbox:
    return sandbox_factory(trusted_proxies=[])


def test_usage_totals_groups_and_csv(direct: Sandbox) -> None:
    used = {"input_tokens": 0, "output_tokens": 0}
    with direct.api() as api:
        for model in ("service-pro", "service-think", "service-pro"):
            usage = api.post("/responses", json={"model": model, "input": "Count me"}).json()["usage"]
            used["input_tokens"] += usage["input_tokens"]
            used["output_tokens"] += usage["output_tokens"]
    env = environment(direct)
    grouped = app_command("usage", "--since", "1d", "--group-by", "project,model", "--json", env=env)
    assert grouped.code == 0, grouped.err
    assert grouped.json["totals"]["requests"] == 3 and grouped.json["bucket_width"] == "1h"
    assert grouped.json["totals"]["input_tokens"] == used["input_tokens"]
    assert grouped.json["totals"]["output_tokens"] == used["output_tokens"]
    assert {row["model"] for row in grouped.json["rows"]} == {"service-pro", "service-think"}
    assert grouped.json["cost_usd"] > 0
    table = app_command("usage", "--group-by", "model", "--csv", env=env)
    rows = list(csv.DictReader(io.StringIO(table.out)))
    assert table.code == 0 and sum(int(row["requests"]) for row in rows) == 3
    assert {row["model"] for row in rows} == {"service-pro", "service-think"} and rows[0]["project_id"] == ""
    text = app_command("usage", env=env)
    assert text.code == 0 and "3 requests" in text.out
    assert app_command("usage", "--since", "week", env=env).code == 2
    assert app_command("usage", "--group-by", "user", env=env).code == 2
    refused = app_command("usage", env={**env, "SERVICE_ADMIN_KEY": direct.creds.api_key})
    assert refused.code == 3


def test_limits_get_and_set(direct: Sandbox) -> None:
    env = environment(direct)
    project = direct.creds.project_id
    made = app_command("limits", "set", "--project", project, "--rpm", "2", "--json", env=env)
    assert made.code == 0, made.err
    whole = next(limit for limit in made.json["rate_limits"] if limit["id"] == "rl-project")
    assert whole["max_requests_per_1_minute"] == 2 and whole["max_tokens_per_1_minute"] is None
    model = app_command(
        "limits", "set", "--project", project, "--model", "service-think", "--tpm", "900", env=env
    )
    assert model.code == 0 and "900" in model.out
    with direct.api() as api:
        assert api.get("/models").headers["x-ratelimit-limit-requests"] == "2"
    app_command("limits", "set", "--project", project, "--rpm", "none", env=env)
    shown = app_command("limits", "get", "--project", project, env=env)
    assert shown.code == 0 and "the whole project" in shown.out and "no limit" in shown.out
    assert app_command("limits", "set", "--project", project, "--rpm", "0", env=env).code == 2
    assert (
        app_command("limits", "set", "--project", project, "--model", "nope", "--rpm", "3", env=env).code == 2
    )
    assert app_command("limits", "get", "--project", "nowhere", env=env).code == 2
    assert app_command("limits", "get", env=env).code == 2
    refused = app_command(
        "limits", "get", "--project", project, env={**env, "SERVICE_ADMIN_KEY": direct.creds.api_key}
    )
    assert refused.code == 3
