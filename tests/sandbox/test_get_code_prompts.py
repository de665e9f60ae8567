"""The Playground's Get code for a turn from a stored prompt runs unchanged as saved against the sandbox: the
`prompt` parameter (id, version, variables) where the service keeps the prompt, with curl, the official
Python client and the official Node.js client; the filled text where it does not. No key is written."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from app.api.prompts import StoredPrompt
from app.core.playground.snippets import all_snippets
from app.core.playground.turns import RequestOptions
from app.core.prompt_turns import PromptUse, prompt_turn
from tests.conftest import Sandbox
from tests.fork_server import ForkServer
from tests.sandbox.test_get_code import ON_THE_PYTHON_PARENT, npm_project, run, run_python

VALUES = {"city": "Lisbon", "days": "3"}
TRIP = {"name": "Trip planner", "instructions": "You plan trips to {{city}}.", "input": "Plan {{days}} days."}


def stored_twice(client: httpx.Client, org_id: str) -> StoredPrompt:
    """The trip planner with two variables, saved twice: its second version."""
    first = client.post(f"/organizations/{org_id}/prompts", json={**TRIP, "note": "first"}).json()
    second = client.post(
        f"/organizations/{org_id}/prompts/{first['id']}/versions",
        json={**TRIP, "input": "Plan {{days}} days in {{city}}.", "note": "names the city"},
    )
    assert second.status_code == 200, second.text
    return StoredPrompt.model_validate(second.json())


def prompt_snippets(sandbox: Sandbox, stored: StoredPrompt, stores: bool) -> dict[str, str]:
    plan, _shown = prompt_turn(
        [], PromptUse(stored, VALUES), "", [], RequestOptions("service-pro"), "", stores
    )
    code = all_snippets(sandbox.url, plan.body, "SERVICE_API_KEY")
    assert all(sandbox.creds.api_key not in text and "SERVICE_API_KEY" in text for text in code.values())
    return code


def trip(sandbox: Sandbox) -> StoredPrompt:
    with sandbox.admin() as admin:
        return stored_twice(admin, sandbox.creds.org_id)


def test_curl_sends_the_prompt_parameter_and_the_sandbox_fills_it(sandbox: Sandbox, tmp_path: Path) -> None:
    stored = trip(sandbox)
    code = prompt_snippets(sandbox, stored, stores=True)["curl"]
    assert f'"id": "{stored.id}"' in code and '"version": "2"' in code and "Lisbon" not in code.split("-d")[0]
    answer = json.loads(run(["bash", "-c", code], sandbox, tmp_path))
    assert answer["status"] == "completed" and answer["prompt"]["version"] == "2"
    assert "Lisbon" in answer["output"][-1]["content"][0]["text"]


@ON_THE_PYTHON_PARENT
def test_python_sends_the_prompt_parameter_with_the_official_client(
    sandbox: Sandbox, tmp_path: Path, python_openai: ForkServer
) -> None:
    code = prompt_snippets(sandbox, trip(sandbox), stores=True)["Python"]
    assert "    prompt={" in code and "instructions" not in code
    (tmp_path / "prompt.py").write_text(code)
    assert "Lisbon" in run_python("prompt.py", sandbox, tmp_path, python_openai)


def test_node_sends_the_prompt_parameter_with_the_official_client(sandbox: Sandbox, tmp_path: Path) -> None:
    project = npm_project(tmp_path)
    code = prompt_snippets(sandbox, trip(sandbox), stores=True)["Node.js"]
    assert '"prompt": {' in code
    (project / "main.js").write_text(code)
    assert "Lisbon" in run(["node", "main.js"], sandbox, project)


@ON_THE_PYTHON_PARENT
def test_without_stored_prompts_the_code_sends_the_filled_text(
    sandbox: Sandbox, tmp_path: Path, python_openai: ForkServer
) -> None:
    code = prompt_snippets(sandbox, trip(sandbox), stores=False)["Python"]
    assert "prompt=" not in code
    assert 'instructions="You plan trips to Lisbon."' in code and 'input="Plan 3 days in Lisbon."' in code
    (tmp_path / "text.py").write_text(code)
    assert "Lisbon" in run_python("text.py", sandbox, tmp_path, python_openai)
