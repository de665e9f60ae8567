"""Expiring entries, usage per entry, list versions (ETag, If-Match, 412) and the audit log, against a real
sandbox whose clock the test moves (injected through SandboxConfig.clock: nothing sleeps for an expiry)."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from app.sandbox import SandboxServer
from app.sandbox.store.aggregates import Store
from app.sandbox.store.database import run_blocking
from tests.conftest import Sandbox, SandboxFactory
from tests.fork_server import ForkServer
from tests.sandbox_process import spawn_sandbox

START = 1_800_000_000.0
ME = "198.51.100.7"
ADMIN = "192.0.2.50"


class Clock:
    """Unix seconds that move only when the test says so."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def clocked(sandbox_factory: Callable[..., Sandbox], **overrides: object) -> tuple[Sandbox, Clock]:
    clock = Clock()
    return sandbox_factory(clock=clock, **overrides), clock


def entries_path(sandbox: Sandbox) -> str:
    return sandbox.org_list + "/entries"


def add(admin: httpx.Client, sandbox: Sandbox, cidr: str, **fields: object) -> dict[str, Any]:
    response = admin.post(entries_path(sandbox), json={"cidr": cidr, **fields})
    assert response.status_code == 201, response.text
    return dict(response.json())


def enable(admin: httpx.Client, sandbox: Sandbox, force: bool = False) -> httpx.Response:
    return admin.patch(sandbox.org_list, json={"enabled": True}, params={"force": "true"} if force else None)


def status_from(sandbox: Sandbox, ip: str) -> int:
    with sandbox.api(ip) as client:
        return client.get("/models").status_code


# -- expiry -----------------------------------------------------------------------------------------


def test_the_gateway_stops_admitting_by_an_entry_at_the_second_it_expires(
    sandbox_factory: SandboxFactory,
) -> None:
    sandbox, clock = clocked(sandbox_factory)
    with sandbox.admin(ME) as admin:
        add(admin, sandbox, "198.51.100.0/24")
        ci = add(admin, sandbox, "203.0.113.0/24", description="CI runner", expires_at=int(START) + 3600)
        assert ci["expires_at"] == int(START) + 3600 and ci["expired"] is False
        assert enable(admin, sandbox).status_code == 200
        clock.now = START + 3599.999
        assert status_from(sandbox, "203.0.113.9") == 200
        clock.now = START + 3600
        assert status_from(sandbox, "203.0.113.9") == 403
        listed = admin.get(sandbox.org_list).json()["entries"]
        assert [(e["id"], e["expired"]) for e in listed][1] == (ci["id"], True)  # still listed, shown expired
        assert status_from(sandbox, ME) == 200  # the entry that does not expire still admits


def test_a_nested_entry_that_expired_leaves_the_one_around_it_in_force(
    sandbox_factory: SandboxFactory,
) -> None:
    sandbox, clock = clocked(sandbox_factory)
    with sandbox.admin(ME) as admin:
        add(admin, sandbox, "198.51.100.0/24")
        add(admin, sandbox, "203.0.113.0/24", expires_at=int(START) + 100)
        add(admin, sandbox, "203.0.113.8/29", expires_at=int(START) + 10)
        enable(admin, sandbox)
        clock.now = START + 50
        assert status_from(sandbox, "203.0.113.9") == 200  # the /29 expired, the /24 around it has not
        clock.now = START + 100
        assert status_from(sandbox, "203.0.113.9") == 403


def test_an_expiry_in_the_past_or_of_the_wrong_type_is_a_400_that_adds_nothing(
    sandbox_factory: SandboxFactory,
) -> None:
    sandbox, _ = clocked(sandbox_factory)
    with sandbox.admin(ME) as admin:
        for value, code in (
            (int(START), "invalid_expires_at"),
            ("soon", None),
            (1.5e9, None),
            (10**13, None),
        ):
            response = admin.post(entries_path(sandbox), json={"cidr": "192.0.2.0/24", "expires_at": value})
            assert response.status_code == 400, value
            assert response.json()["error"]["param"] == "expires_at"
            if code:
                assert response.json()["error"]["code"] == code
        assert admin.get(sandbox.org_list).json()["entries"] == []


