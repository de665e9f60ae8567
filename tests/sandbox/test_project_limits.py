"""A project's own rate limits: set through the Admin API (audited), enforced after the key with the hosted
service's x-ratelimit-* headers, and a 429 the official client's retry waits out as the headers say."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

openai = pytest.importorskip("openai")

from tests.conftest import Sandbox, SandboxFactory  # noqa: E402


def _clock_at(second: float) -> Callable[[], float]:
    """A clock `second` seconds into its minute now, running with the real one."""
    offset = (second - time.time() % 60) % 60
    return lambda: time.time() + offset


class _HeldClock:
    """A clock held `second` seconds into a minute until `run()`, then running with the real one: the
    refusal's wait is exactly the rest of that minute, however long the requests before it took."""

    def __init__(self, second: float) -> None:
        self._now = time.time() // 60 * 60 + second
        self._since: float | None = None

    def __call__(self) -> float:
        return self._now if self._since is None else self._now + time.time() - self._since

    def run(self) -> None:
        self._since = time.time()


def _set(sandbox: Sandbox, limit_id: str, **counts: Any) -> dict[str, Any]:
    path = f"/organizations/{sandbox.creds.org_id}/projects/{sandbox.creds.project_id}/rate_limits"
    with sandbox.admin() as admin:
        answer = admin.post(f"{path}/{limit_id}", json=counts)
        assert answer.status_code == 200, answer.text
        listed = admin.get(path).json()["data"]
    assert next(limit for limit in listed if limit["id"] == limit_id) == answer.json()
    body: dict[str, Any] = answer.json()
    return body


def test_request_n_plus_one_is_refused_and_the_client_waits_as_told(sandbox_factory: SandboxFactory) -> None:
    clock = _HeldClock(59.5)
    sandbox = sandbox_factory(clock=clock)
    limit = _set(sandbox, "rl-project", max_requests_per_1_minute=3)
    assert limit == {
        "object": "project.rate_limit",
        "id": "rl-project",
        "model": None,
        "max_requests_per_1_minute": 3,
        "max_tokens_per_1_minute": None,
    }
    body = {"model": "service-pro", "input": "Hello"}
    with sandbox.api() as api:
        remaining = [
            api.post("/responses", json=body).headers["x-ratelimit-remaining-requests"] for _ in range(3)
        ]
        assert remaining == ["2", "1", "0"]
        refused = api.post("/responses", json=body)
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limit_exceeded"
    headers = refused.headers
    assert headers["x-ratelimit-limit-requests"] == "3" and headers["x-ratelimit-remaining-requests"] == "0"
    wait = float(headers["retry-after-ms"]) / 1000
    assert wait == 0.5 and headers["retry-after"] == "1" and headers["x-ratelimit-reset-requests"] == "1s"
    assert "Limit 3, Used 3" in refused.json()["error"]["message"]
    # The official client waits what retry-after-ms says (a retry sooner would be refused again, as the clock
    # then is still in the full minute), then the next minute admits it.
    clock.run()
    with openai.OpenAI(base_url=sandbox.url, api_key=sandbox.creds.api_key, max_retries=2) as client:
        started = time.monotonic()
        answer = client.responses.create(model="service-pro", input="Hello again")
        waited = time.monotonic() - started
    assert answer.status == "completed" and waited >= wait
    with sandbox.admin() as admin:
        events = admin.get(
            f"/organizations/{sandbox.creds.org_id}/audit_log", params={"type": "rate_limit.updated"}
        ).json()["data"]
    assert events[0]["after"]["max_requests_per_1_minute"] == 3 and events[0]["before"]["id"] == "rl-project"


def test_a_model_limit_on_tokens_holds_that_model_only(sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory(clock=_clock_at(5.0))
    _set(sandbox, "rl-service-think", max_tokens_per_1_minute=5)
    with sandbox.api() as api:
        first = api.post("/responses", json={"model": "service-think", "input": "Think"})
        assert first.status_code == 200 and first.headers["x-ratelimit-limit-tokens"] == "5"
        refused = api.post("/responses", json={"model": "service-think", "input": "Think more"})
        assert refused.status_code == 429 and "tokens per min" in refused.json()["error"]["message"]
        assert refused.headers["x-ratelimit-remaining-tokens"] == "0"
        other = api.post("/responses", json={"model": "service-pro", "input": "Other model"})
        assert other.status_code == 200 and "x-ratelimit-limit-tokens" not in other.headers
    _set(sandbox, "rl-service-think", max_tokens_per_1_minute=None)  # null removes it
    with sandbox.api() as api:
        assert api.post("/responses", json={"model": "service-think", "input": "Free"}).status_code == 200
    with sandbox.admin() as admin:
        path = f"/organizations/{sandbox.creds.org_id}/projects/{sandbox.creds.project_id}/rate_limits"
        assert admin.post(f"{path}/rl-nothing", json={}).status_code == 404
        assert admin.post(f"{path}/rl-project", json={"max_requests_per_1_minute": 0}).status_code == 400
    with sandbox.api() as api:  # a project key cannot change its own limits
        assert api.post(f"{path}/rl-project", json={"max_requests_per_1_minute": 9}).status_code == 403
