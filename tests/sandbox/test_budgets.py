"""Monthly budgets: alerts at their thresholds recorded once (and in the audit log), a hard budget stops its
project at 100 % with the hosted service's 429 insufficient_quota (which the official client does not retry),
and raising it lets the project go on."""

from __future__ import annotations

from typing import Any

import pytest

openai = pytest.importorskip("openai")

from tests.conftest import Sandbox, SandboxFactory  # noqa: E402


def _budgets(sandbox: Sandbox) -> dict[str | None, dict[str, Any]]:
    with sandbox.admin() as admin:
        answer = admin.get(f"/organizations/{sandbox.creds.org_id}/budgets")
    assert answer.status_code == 200, answer.text
    return {budget["project_id"]: budget for budget in answer.json()["data"]}


def test_a_hard_budget_stops_its_project_at_100_percent(sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory()
    org, project = sandbox.creds.org_id, sandbox.creds.project_id
    # The data folder's price table: a dollar a token, so one answer spends tens of dollars.
    prices = '[models."service-pro"]\ninput = 1e6\ncached_input = 1e6\noutput = 1e6\n'
    (sandbox.server.config.data_dir / "prices.toml").write_text(prices)
    with sandbox.admin() as admin:
        made = admin.post(
            f"/organizations/{org}/projects/{project}/budget",
            json={"monthly_usd": 10, "thresholds": [100, 50, 80], "hard_limit": True},
        )
        assert made.status_code == 200, made.text
        assert made.json()["thresholds"] == [50, 80, 100] and made.json()["hard_limit"] is True
        soft = admin.post(f"/organizations/{org}/budget", json={"monthly_usd": 1e6})
        assert soft.status_code == 200 and soft.json()["project_id"] is None
        wrongs: list[dict[str, Any]] = [{"monthly_usd": 0.001}, {"monthly_usd": 5, "thresholds": [0]}]
        for wrong in [*wrongs, {"thresholds": [50]}, {"monthly_usd": 5, "hard_limit": "yes"}]:
            assert admin.post(f"/organizations/{org}/budget", json=wrong).status_code == 400
    with sandbox.api() as api:
        usage = api.post("/responses", json={"model": "service-pro", "input": "Spend"}).json()["usage"]
    budgets = _budgets(sandbox)
    spent = budgets[project]
    assert spent["stopped"] and spent["spent_usd"] == usage["input_tokens"] + usage["output_tokens"] > 10
    assert spent["percent"] == round(10 * spent["spent_usd"], 2)
    assert [alert["threshold"] for alert in spent["alerts"]] == [50, 80, 100]
    assert budgets[None]["stopped"] is False and budgets[None]["alerts"] == []
    asked = list(sandbox.server.app.seen).count(("POST", "/v1/responses"))
    client = openai.OpenAI(base_url=sandbox.url, api_key=sandbox.creds.api_key, max_retries=2)
    with client, pytest.raises(openai.RateLimitError) as refused:
        client.responses.create(model="service-pro", input="More")
    assert refused.value.code == "insufficient_quota" and "monthly budget" in refused.value.message
    assert list(sandbox.server.app.seen).count(("POST", "/v1/responses")) == asked + 1  # not retried
    assert _budgets(sandbox)[project]["alerts"] == spent["alerts"]  # recorded once a month
    with sandbox.admin() as admin:
        events = admin.get(
            f"/organizations/{org}/audit_log", params={"type": "budget.threshold_reached"}
        ).json()["data"]
        assert sorted(event["after"]["threshold"] for event in events) == [50, 80, 100]
        assert all(event["project_id"] == project and event["actor"]["type"] == "service" for event in events)
        raised = admin.post(f"/organizations/{org}/projects/{project}/budget", json={"monthly_usd": 1000})
        assert raised.json()["stopped"] is False
        admin.post(f"/organizations/{org}/projects/{project}/budget", json={"monthly_usd": None})
        admin.post(f"/organizations/{org}/budget", json={"monthly_usd": None})
    with sandbox.api() as api:
        assert api.post("/responses", json={"model": "service-pro", "input": "Again"}).status_code == 200
    assert _budgets(sandbox) == {}
