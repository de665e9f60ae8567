"""The Admin API resource: typed models read at the edge, and writes that are never doubled when a
kept-alive connection drops before the answer (small scripted peers: the sandbox never drops one)."""

from __future__ import annotations

import json

import pytest

from app.api import ConnectionSettings, InvalidResponse, ServiceClient, UnansweredWrite
from app.api.admin import Allowlist, Entry, parse, parse_entry
from tests.api.servers import CLOSE, ScriptedServer, reply

pytestmark = pytest.mark.anyio

JSON = {"content-type": "application/json"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def admin(url: str) -> ServiceClient:
    return ServiceClient(ConnectionSettings(base_url=url, admin_key="k", max_retries=0), "org_1")


def listed(*entries: dict[str, object]) -> bytes:
    body = {"object": "ip_allowlist", "scope": "organization", "enabled": False, "entries": list(entries)}
    return reply("200 OK", json.dumps(body).encode(), JSON)


OFFICE = {"id": "ipal_1", "cidr": "198.51.100.0/24", "description": "office", "created_at": 1}


def test_models_ignore_unknown_fields_and_name_a_wrong_one() -> None:
    data = {"scope": "project", "enabled": True, "entries": [{**OFFICE, "colour": "red"}], "extra": 1}
    allowlist = parse(Allowlist, data, "an allowlist")
    assert allowlist.entries == (
        Entry(id="ipal_1", cidr="198.51.100.0/24", description="office", created_at=1),
    )
    assert (
        parse_entry({"id": "a", "cidr": "10.0.0.0/8", "description": None, "colour": "red"}).description == ""
    )
    with pytest.raises(InvalidResponse, match=r"an allowlist entry the console cannot read \(cidr"):
        parse_entry({"id": "a", "cidr": 5})
    with pytest.raises(InvalidResponse, match="an allowlist entry that is not a JSON object"):
        parse_entry(["a"])
    with pytest.raises(InvalidResponse, match=r"entries\.0\.cidr"):
        parse(Allowlist, {"enabled": True, "entries": [{"id": "a", "cidr": 5}]}, "an allowlist")
    partials: list[dict[str, object]] = [{}, {"enabled": True}, {"entries": []}]
    for partial in partials:  # no allowlist, never an empty one that is off
        with pytest.raises(InvalidResponse, match="field required"):
            parse(Allowlist, partial, "an allowlist")
    with pytest.raises(InvalidResponse, match="not a JSON object"):
        parse(Allowlist, [1], "an allowlist")


async def test_an_add_already_listed_after_a_drop_is_that_entry_not_a_second() -> None:
    with ScriptedServer([listed(), CLOSE, listed(OFFICE)]) as server:
        async with admin(server.url) as api:
            await api.allowlists.get()  # leaves a kept-alive connection
            entry = await api.allowlists.add("198.51.100.0/24", "office")
            assert entry.id == "ipal_1"
            # never a second POST:
            assert [method for method, _, _ in server.requests] == ["GET", "POST", "GET"]


async def test_an_add_not_yet_listed_after_a_drop_is_sent_again() -> None:
    created = reply("201 Created", json.dumps(OFFICE).encode(), JSON)
    with ScriptedServer([listed(), CLOSE, listed(), created]) as server:
        async with admin(server.url) as api:
            await api.allowlists.get()
            assert (await api.allowlists.add("198.51.100.0/24")).cidr == "198.51.100.0/24"
            assert [method for method, _, _ in server.requests] == ["GET", "POST", "GET", "POST"]


async def test_a_remove_after_a_drop_is_done_when_gone_and_resent_while_listed() -> None:
    with ScriptedServer([listed(OFFICE), CLOSE, listed()]) as server:
        async with admin(server.url) as api:
            await api.allowlists.get()
            assert (await api.allowlists.remove("ipal_1")).deleted is True
            assert [method for method, _, _ in server.requests] == ["GET", "DELETE", "GET"]
    deleted = reply("200 OK", b'{"id": "ipal_1", "deleted": true}', JSON)
    with ScriptedServer([listed(OFFICE), CLOSE, listed(OFFICE), deleted]) as server:
        async with admin(server.url) as api:
            await api.allowlists.get()
            assert (await api.allowlists.remove("ipal_1")).deleted is True
            assert [method for method, _, _ in server.requests] == ["GET", "DELETE", "GET", "DELETE"]


async def test_switching_is_resent_and_a_failed_check_says_so() -> None:
    switched = reply("200 OK", b'{"scope": "organization", "enabled": true, "entries": []}', JSON)
    with ScriptedServer([listed(), CLOSE, switched]) as server:
        async with admin(server.url) as api:
            await api.allowlists.get()
            assert (await api.allowlists.set_enabled(True)).enabled is True
    with ScriptedServer([listed(), CLOSE, CLOSE]) as server:
        async with admin(server.url) as api:
            await api.allowlists.get()
            with pytest.raises(UnansweredWrite, match="checking whether the change was made failed"):
                await api.allowlists.add("198.51.100.0/24")