def test_patch_extends_shortens_or_clears_an_expiry(sandbox_factory: SandboxFactory) -> None:
    sandbox, clock = clocked(sandbox_factory)
    with sandbox.admin(ME) as admin:
        add(admin, sandbox, "198.51.100.0/24")
        ci = add(admin, sandbox, "203.0.113.0/24", expires_at=int(START) + 60)
        enable(admin, sandbox)
        path = f"{entries_path(sandbox)}/{ci['id']}"
        patched = admin.patch(path, json={"expires_at": int(START) + 7200, "description": "CI, one more job"})
        assert patched.status_code == 200 and patched.headers["etag"]
        assert patched.json()["expires_at"] == int(START) + 7200
        assert patched.json()["description"] == "CI, one more job"
        clock.now = START + 3600
        assert status_from(sandbox, "203.0.113.9") == 200  # extended: still admitted after the first hour
        assert admin.patch(path, json={"expires_at": None}).json()["expires_at"] is None
        clock.now = START + 10**6
        assert status_from(sandbox, "203.0.113.9") == 200
        missing = admin.patch(f"{entries_path(sandbox)}/ipal_nothing", json={"expires_at": None})
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "entry_not_found"
        assert admin.patch(path, json={}).status_code == 400  # expires_at is required (null: never)


def test_the_service_removes_an_expired_entry_after_the_grace_period(sandbox_factory: SandboxFactory) -> None:
    sandbox, clock = clocked(sandbox_factory, expired_grace_seconds=3600)
    with sandbox.admin(ME) as admin:
        ci = add(admin, sandbox, "203.0.113.0/24", expires_at=int(START) + 60)
        clock.now = START + 60 + 3599
        run_blocking(sandbox.server.keeper.tick())
        assert [e["id"] for e in admin.get(sandbox.org_list).json()["entries"]] == [ci["id"]]
        clock.now = START + 60 + 3600
        run_blocking(sandbox.server.keeper.tick())
        assert admin.get(sandbox.org_list).json()["entries"] == []
        event = admin.get(f"/organizations/{sandbox.creds.org_id}/audit_log").json()["data"][0]
        assert event["type"] == "ip_allowlist.entry.expired" and event["actor"]["type"] == "service"
        assert event["before"]["cidr"] == "203.0.113.0/24" and event["after"] is None


# -- the lockout guard's minute ---------------------------------------------------------------------


def test_the_lockout_guard_never_counts_an_entry_expiring_within_a_minute(
    sandbox_factory: SandboxFactory,
) -> None:
    sandbox, clock = clocked(sandbox_factory)
    with sandbox.admin(ME) as admin:
        mine = add(admin, sandbox, "198.51.100.0/24", expires_at=int(START) + 60)
        refused = enable(admin, sandbox)
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "would_block_caller"
        path = f"{entries_path(sandbox)}/{mine['id']}"
        assert admin.patch(path, json={"expires_at": int(START) + 61}).status_code == 200
        assert enable(admin, sandbox).status_code == 200  # 61 s left: it counts
        # Shortening the caller's only entry to within the minute locks the caller out: refused, unless forced.
        short = admin.patch(path, json={"expires_at": int(START) + 30})
        assert short.status_code == 409 and short.json()["error"]["code"] == "would_block_caller"
        assert (
            admin.patch(path, json={"expires_at": int(START) + 30}, params={"force": "true"}).status_code
            == 200
        )
        clock.now = START + 30
        assert status_from(sandbox, ME) == 403


def test_removing_the_entry_that_lasts_is_refused_when_the_other_expires_within_a_minute(
    sandbox_factory: SandboxFactory,
) -> None:
    sandbox, _ = clocked(sandbox_factory)
    with sandbox.admin(ME) as admin:
        lasting = add(admin, sandbox, "198.51.100.0/24")
        add(admin, sandbox, "198.51.100.7/32", expires_at=int(START) + 59)
        enable(admin, sandbox)
        response = admin.delete(f"{entries_path(sandbox)}/{lasting['id']}")
        assert response.status_code == 409 and response.json()["error"]["code"] == "would_block_caller"


# -- versions: ETag, If-Match, 412 ------------------------------------------------------------------


