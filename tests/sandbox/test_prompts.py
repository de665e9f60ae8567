"""Stored prompts: kept and versioned behind the Admin API, and resolved by the Responses API's `prompt`
parameter as the official client sends it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

openai = pytest.importorskip("openai")

from tests.conftest import Sandbox  # noqa: E402
from tests.sandbox.test_official_client import client, strict  # noqa: E402
from tests.sandbox.test_responses import data_url  # noqa: E402

FIRST = {
    "name": "Trip planner",
    "instructions": "You plan trips to {{city}}.",
    "input": "Plan {{days}} days in {{city}}.",
    "model": "service-pro",
    "note": "first draft",
}
SECOND = {
    "instructions": "You plan trips to {{city}}. Answer in one line.",
    "input": [{"role": "user", "content": "Plan {{days}} days in {{city}}, cheaply."}],
    "model": "service-pro",
    "note": "shorter answers",
}


def prompts_path(sandbox: Sandbox) -> str:
    return f"/organizations/{sandbox.creds.org_id}/prompts"


def saved_twice(sandbox: Sandbox) -> tuple[dict[str, Any], dict[str, Any]]:
    with sandbox.admin() as admin:
        first = admin.post(prompts_path(sandbox), json=FIRST)
        assert first.status_code == 200, first.text
        second = admin.post(f"{prompts_path(sandbox)}/{first.json()['id']}/versions", json=SECOND)
        assert second.status_code == 200, second.text
    return first.json(), second.json()


def test_a_prompt_saved_twice_keeps_both_versions(sandbox: Sandbox) -> None:
    first, second = saved_twice(sandbox)
    assert first["version"] == "1" and second["version"] == "2" and first["id"] == second["id"]
    assert first["variables"] == ["city", "days"] == second["variables"]
    assert second["name"] == "Trip planner" and second["note"] == "shorter answers"
    path = f"{prompts_path(sandbox)}/{first['id']}"
    with sandbox.admin() as admin:
        assert admin.get(path).json() == second  # the latest
        assert admin.get(f"{path}/versions/1").json() == first  # unchanged by the second save
        assert [v["version"] for v in admin.get(f"{path}/versions").json()["data"]] == ["2", "1"]
        listed = admin.get(prompts_path(sandbox), params={"search": "TRIP"}).json()["data"]
        assert [p["id"] for p in listed if p["id"] == first["id"]] == [first["id"]]
        assert admin.get(prompts_path(sandbox), params={"search": "no such words"}).json()["data"] == []
        assert admin.get(f"{path}/versions/3").status_code == 404
        assert admin.get(f"{prompts_path(sandbox)}/pmpt_none").status_code == 404


def test_the_official_client_resolves_a_stored_prompt(sandbox: Sandbox) -> None:
    first, _ = saved_twice(sandbox)
    with client(sandbox) as api:
        response = strict(
            api.responses.create(
                prompt={"id": first["id"], "version": "1", "variables": {"city": "Lisbon", "days": "3"}}
            )
        )
        latest = strict(
            api.responses.create(
                prompt={"id": first["id"], "variables": {"city": "Porto", "days": "2"}}, input="And food?"
            )
        )
        items = api.responses.input_items.list(latest.id, order="asc").data
    assert response.instructions == "You plan trips to Lisbon."
    assert response.prompt is not None and response.prompt.version == "1"
    assert response.model == "service-pro"  # the prompt's own
    assert latest.prompt is not None and latest.prompt.version == "2"
    assert latest.instructions == "You plan trips to Porto. Answer in one line."
    texts = [part.text for item in items for part in item.content]
    assert texts == ["Plan 2 days in Porto, cheaply.", "And food?"]


def test_an_image_variable_becomes_an_image_part(sandbox: Sandbox) -> None:
    with sandbox.admin() as admin:
        made = admin.post(
            prompts_path(sandbox), json={"name": "Describe", "input": "Describe {{photo}} briefly."}
        ).json()
    image = {"type": "input_image", "image_url": data_url()}
    with sandbox.api() as http:
        answer = http.post(
            "/responses",
            json={"model": "service-pro", "prompt": {"id": made["id"], "variables": {"photo": image}}},
        )
        assert answer.status_code == 200, answer.text
        items = http.get(f"/responses/{answer.json()['id']}/input_items").json()["data"]
    kinds = [part["type"] for part in items[0]["content"]]
    assert kinds == ["input_text", "input_image", "input_text"]


@pytest.mark.parametrize(
    ("prompt", "param", "code"),
    [
        ({"id": "pmpt_unknown"}, "prompt.id", "prompt_not_found"),
        ({"version": "9"}, "prompt.version", "prompt_version_not_found"),
        ({"version": "one"}, "prompt.version", "prompt_version_not_found"),
        ({"variables": {"city": "Rome", "days": "2", "weather": "sun"}}, "prompt.variables", None),
        ({"variables": {"city": "Rome"}}, "prompt.variables", "missing_prompt_variables"),
        ({"variables": {"city": 3, "days": "2"}}, "prompt.variables.city", "invalid_type"),
    ],
)
def test_what_the_service_refuses(
    sandbox: Sandbox, prompt: dict[str, Any], param: str, code: str | None
) -> None:
    first, _ = saved_twice(sandbox)
    sent = {"id": first["id"], "variables": {"city": "Rome", "days": "2"}, **prompt}
    with client(sandbox) as api, pytest.raises(openai.BadRequestError) as refused:
        api.responses.create(model="service-pro", prompt=sent)
    error = refused.value.body
    assert refused.value.status_code == 400 and error["param"] == param
    assert error["code"] == (code or "unknown_prompt_variable")
    if code is None:
        assert "'weather'" in error["message"]


def test_an_unknown_variable_is_a_400_through_the_official_client(sandbox: Sandbox) -> None:
    first, _ = saved_twice(sandbox)
    with client(sandbox) as api, pytest.raises(openai.BadRequestError) as refused:
        api.responses.create(prompt={"id": first["id"], "variables": {"city": "Oslo", "days": "1", "x": "y"}})
    assert refused.value.status_code == 400


def test_a_prompt_is_the_organizations_and_its_writes_are_checked(sandbox: Sandbox) -> None:
    with sandbox.api() as project_key:
        assert project_key.post(prompts_path(sandbox), json=FIRST).status_code == 403
    with sandbox.admin() as admin:
        assert admin.post("/organizations/org_other/prompts", json=FIRST).status_code == 403
        empty = admin.post(prompts_path(sandbox), json={"name": "Nothing"})
        assert empty.status_code == 400 and empty.json()["error"]["param"] == "input"
        unknown = admin.post(prompts_path(sandbox), json={**FIRST, "colour": "red"})
        assert unknown.status_code == 400
        missing = admin.post(f"{prompts_path(sandbox)}/pmpt_none/versions", json=SECOND)
        assert missing.status_code == 404


def test_nothing_a_client_sends_as_a_prompt_is_a_5xx(sandbox: Sandbox) -> None:
    first, _ = saved_twice(sandbox)
    odd: list[Any] = [
        "pmpt",
        {"id": 3},
        {"id": first["id"], "version": 2},
        {"id": first["id"], "variables": ["city"]},
        {"id": first["id"], "variables": {"city": {"type": "input_file", "file_id": "f"}, "days": "1"}},
        {"id": first["id"], "variables": {"city": {"type": "input_image"}, "days": "1"}},
        {"id": "", "variables": None},
    ]
    with sandbox.api() as http:
        for prompt in odd:
            answer: httpx.Response = http.post("/responses", json={"model": "service-pro", "prompt": prompt})
            assert answer.status_code == 400, (prompt, answer.text)


def test_each_save_is_in_the_audit_log_with_who_made_it(sandbox: Sandbox) -> None:
    first, _ = saved_twice(sandbox)
    log = f"/organizations/{sandbox.creds.org_id}/audit_log"
    with sandbox.admin() as admin:
        created = admin.get(log, params={"type": "prompt.created"}).json()["data"]
        versioned = admin.get(log, params={"type": "prompt.version.created"}).json()["data"]
        refused = admin.post(f"{prompts_path(sandbox)}/pmpt_none/versions", json=SECOND)
        after_refusal = admin.get(log, params={"type": "prompt.version.created"}).json()["data"]
    assert [event["entry_id"] for event in created] == [first["id"]]
    assert [event["entry_id"] for event in versioned] == [first["id"]]
    made = versioned[0]
    assert made["after"] == {
        "id": first["id"],
        "version": "2",
        "name": "Trip planner",
        "note": "shorter answers",
    }
    assert made["before"] == {"id": first["id"], "version": "1"}
    assert created[0]["after"]["version"] == "1" and created[0]["before"] is None
    assert made["actor"]["type"] == "api_key" and made["actor"]["id"] and "sk-" not in str(made)
    assert (made["scope"], made["owner_id"], made["result"]) == (
        "organization",
        sandbox.creds.org_id,
        "applied",
    )
    assert refused.status_code == 404 and len(after_refusal) == 1  # nothing saved, nothing recorded


def test_the_prompt_routes_are_in_the_openapi_document(sandbox: Sandbox) -> None:
    with sandbox.client() as anyone:
        document = anyone.get(sandbox.url.removesuffix("/v1") + "/openapi.json").json()
    paths = document["paths"]
    base = "/v1/organizations/{org_id}/prompts"
    assert set(paths[base]) >= {"get", "post"}
    assert "post" in paths[base + "/{prompt_id}/versions"] and "get" in paths[base + "/{prompt_id}/versions"]
    assert "get" in paths[base + "/{prompt_id}"] and "get" in paths[base + "/{prompt_id}/versions/{version}"]
    ref = paths[base]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    body = document["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert body["required"] == ["name"] and "options" in body["properties"]
