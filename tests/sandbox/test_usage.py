"""The usage the sandbox counts, read through the Admin API: the totals equal the answers' own usage, exactly,
over projects, keys and the three ways of answering; the refusals counted apart; the costs from the price table."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")

from app.sandbox.store.aggregates import Store  # noqa: E402
from app.sandbox.store.database import run_blocking  # noqa: E402
from app.sandbox.store.keys import hash_key, key_id  # noqa: E402
from app.sandbox.store.organizations import Credentials  # noqa: E402
from tests.conftest import Sandbox, SandboxFactory  # noqa: E402

TOKENS = ("input_tokens", "input_cached_tokens", "output_tokens", "output_reasoning_tokens")


def _keys(sandbox: Sandbox, projects: int, per_project: int) -> dict[str, list[str]]:
    """New projects of the organization, each with its own project keys: {project id: [keys]}."""
    store, org_id = sandbox.server.store, sandbox.creds.org_id
    made: dict[str, list[str]] = {}
    for number in range(projects):
        project_id = run_blocking(store.organizations.create_project(org_id, f"usage {number}"))
        made[project_id] = [
            run_blocking(store.keys.create("project", org_id, project_id, f"key {k}"))
            for k in range(per_project)
        ]
    return made


def _answer(api: Any, mode: str, model: str, text: str) -> Any:
    if mode == "stream":
        # The events as the SDK reads them, and the answer the last one carries (the `stream` helper would
        # rebuild that answer from every event besides, a fifth of this test's CPU; test_responses uses it).
        with api.responses.create(model=model, input=text, stream=True) as events:
            completed = [event.response for event in events if event.type == "response.completed"]
        assert len(completed) == 1
        return completed[0]
    if mode == "background":
        response = api.responses.create(model=model, input=text, background=True)
        while response.status in ("queued", "in_progress"):
            time.sleep(0.005)  # a background answer is done in a few ms here: each poll waited longer
            response = api.responses.retrieve(response.id)
        return response
    return api.responses.create(model=model, input=text)


def _usage(sandbox: Sandbox, **params: Any) -> dict[str, Any]:
    with sandbox.admin() as admin:
        answer = admin.get(f"/organizations/{sandbox.creds.org_id}/usage/completions", params=params)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_usage_equals_the_answers_own_usage(sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory()
    start = int(time.time())
    expected: dict[tuple[str, str, str], list[int]] = {}
    for project_id, keys in _keys(sandbox, projects=3, per_project=2).items():
        for key in keys:
            with openai.OpenAI(base_url=sandbox.url, api_key=key, max_retries=0) as api:
                for number in range(11):
                    for mode in ("plain", "stream", "background"):
                        model = ("service-pro", "service-think")[number % 2]
                        response = _answer(api, mode, model, f"Question {number} about tides, {mode}")
                        assert response.status == "completed" and response.usage is not None
                        usage = response.usage
                        row = expected.setdefault((project_id, key_id(hash_key(key)), model), [0] * 5)
                        row[0] += 1
                        row[1] += usage.input_tokens
                        row[2] += usage.input_tokens_details.cached_tokens
                        row[3] += usage.output_tokens
                        row[4] += usage.output_tokens_details.reasoning_tokens
    assert sum(row[0] for row in expected.values()) == 198
    body = _usage(
        sandbox,
        start_time=start,
        bucket_width="1d",
        group_by=["project_id", "api_key_id", "model"],
    )
    counted: dict[tuple[str, str, str], list[int]] = {}
    for bucket in body["data"]:
        assert bucket["object"] == "bucket" and bucket["end_time"] - bucket["start_time"] == 86_400
        for result in bucket["results"]:
            assert result["object"] == "organization.usage.completions.result"
            row = counted.setdefault((result["project_id"], result["api_key_id"], result["model"]), [0] * 5)
            row[0] += result["num_model_requests"]
            for index, name in enumerate(TOKENS, 1):
                row[index] += result[name]
    assert counted == expected
    # Ungrouped and filtered: one project's sum, fields it did not group by are null.
    project_id = next(iter(expected))[0]
    one = _usage(sandbox, start_time=start, bucket_width="1m", limit=5, project_ids=[project_id])
    results = [result for bucket in one["data"] for result in bucket["results"]]
    assert all(result["project_id"] is None and result["model"] is None for result in results)
    assert sum(result["input_tokens"] for result in results) == sum(
        row[1] for (project, _, _), row in expected.items() if project == project_id
    )


def test_pages_refusals_and_costs(sandbox: Sandbox) -> None:
    org_id = sandbox.creds.org_id
    with sandbox.api() as api:
        answer = api.post("/responses", json={"model": "service-pro", "input": "Price me"})
        usage = answer.json()["usage"]
    wrong_secret = sandbox.creds.api_key[:-4] + "XXXX"  # names the project in clear: counted on it
    with sandbox.client(wrong_secret) as stranger:
        assert stranger.post("/responses", json={"model": "service-pro", "input": "x"}).status_code == 401
    now = int(time.time())
    start = now - now % 3600 - 3 * 3600
    first = _usage(sandbox, start_time=start, bucket_width="1h", limit=2)
    assert first["has_more"] and len(first["data"]) == 2 and not any(b["results"] for b in first["data"])
    rest = _usage(sandbox, start_time=start, bucket_width="1h", page=first["next_page"])
    assert rest["data"][0]["start_time"] == start + 2 * 3600 and not rest["has_more"]
    with sandbox.admin() as admin:
        refused = admin.get(f"/organizations/{org_id}/usage/refused", params={"start_time": now - 60})
        assert refused.status_code == 200
        reasons = {(r["reason"], r["project_id"]) for b in refused.json()["data"] for r in b["results"]}
        assert ("invalid_api_key", sandbox.creds.project_id) in reasons
        costs = admin.get(
            f"/organizations/{org_id}/costs",
            params={
                "start_time": now - now % 86_400,
                "group_by": "line_item",
                "project_ids": sandbox.creds.project_id,
            },
        ).json()
        items = {r["line_item"]: r["amount"]["value"] for b in costs["data"] for r in b["results"]}
        # At least this answer's price (the shared sandbox answered others too): 1.25 and 10 $ per million.
        assert items["service-pro, input"] >= usage["input_tokens"] * 1.25 / 1e6 > 0
        assert items["service-pro, output"] >= usage["output_tokens"] * 10 / 1e6 > 0
        wrongs: list[dict[str, str]] = [{"bucket_width": "1d"}, {"start_time": "x"}]
        for params in [*wrongs, {"start_time": "0", "group_by": "user"}]:
            wrong = admin.get(f"/organizations/{org_id}/usage/completions", params=params)
            assert wrong.status_code == 400 and wrong.json()["error"]["param"]
    with sandbox.api() as api:  # a project key is not an admin key
        assert api.get(f"/organizations/{org_id}/usage/completions?start_time=0").status_code == 403


def test_minute_buckets_go_after_90_days_hours_and_days_stay(tmp_path: Path) -> None:
    now = [1_780_000_000.0]
    store = Store(tmp_path / "usage.sqlite3", clock=lambda: now[0])
    try:
        credentials = store.organizations.bootstrap(Credentials.new())
        org_id, project_id = credentials.org_id, credentials.project_id
        answer = {"input_tokens": 7, "output_tokens": 3}
        store.usage.count(org_id, project_id, "key_1", "service-pro", answer, int(now[0]))
        store.usage.refused(org_id, project_id, "invalid_api_key", int(now[0]))
        assert run_blocking(store.usage.flush()) == 2
        assert run_blocking(store.usage.prune()) == 0  # nothing that old
        now[0] += 91 * 86_400
        assert run_blocking(store.usage.prune()) == 2  # the two minute rows
        start = int(now[0]) - 92 * 86_400
        for width, rows in ((60, 0), (3600, 1), (86_400, 1)):
            found = store.usage.completions(org_id, width, start, int(now[0]), (), {})
            assert len(found) == rows and all(row["input_tokens"] == 7 for row in found)
        now[0] += 60
        assert run_blocking(store.usage.prune()) == 0  # not again within the hour
    finally:
        store.close()


def test_a_filter_id_longer_than_the_published_limit_is_a_400(sandbox: Sandbox) -> None:
    org_id = sandbox.creds.org_id
    with sandbox.admin() as admin:
        for path in ("usage/completions", "usage/refused"):
            params: dict[str, str | int] = {"start_time": 0, "api_key_ids": "k" * 65}
            refused = admin.get(f"/organizations/{org_id}/{path}", params=params)
            assert refused.status_code == 400 and refused.json()["error"]["param"] == "api_key_ids", (
                refused.text
            )
            params = {"start_time": 0, "api_key_ids": ",".join(["k" * 64] * 3)}  # each id within it
            assert admin.get(f"/organizations/{org_id}/{path}", params=params).status_code == 200


def test_the_price_table_is_read_through_the_admin_api(sandbox: Sandbox) -> None:
    path = f"/organizations/{sandbox.creds.org_id}/prices"
    with sandbox.admin() as admin:
        answer = admin.get(path)
    assert answer.status_code == 200, answer.text
    prices = {item["model"]: item for item in answer.json()["data"]}
    assert prices["service-pro"] == {
        "object": "price",
        "model": "service-pro",
        "input": 1.25,
        "cached_input": 0.125,
        "output": 10.0,
        "currency": "usd",
    }
    assert set(prices) >= {"service-ultra", "service-think", "service-think-mini"}
    with sandbox.api() as api:  # the organization's prices: an admin key's
        assert api.get(path).status_code == 403


def test_a_page_cursor_longer_than_the_published_limit_is_a_400(sandbox: Sandbox) -> None:
    org_id = sandbox.creds.org_id
    with sandbox.admin() as admin:
        for path in ("usage/completions", "usage/refused", "costs"):
            params = {"start_time": "0", "page": "0" * 65}  # a number this query could give, written too long
            refused = admin.get(f"/organizations/{org_id}/{path}", params=params)
            assert refused.status_code == 400 and refused.json()["error"]["param"] == "page", refused.text