def test_every_list_read_carries_a_version_that_every_change_moves(sandbox: Sandbox) -> None:
    with sandbox.admin(ME) as admin:
        first = admin.get(sandbox.org_list)
        assert first.headers["etag"] == f'"{first.json()["version"]}"'
        entry = admin.post(sandbox.org_list + "/entries", json={"cidr": "198.51.100.0/24"})
        tags = [first.headers["etag"], entry.headers["etag"]]
        tags.append(
            admin.patch(
                f"{sandbox.org_list}/entries/{entry.json()['id']}", json={"expires_at": None}
            ).headers["etag"]
        )
        tags.append(admin.patch(sandbox.org_list, json={"enabled": True}).headers["etag"])
        tags.append(admin.patch(sandbox.org_list, json={"enabled": False}).headers["etag"])
        tags.append(
            admin.delete(
                f"{sandbox.org_list}/entries/{entry.json()['id']}", params={"force": "true"}
            ).headers["etag"]
        )
        assert len(set(tags)) == 6
        assert admin.get(sandbox.org_list).headers["etag"] == tags[-1]
        with sandbox.api(ME) as client:  # usage is no change: the version stands
            client.get("/models")
        assert admin.get(sandbox.org_list).headers["etag"] == tags[-1]


def test_a_change_to_a_stale_version_is_a_412_with_the_current_list(sandbox: Sandbox) -> None:
    with sandbox.admin(ME) as admin:
        mine = admin.get(sandbox.org_list).headers["etag"]
        # Another admin adds an entry meanwhile.
        other = admin.post(sandbox.org_list + "/entries", json={"cidr": "203.0.113.0/24"}).json()
        for method, path, body in (
            ("POST", sandbox.org_list + "/entries", {"cidr": "192.0.2.0/24"}),
            ("PATCH", sandbox.org_list, {"enabled": False}),
            ("PATCH", f"{sandbox.org_list}/entries/{other['id']}", {"expires_at": None}),
            ("DELETE", f"{sandbox.org_list}/entries/{other['id']}", None),
        ):
            response = admin.request(method, path, json=body, headers={"if-match": mine})
            assert response.status_code == 412, (method, path)
            body_412 = response.json()
            assert body_412["error"]["code"] == "precondition_failed"
            assert [e["id"] for e in body_412["current"]["entries"]] == [other["id"]]
            assert response.headers["etag"] == f'"{body_412["current"]["version"]}"'
        current = admin.get(sandbox.org_list)
        assert [e["id"] for e in current.json()["entries"]] == [other["id"]]  # nothing was changed
        again = admin.post(
            sandbox.org_list + "/entries",
            json={"cidr": "192.0.2.0/24"},
            headers={"if-match": current.headers["etag"]},
        )
        assert again.status_code == 201
        assert (
            admin.post(
                sandbox.org_list + "/entries", json={"cidr": "192.0.3.0/24"}, headers={"if-match": "*"}
            ).status_code
            == 201
        )


def test_an_if_match_past_its_length_is_a_400(sandbox: Sandbox) -> None:
    with sandbox.admin(ME) as admin:
        response = admin.patch(
            sandbox.org_list, json={"enabled": False}, headers={"if-match": '"' + "v" * 300 + '"'}
        )
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_if_match"


# -- usage ------------------------------------------------------------------------------------------


def test_usage_is_counted_on_the_most_specific_entry_and_flushed(sandbox_factory: SandboxFactory) -> None:
    sandbox, clock = clocked(sandbox_factory, usage_flush_seconds=3600)  # flushed by the test, not a timer
    with sandbox.admin(ADMIN) as admin:  # the admin's own requests count on the admin's entry
        add(admin, sandbox, ADMIN + "/32")
        wide = add(admin, sandbox, "198.51.100.0/24")
        narrow = add(admin, sandbox, "198.51.100.7/32")
        unused = add(admin, sandbox, "203.0.113.0/24")
        enable(admin, sandbox)
        for second in range(3):
            clock.now = START + second
            assert status_from(sandbox, ME) == 200
        assert status_from(sandbox, "198.51.100.8") == 200
        assert status_from(sandbox, "192.0.2.1") == 403  # refused: counted nowhere
        ours = {wide["id"], narrow["id"], unused["id"]}
        counts = {
            e["id"]: (e["hit_count"], e["last_matched_at"])
            for e in admin.get(sandbox.org_list).json()["entries"]
            if e["id"] in ours
        }
        assert counts == {
            wide["id"]: (1, int(START) + 2),
            narrow["id"]: (3, int(START) + 2),
            unused["id"]: (0, None),
        }
        assert run_blocking(sandbox.server.store.hit_counts.flush()) == 3
        assert run_blocking(sandbox.server.store.hit_counts.flush()) == 0  # nothing new
        again = {
            e["id"]: (e["hit_count"], e["last_matched_at"])
            for e in admin.get(sandbox.org_list).json()["entries"]
            if e["id"] in ours
        }
        assert again == counts  # flushed: the same figures, now from the store


