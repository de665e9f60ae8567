"""The README's table of what the sandbox honours, echoes or refuses is true: each row is sent to the server,
every parameter of the contract has a row, and the refused tool types are the ones the code refuses."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.sandbox.contract.responses import CreateResponse
from app.sandbox.request.unsupported import REFUSED_PARTS, REFUSED_TOOLS
from tests.conftest import Sandbox

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()
ROW = re.compile(r"^\| `(\w+)` \| (honoured|echoed|refused) \|", re.MULTILINE)
ROWS = dict(ROW.findall(README))
STORED_PROMPT = {"name": "Greeter", "instructions": "Be brief."}
WEATHER = {"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {}}}


def _previous(http: httpx.Client) -> str:
    return str(http.post("/responses", json={"model": "service-pro", "input": "First"}).json()["id"])


def _conversation(http: httpx.Client) -> str:
    return str(http.post("/conversations", json={}).json()["id"])


# A value of each parameter, as a client would send it (a callable: made on the server first).
SAMPLES: dict[str, Any] = {
    "model": "service-pro",
    "input": [{"role": "user", "content": "Hello"}],
    "instructions": "Be brief.",
    "previous_response_id": _previous,
    "tools": [WEATHER],
    "tool_choice": "none",
    "parallel_tool_calls": False,
    "max_tool_calls": 2,
    "text": {"verbosity": "low"},
    "reasoning": {"effort": "low"},
    "include": ["web_search_call.action.sources"],
    "stream": False,
    "stream_options": {"include_obfuscation": False},
    "max_output_tokens": 100,
    "temperature": 0.5,
    "top_p": 0.9,
    "truncation": "auto",
    "store": False,
    "top_logprobs": 2,
    "presence_penalty": 0.5,
    "frequency_penalty": -0.5,
    "background": True,
    "conversation": _conversation,
    "metadata": {"k": "v"},
    "user": "user-1",
    "safety_identifier": "safe-1",
    "prompt_cache_key": "key-1",
    "prompt_cache_retention": "24h",
    "service_tier": "flex",
    "client_metadata": {"session": "s-1"},
    "prompt": {"id": "made on the server first"},
    "context_management": [{"type": "compaction"}],
    "moderation": {},
    "image": {},
    "access_programs": {},
    "background_options": {},
    "prompt_cache_options": {},
}


def test_every_parameter_has_a_row_and_a_sample() -> None:
    assert set(ROWS) == set(CreateResponse.model_fields) == set(SAMPLES)


@pytest.mark.parametrize(("name", "verdict"), sorted(ROWS.items()))
def test_each_row_holds(sandbox: Sandbox, name: str, verdict: str) -> None:
    with sandbox.api() as http:
        sample = SAMPLES[name]
        value = sample(http) if isinstance(sample, Callable) else sample  # type: ignore[arg-type]
        if name == "prompt":  # a prompt the organization stores (made with the admin key)
            with sandbox.admin() as admin:
                made = admin.post(f"/organizations/{sandbox.creds.org_id}/prompts", json=STORED_PROMPT)
            value = {"id": made.json()["id"], "version": "1"}
        model = "service-think" if name == "reasoning" else "service-pro"
        response = http.post("/responses", json={"model": model, "input": "Hello", name: value})
    body = response.json()
    if verdict == "refused":
        assert response.status_code == 400 and body["error"]["param"] == name, body
        assert "not supported here" in body["error"]["message"]
        return
    assert response.status_code == 200, body
    if verdict == "echoed":
        assert body[name] == value


def test_the_refused_tool_types_and_parts_are_the_codes(sandbox: Sandbox) -> None:
    tools = re.search(r"Tool types refused: (.*?)\.\n", README, re.DOTALL)
    parts = re.search(r"Content parts refused: (.*?)\.", README, re.DOTALL)
    assert tools is not None and parts is not None
    assert set(re.findall(r"`(\w+)`", tools.group(1))) == REFUSED_TOOLS
    assert set(re.findall(r"`(\w+)`", parts.group(1))) == REFUSED_PARTS
    with sandbox.api() as http:
        for kind in sorted(REFUSED_TOOLS):
            response = http.post(
                "/responses", json={"model": "service-pro", "input": "x", "tools": [{"type": kind}]}
            )
            error = response.json()["error"]
            assert (
                response.status_code == 400 and error["param"] == "tools[0].type" and kind in error["message"]
            )
