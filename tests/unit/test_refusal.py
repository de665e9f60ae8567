"""Which list refused: the lists read through the Admin API of a real sandbox, judged by netrules' policy, and
the gateway's own answer for the same address agrees."""

from __future__ import annotations

import pytest

from app.api import ConnectionSettings, ServiceClient
from app.core.refusal import Refusal, find_refusal
from app.netrules.policy import Verdict
from app.sandbox.store.database import run_blocking
from tests.conftest import Sandbox

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def admin_client(sandbox: Sandbox, ip: str, admin_key: str | None = None) -> ServiceClient:
    settings = ConnectionSettings(
        base_url=sandbox.url,
        admin_key=sandbox.creds.admin_key if admin_key is None else admin_key or None,
        max_retries=0,
        forwarded_for=ip,
    )
    return ServiceClient(settings, sandbox.creds.org_id)


def set_lists(sandbox: Sandbox, org: list[str], project: list[str]) -> None:
    store, creds = sandbox.server.store, sandbox.creds
    for scope, owner, cidrs in (("organization", creds.org_id, org), ("project", creds.project_id, project)):
        for cidr in cidrs:
            run_blocking(store.allowlists.add_entry(scope, owner, cidr, ""))
        run_blocking(store.allowlists.set_enabled(scope, owner, True))


async def test_each_verdict_is_read_from_the_lists_and_matches_the_gateway(sandbox: Sandbox) -> None:
    set_lists(sandbox, ["198.51.100.0/24", "203.0.113.0/24"], ["198.51.100.0/24", "192.0.2.0/24"])
    expected = {
        "203.0.113.9": Verdict.PROJECT,
        "192.0.2.5": Verdict.ORGANIZATION,
        "10.1.1.1": Verdict.BOTH,
        "198.51.100.7": Verdict.ADMITTED,
    }
    # The admin reads from an address both lists admit.
    async with admin_client(sandbox, "198.51.100.1") as client:
        for ip, verdict in expected.items():
            refusal = await find_refusal(client, sandbox.creds.project_id, ip)
            assert refusal.verdict == verdict, ip
            with sandbox.api(ip) as api:
                status = api.post("/responses", json={"model": "service-pro", "input": "hi"}).status_code
            assert (status == 403) == (verdict != Verdict.ADMITTED), ip


async def test_a_refused_admin_read_from_the_same_address_names_the_organization_list(
    sandbox: Sandbox,
) -> None:
    set_lists(sandbox, ["198.51.100.0/24"], [])
    async with admin_client(sandbox, "203.0.113.9") as client:
        refusal = await find_refusal(client, sandbox.creds.project_id, "203.0.113.9")
    assert refusal.verdict is None and "organization's list refuses it" in refusal.problem
    assert refusal.lists_to_fix == (None, sandbox.creds.project_id)


async def test_without_an_admin_key_nothing_is_read(sandbox: Sandbox) -> None:
    async with admin_client(sandbox, "203.0.113.9", admin_key="") as client:
        refusal = await find_refusal(client, sandbox.creds.project_id, "203.0.113.9")
    assert refusal.verdict is None and "no admin key" in refusal.problem
    assert "could not be read" in refusal.text and refusal.action == "Allow this IP in Security…"


def test_the_lists_to_fix_and_the_words_follow_the_verdict() -> None:
    def of(verdict: Verdict | None) -> Refusal:
        return Refusal("203.0.113.9", "proj_1", verdict)

    assert of(Verdict.ORGANIZATION).lists_to_fix == (None,)
    assert of(Verdict.PROJECT).lists_to_fix == ("proj_1",)
    assert of(Verdict.BOTH).lists_to_fix == (None, "proj_1")
    assert of(Verdict.ADMITTED).lists_to_fix == () and of(Verdict.ADMITTED).action == ""
    assert "both the organization's and the project's" in of(Verdict.BOTH).text
    assert of(Verdict.BOTH).action == "Allow this IP in both lists…"
    assert "organization's IP allowlist refused" in of(Verdict.ORGANIZATION).text
    for verdict in Verdict:
        assert "203.0.113.9" in of(verdict).text


async def test_an_entry_that_expired_is_not_taken_for_the_one_that_admits(sandbox: Sandbox) -> None:
    """Issue 38: a 403 from an address whose only entry expired names the organization's list."""
    set_lists(sandbox, ["198.51.100.0/24"], [])
    store, creds = sandbox.server.store, sandbox.creds
    past = int(store.clock()) - 1
    run_blocking(store.allowlists.add_entry("organization", creds.org_id, "203.0.113.23/32", expires_at=past))
    async with admin_client(sandbox, "198.51.100.1") as client:
        refusal = await find_refusal(client, None, "203.0.113.23")
    assert refusal.verdict == Verdict.ORGANIZATION
    with sandbox.api("203.0.113.23") as api:
        assert api.get("/models").status_code == 403  # as the gateway says