def test_usage_survives_a_kill_9_after_the_flush_interval(tmp_path: Path, python_m: ForkServer) -> None:
    process, creds = spawn_sandbox(
        tmp_path, "--usage-flush", "0.2", "--trust-proxy", "127.0.0.1/32", forks=python_m
    )
    try:
        base, org = creds["base_url"], creds["org_id"]
        admin = httpx.Client(
            base_url=base, headers={"authorization": f"Bearer {creds['admin_key']}", "x-forwarded-for": ME}
        )
        entry = admin.post(
            f"/organizations/{org}/ip_allowlist/entries", json={"cidr": "198.51.100.0/24"}
        ).json()
        assert admin.patch(f"/organizations/{org}/ip_allowlist", json={"enabled": True}).status_code == 200
        with httpx.Client(
            base_url=base, headers={"authorization": f"Bearer {creds['api_key']}", "x-forwarded-for": ME}
        ) as api:
            for _ in range(7):
                assert api.get("/models").status_code == 200
        admin.close()
        store_path = tmp_path / "data" / "sandbox.sqlite3"
        deadline = time.monotonic() + 10
        while True:  # flushed within the interval (0.2 s); polled with a deadline
            reader = Store(store_path)
            stored = reader.allowlists.get("organization", org).get(entry["id"])
            reader.close()
            if stored is not None and stored.hit_count == 7:
                break
            assert time.monotonic() < deadline, f"the usage was not flushed: {stored}"
            time.sleep(0.05)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        assert process.stdout is not None
        process.stdout.close()
    reopened = Store(store_path)
    survived = reopened.allowlists.get("organization", org).get(entry["id"])
    reopened.close()
    assert survived is not None and survived.hit_count == 7 and survived.last_matched_at is not None


def test_usage_is_written_when_the_server_stops(sandbox_factory: SandboxFactory) -> None:
    sandbox, _ = clocked(sandbox_factory, usage_flush_seconds=3600)
    with sandbox.admin(ME) as admin:
        entry = add(admin, sandbox, "198.51.100.0/24")
        enable(admin, sandbox)
    assert status_from(sandbox, ME) == 200
    path = sandbox.server.store.path
    sandbox.server.stop()
    reopened = Store(path)
    stored = reopened.allowlists.get("organization", sandbox.creds.org_id).get(entry["id"])
    reopened.close()
    assert stored is not None and stored.hit_count == 1 and stored.last_matched_at == int(START)


# -- the audit log ----------------------------------------------------------------------------------


def audit(admin: httpx.Client, sandbox: Sandbox, **params: object) -> dict[str, Any]:
    response = admin.get(f"/organizations/{sandbox.creds.org_id}/audit_log", params=params)  # type: ignore[arg-type]
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_every_change_made_or_refused_is_in_the_audit_log_without_a_secret(sandbox: Sandbox) -> None:
    with sandbox.admin(ME) as admin:
        entry = admin.post(
            sandbox.org_list + "/entries", json={"cidr": "198.51.100.0/24", "description": "office"}
        ).json()
        admin.post(sandbox.org_list + "/entries", json={"cidr": "198.51.100.0/24"})  # 409 duplicate
        admin.patch(f"{sandbox.org_list}/entries/{entry['id']}", json={"expires_at": 4_000_000_000})
        admin.patch(sandbox.org_list, json={"enabled": True})
        admin.delete(f"{sandbox.org_list}/entries/{entry['id']}")  # 409: the guard
        admin.patch(sandbox.org_list, json={"enabled": False}, headers={"if-match": '"v0"'})  # 412
        admin.patch(sandbox.org_list, json={"enabled": False})
        page = audit(admin, sandbox, limit=100)
    events = list(reversed(page["data"]))
    assert [(e["type"], e["result"], e["status"], e["code"]) for e in events] == [
        ("ip_allowlist.entry.created", "applied", 200, None),
        ("ip_allowlist.entry.created", "refused", 409, "duplicate_entry"),
        ("ip_allowlist.entry.updated", "applied", 200, None),
        ("ip_allowlist.enabled", "applied", 200, None),
        ("ip_allowlist.entry.deleted", "refused", 409, "would_block_caller"),
        ("ip_allowlist.disabled", "refused", 412, "precondition_failed"),
        ("ip_allowlist.disabled", "applied", 200, None),
    ]
    first = events[0]
    assert first["actor"]["type"] == "api_key" and first["actor"]["id"].startswith("key_")
    assert first["actor"]["name"] == "First admin key" and first["source_ip"] == ME
    assert first["before"] is None and first["after"]["cidr"] == "198.51.100.0/24"
    assert events[2]["before"]["expires_at"] is None and events[2]["after"]["expires_at"] == 4_000_000_000
    assert events[3]["before"] == {"enabled": False} and events[3]["after"] == {"enabled": True}
    text = json.dumps(page)
    secret = sandbox.creds.admin_key
    assert secret not in text and secret[-16:] not in text and sandbox.creds.api_key not in text


