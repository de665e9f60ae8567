"""The refusals the gateway records (per source and minute, no write per request) and the Admin API that
pages through them; the sources a list admitted (the dry run's evidence)."""

from __future__ import annotations

from pathlib import Path

from app.sandbox.store.aggregates import Store
from app.sandbox.store.database import run_blocking
from app.sandbox.store.traffic import MAX_PENDING, Traffic
from tests.conftest import Sandbox, SandboxFactory

ME = "198.51.100.7"


def test_a_refused_request_is_listed_at_once_then_after_the_flush(sandbox: Sandbox) -> None:
    with sandbox.admin(ME) as admin:
        admin.post(sandbox.project_list + "/entries", json={"cidr": "203.0.113.0/24"})
        assert admin.patch(sandbox.project_list + "?force=true", json={"enabled": True}).status_code == 200
    with sandbox.api("127.0.0.9") as api:
        for _ in range(3):
            assert api.get("/models").status_code == 403
    with sandbox.api("203.0.113.5") as api:
        assert api.get("/models").status_code == 200
    with sandbox.admin(ME) as admin:
        page = admin.get(sandbox.org_list + "/refused", params={"since": 0}).json()
        (row,) = page["data"]
        assert (row["source_ip"], row["list"], row["count"], row["path"]) == (
            "127.0.0.9",
            "project",
            3,
            "/v1/models",
        )
        assert row["project_id"] == sandbox.creds.project_id and row["first_seen"] <= row["last_seen"]
        run_blocking(sandbox.server.store.traffic.flush())
        again = admin.get(sandbox.project_list + "/refused", params={"since": row["first_seen"]}).json()
        assert [(r["source_ip"], r["count"]) for r in again["data"]] == [("127.0.0.9", 3)]
        later = admin.get(sandbox.org_list + "/refused", params={"since": row["last_seen"] + 1}).json()
        assert later["data"] == [] and later["has_more"] is False
        sources = admin.get(sandbox.project_list + "/sources").json()["data"]
        assert [(s["source_ip"], s["hits"]) for s in sources] == [("203.0.113.5", 1)]
        assert admin.get(sandbox.org_list + "/refused", params={"since": "soon"}).status_code == 400


def test_memory_is_bounded_however_many_sources_are_refused(tmp_path: Path) -> None:
    # A store of the test's own: a server's upkeep flushes its counts every few seconds, and a flush during
    # the loop (a loaded machine) emptied what the loop was filling, so nothing was dropped.
    store = Store(tmp_path / "s.sqlite3")
    traffic: Traffic = store.traffic
    for number in range(MAX_PENDING + 50):
        traffic.refused(
            "org_x",
            None,
            "organization",
            f"10.{number >> 16}.{(number >> 8) & 255}.{number & 255}",
            "/v1/models",
            1_800_000_000,
        )
    assert traffic.dropped == 50
    run_blocking(traffic.flush())
    store.close()


def test_refusals_go_after_the_retention_setting(sandbox_factory: SandboxFactory) -> None:
    clock = [1_800_000_000.0]
    sandbox = sandbox_factory(clock=lambda: clock[0], keep_responses_days=30.0)
    traffic = sandbox.server.store.traffic
    traffic.refused("org_x", None, "organization", "10.0.0.1", "/v1/models", int(clock[0]))
    run_blocking(traffic.flush())
    assert [r["source_ip"] for r in traffic.refusals("org_x", None, 0, 10)[0]] == ["10.0.0.1"]
    clock[0] += 31 * 86_400
    run_blocking(traffic.flush())  # nothing counted since, but an hour passed: it looks for what is past
    assert traffic.refusals("org_x", None, 0, 10) == ([], False)
