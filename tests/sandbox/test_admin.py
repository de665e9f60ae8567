"""The Admin API for organization and project allowlists, as docs/contract.md sets it out."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Sandbox, SandboxFactory


def test_list_shape_and_source_ip(sandbox: Sandbox) -> None:
    with sandbox.admin("198.51.100.7") as admin:
        body = admin.get(sandbox.org_list).json()
    assert body == {
        "object": "ip_allowlist",
        "scope": "organization",
        "owner_id": sandbox.creds.org_id,
        "enabled": False,
        "version": "v0",
        "entries": [],
        "source_ip": "198.51.100.7",
    }


def test_add_canonicalizes_and_lists_entry(sandbox: Sandbox) -> None:
    with sandbox.admin() as admin:
        created = admin.post(
            f"{sandbox.org_list}/entries", json={"cidr": "2001:DB8::/32", "description": "office"}
        )
        listed = admin.get(sandbox.org_list).json()["entries"]
    assert created.status_code == 201
    entry = created.json()
    assert entry["object"] == "ip_allowlist.entry" and entry["id"].startswith("ipal_")
    assert entry["cidr"] == "2001:db8::/32" and entry["description"] == "office"
    assert listed == [entry]


@pytest.mark.parametrize(
    "cidr",
    [
        "010.0.0.1",
        "1.2.3.0/024",
        "127.1",
        "0x7f.0.0.1",
        "2130706433",
        "1.2.3.4/33",
        "fe80::1%eth0",
        "10.0.0.0/255.0.0.0",
        "1.2.3.4/0",
        "",
        "::1/200",
    ],
)
def test_malformed_cidr_is_400_and_stores_nothing(sandbox: Sandbox, cidr: str) -> None:
    with sandbox.admin() as admin:
        response = admin.post(f"{sandbox.org_list}/entries", json={"cidr": cidr})
        assert admin.get(sandbox.org_list).json()["entries"] == []
    assert response.status_code == 400
    assert response.json()["error"] == {
        **response.json()["error"],
        "code": "invalid_cidr",
        "param": "cidr",
        "type": "invalid_request_error",
    }


def test_host_bits_error_offers_both_readings(sandbox: Sandbox) -> None:
    with sandbox.admin() as admin:
        message = admin.post(f"{sandbox.org_list}/entries", json={"cidr": "192.168.1.5/24"}).json()["error"][
            "message"
        ]
    assert "192.168.1.0/24" in message and "192.168.1.5/32" in message


def test_duplicate_is_409_naming_the_existing_id(sandbox: Sandbox) -> None:
    with sandbox.admin() as admin:
        first = admin.post(f"{sandbox.org_list}/entries", json={"cidr": "::ffff:203.0.113.10"}).json()
        again = admin.post(f"{sandbox.org_list}/entries", json={"cidr": "203.0.113.10/32"})
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "duplicate_entry"
    assert first["id"] in again.json()["error"]["message"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"cidr": "1.2.3.4", "description": "x" * 201}, "description_too_long"),
        ({"cidr": "1.2.3.4", "colour": "red"}, "unknown_parameter"),
        ({"cidr": 5}, "invalid_cidr"),
        ({"cidr": "1.2.3.4", "description": 5}, "invalid_type"),
        ({}, "invalid_cidr"),
    ],
)
def test_bad_entry_bodies(sandbox: Sandbox, body: dict[str, Any], code: str) -> None:
    with sandbox.admin() as admin:
        response = admin.post(f"{sandbox.org_list}/entries", json=body)
    assert response.status_code == 400 and response.json()["error"]["code"] == code


@pytest.mark.parametrize("raw", [b"", b"{", b"[1]", b"null", b"\xff\xfe"])
def test_malformed_json_is_400(sandbox: Sandbox, raw: bytes) -> None:
    with sandbox.admin() as admin:
        response = admin.post(
            f"{sandbox.org_list}/entries", content=raw, headers={"content-type": "application/json"}
        )
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_json"


def test_entry_limit(sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory(max_entries=2)
    with sandbox.admin() as admin:
        codes = [
            admin.post(f"{sandbox.org_list}/entries", json={"cidr": f"192.0.2.{i}"}).status_code
            for i in range(3)
        ]
        last = admin.post(f"{sandbox.org_list}/entries", json={"cidr": "192.0.2.9"}).json()
    assert codes == [201, 201, 400] and last["error"]["code"] == "too_many_entries"


def test_delete_unknown_entry_is_404(sandbox: Sandbox) -> None:
    with sandbox.admin() as admin:
        response = admin.delete(f"{sandbox.org_list}/entries/ipal_nope")
    assert response.status_code == 404 and response.json()["error"]["code"] == "entry_not_found"


def test_enable_that_would_block_caller_needs_force(sandbox: Sandbox) -> None:
    with sandbox.admin("198.51.100.7") as admin:
        refused = admin.patch(sandbox.org_list, json={"enabled": True})
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "would_block_caller"
        assert "198.51.100.7" in refused.json()["error"]["message"]
        admin.post(f"{sandbox.org_list}/entries", json={"cidr": "203.0.113.0/24"})
        assert admin.patch(sandbox.org_list, json={"enabled": True}).status_code == 409
        admin.post(f"{sandbox.org_list}/entries", json={"cidr": "198.51.100.0/24"})
        enabled = admin.patch(sandbox.org_list, json={"enabled": True})
    assert enabled.status_code == 200 and enabled.json()["enabled"] is True


def test_forced_enable_locks_out_and_dashboard_recovers(sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory()  # alone in its store: the dashboard acts on the only organization
    with sandbox.admin("198.51.100.7") as admin:
        assert (
            admin.patch(sandbox.org_list, params={"force": "true"}, json={"enabled": True}).status_code == 200
        )
        assert admin.get(sandbox.org_list).status_code == 403
    from app.sandbox.cli import main

    assert main(["allowlist", "disable", "--data", str(sandbox.server.config.data_dir)]) == 0
    with sandbox.admin("198.51.100.7") as admin:
        assert admin.get(sandbox.org_list).json()["enabled"] is False


def test_delete_that_would_block_caller_needs_force(sandbox: Sandbox) -> None:
    with sandbox.admin("198.51.100.7") as admin:
        mine = admin.post(f"{sandbox.org_list}/entries", json={"cidr": "198.51.100.0/24"}).json()
        other = admin.post(f"{sandbox.org_list}/entries", json={"cidr": "203.0.113.0/24"}).json()
        admin.patch(sandbox.org_list, json={"enabled": True})
        assert admin.delete(f"{sandbox.org_list}/entries/{other['id']}").status_code == 200
        refused = admin.delete(f"{sandbox.org_list}/entries/{mine['id']}")
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "would_block_caller"
        forced = admin.delete(f"{sandbox.org_list}/entries/{mine['id']}", params={"force": "true"})
    assert forced.json() == {"object": "ip_allowlist.entry.deleted", "id": mine["id"], "deleted": True}


def test_project_key_on_admin_route_is_403(sandbox: Sandbox) -> None:
    with sandbox.api() as client:
        response = client.get(sandbox.org_list)
    assert response.status_code == 403 and response.json()["error"]["code"] == "insufficient_permissions"


def test_admin_key_of_another_org_is_refused(sandbox: Sandbox) -> None:
    with sandbox.admin() as admin:
        response = admin.get("/organizations/org_other/ip_allowlist")
    assert response.status_code == 403


def test_projects_and_project_lists(sandbox: Sandbox) -> None:
    with sandbox.admin() as admin:
        projects = admin.get(f"/organizations/{sandbox.creds.org_id}/projects").json()
        project_list = admin.get(sandbox.project_list).json()
        missing = admin.get(f"/organizations/{sandbox.creds.org_id}/projects/proj_nope/ip_allowlist")
    assert projects["object"] == "list" and projects["data"][0]["id"] == sandbox.creds.project_id
    assert project_list["scope"] == "project" and project_list["entries"] == []
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "project_not_found"


def test_unknown_path_and_method_are_json_errors(sandbox: Sandbox) -> None:
    with sandbox.admin() as admin:
        unknown = admin.get("/nothing/here")
        method = admin.put(sandbox.org_list, json={})
    assert unknown.status_code == 404 and unknown.json()["error"]["type"] == "not_found_error"
    assert method.status_code == 405 and "error" in method.json()


@pytest.mark.parametrize("cidr", ["", "   ", "\t"])
def test_an_empty_entry_is_named_as_empty_whatever_its_spaces(sandbox: Sandbox, cidr: str) -> None:
    """The server's own reading (app.netrules) judges an empty entry, with or without spaces: one message,
    `invalid_cidr`; the published document refuses it by its pattern (no separate length rule to disagree)."""
    with sandbox.admin() as admin:
        answer = admin.post(f"{sandbox.org_list}/entries", json={"cidr": cidr})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert (error["code"], error["param"]) == ("invalid_cidr", "cidr")
    assert error["message"].startswith("The entry is empty")
