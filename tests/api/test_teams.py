"""The console's client for teams against the real sandbox: typed expiry and usage on entries, update_entry,
If-Match from the last read with AllowlistChanged (a PreconditionFailed) carrying the current list, and the
audit log's pages."""

from __future__ import annotations

import time

import pytest

from app.api import AllowlistChanged, ConnectionSettings, PreconditionFailed, ServiceClient
from app.api.audit import AuditActorKind, AuditResult
from tests.conftest import Sandbox

pytestmark = pytest.mark.anyio
ME = "198.51.100.7"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def console(sandbox: Sandbox) -> ServiceClient:
    """One admin's console, seen by the sandbox at ME."""
    settings = ConnectionSettings(
        base_url=sandbox.url,
        api_key=sandbox.creds.api_key,
        admin_key=sandbox.creds.admin_key,
        max_retries=0,
        forwarded_for=ME,
    )
    return ServiceClient(settings, sandbox.creds.org_id)


async def test_entries_carry_expiry_and_usage_and_update_entry_changes_the_expiry(sandbox: Sandbox) -> None:
    async with console(sandbox) as client:
        lists = client.allowlists
        later = int(time.time()) + 3600
        office = await lists.add("198.51.100.0/24", "office")
        ci = await lists.add("203.0.113.0/24", "CI", expires_at=later)
        assert (office.expires_at, ci.expires_at) == (None, later) and not ci.expired
        assert ci.seconds_left(later - 10) == 10 and ci.expired_at(later) and not office.expired_at(later)
        await lists.set_enabled(True)
        for _ in range(2):
            await client.models()  # admitted by the office entry: usage on it
        listed = await lists.get()
        assert listed.entry(office.id).hit_count >= 2
        assert listed.entry(office.id).last_matched_at is not None
        assert listed.entry(ci.id).hit_count == 0
        extended = await lists.update_entry(ci.id, later + 86_400, description="CI, nightly")
        assert extended.expires_at == later + 86_400 and extended.description == "CI, nightly"
        forever = await lists.update_entry(ci.id, None)
        assert forever.expires_at is None and forever.description == "CI, nightly"


async def test_a_change_after_another_admins_change_is_refused_with_the_current_list(
    sandbox: Sandbox,
) -> None:
    async with console(sandbox) as mine, console(sandbox) as theirs:
        read = await mine.allowlists.get()
        assert read.version and mine.allowlists.version() == read.version
        added = await theirs.allowlists.add("203.0.113.0/24", "their runner")
        with pytest.raises(AllowlistChanged) as refused:
            await mine.allowlists.add("192.0.2.0/24", "mine")
        current = refused.value.current
        assert current is not None and [entry.id for entry in current.entries] == [added.id]
        assert isinstance(refused.value, PreconditionFailed)
        assert refused.value.status == 412 and refused.value.code == "precondition_failed"
        for change in (
            mine.allowlists.set_enabled(False),
            mine.allowlists.update_entry(added.id, None),
            mine.allowlists.remove(added.id),
        ):
            with pytest.raises(AllowlistChanged):
                await change
        await mine.allowlists.get()  # read again: the change goes through against the current version
        entry = await mine.allowlists.add("192.0.2.0/24", "mine")
        assert mine.allowlists.version() != current.version
        await mine.allowlists.remove(entry.id)  # the version of my own last change is the one sent
        await theirs.allowlists.add("192.0.3.0/24", if_match=False)  # unconditional, whatever changed


async def test_the_audit_log_pages_through_every_event(sandbox: Sandbox) -> None:
    async with console(sandbox) as client:
        lists = client.allowlists
        for i in range(5):
            await lists.add(f"10.0.{i}.0/24")
        await lists.add("10.9.0.0/16", project_id=sandbox.creds.project_id)
        page = await client.audit_log.page(limit=2)
        assert len(page.data) == 2 and page.has_more and page.next_after == page.last_id
        events = [event async for event in client.audit_log.events(page_size=2)]
        assert len(events) == 6 and len({event.id for event in events}) == 6
        first = events[-1]
        assert first.type == "ip_allowlist.entry.created" and first.result == AuditResult.APPLIED
        assert first.actor.type == AuditActorKind.API_KEY
        assert first.actor.name == "First admin key" and first.source_ip == ME
        assert first.after is not None and first.after.cidr == "10.0.0.0/24" and first.before is None
        project = await client.audit_log.page(project_id=sandbox.creds.project_id)
        assert [event.after.cidr for event in project.data if event.after] == ["10.9.0.0/16"]
        newest = [event async for event in client.audit_log.events(limit=3)]
        assert [event.id for event in newest] == [event.id for event in events[:3]]
        created = await client.audit_log.page(event_type="ip_allowlist.entry.created", limit=100)
        assert len(created.data) == 6