def test_the_audit_log_pages_newest_first_and_filters_by_type_and_project(sandbox: Sandbox) -> None:
    with sandbox.admin(ME) as admin:
        for i in range(5):
            admin.post(sandbox.org_list + "/entries", json={"cidr": f"10.0.{i}.0/24"})
        admin.post(sandbox.project_list + "/entries", json={"cidr": "10.9.0.0/16"})
        admin.patch(sandbox.project_list, json={"enabled": False})
        seen: list[str] = []
        after = None
        while True:
            page = audit(admin, sandbox, limit=3, **({"after": after} if after else {}))
            seen += [event["id"] for event in page["data"]]
            assert page["first_id"] == page["data"][0]["id"] and page["last_id"] == page["data"][-1]["id"]
            if not page["has_more"]:
                break
            after = page["last_id"]
        assert len(seen) == 7 and len(set(seen)) == 7
        assert seen == sorted(seen, key=lambda event_id: -int(event_id.removeprefix("audit_")))
        project = audit(admin, sandbox, project_id=sandbox.creds.project_id)["data"]
        assert [e["type"] for e in project] == ["ip_allowlist.disabled", "ip_allowlist.entry.created"]
        assert all(e["project_id"] == sandbox.creds.project_id and e["scope"] == "project" for e in project)
        created = audit(admin, sandbox, type="ip_allowlist.entry.created")["data"]
        assert len(created) == 6
        empty = audit(admin, sandbox, after=seen[-1])
        assert empty == {"object": "list", "data": [], "first_id": None, "last_id": None, "has_more": False}
        for bad in (
            {"after": "nope"},
            {"type": "everything"},
            {"limit": 0},
            {"limit": 101},
            {"colour": "red"},
        ):
            assert (
                admin.get(f"/organizations/{sandbox.creds.org_id}/audit_log", params=bad).status_code == 400
            ), bad
    with sandbox.api(ME) as client:  # a project key cannot read it
        assert client.get(f"/organizations/{sandbox.creds.org_id}/audit_log").status_code == 403


def test_an_organization_sees_only_its_own_audit_log(
    sandbox: Sandbox, shared_sandbox_server: SandboxServer
) -> None:
    other = Sandbox(shared_sandbox_server, shared_sandbox_server.store.organizations.bootstrap())
    with other.admin(ME) as admin:
        admin.post(other.org_list + "/entries", json={"cidr": "10.1.0.0/16"})
    with sandbox.admin(ME) as admin:
        assert audit(admin, sandbox)["data"] == []
        response = admin.get(f"/organizations/{other.creds.org_id}/audit_log")
        assert response.status_code == 403


def test_hits_count_only_requests_admitted_past_the_key_and_the_rate_limit(
    sandbox_factory: SandboxFactory,
) -> None:
    sandbox, _ = clocked(sandbox_factory, rate_limit_per_minute=5)
    junk_key = sandbox.creds.api_key[:-6] + "junk00"  # names the project in clear: its lists apply
    with sandbox.admin(ADMIN) as admin:
        add(admin, sandbox, ADMIN + "/32")
        entry = add(admin, sandbox, "198.51.100.0/24")
        enable(admin, sandbox)
        with sandbox.client(junk_key, ME) as junk:
            assert [junk.get("/models").status_code for _ in range(10)] == [401] * 10
        assert [status_from(sandbox, ME) for _ in range(10)] == [200] * 5 + [429] * 5
        listed = admin.get(sandbox.org_list).json()["entries"]
    assert next(e["hit_count"] for e in listed if e["id"] == entry["id"]) == 5  # the 5 served
