"""`POST .../ip_allowlist/batch`: several changes to a list made all or none, on the version named."""

from __future__ import annotations

from tests.conftest import Sandbox

ME = "198.51.100.7"


def _list(sandbox: Sandbox) -> dict:  # type: ignore[type-arg]
    with sandbox.admin(ME) as admin:
        return admin.get(sandbox.org_list).json()  # type: ignore[no-any-return]


def test_a_batch_is_made_whole_on_the_version_it_names(sandbox: Sandbox) -> None:
    with sandbox.admin(ME) as admin:
        old = admin.post(sandbox.org_list + "/entries", json={"cidr": "192.0.2.0/24"}).json()
        keep = admin.post(sandbox.org_list + "/entries", json={"cidr": ME, "description": "me"}).json()
        version = admin.get(sandbox.org_list).json()["version"]
        body = {
            "enabled": True,
            "add": [{"cidr": "203.0.113.0/24", "description": "office"}],
            "update": [{"id": keep["id"], "expires_at": None, "description": "this machine"}],
            "remove": [old["id"]],
        }
        done = admin.post(sandbox.org_list + "/batch", json=body, headers={"if-match": f'"{version}"'})
        assert done.status_code == 200, done.text
        after = done.json()
    assert after["enabled"] is True and after["version"] != version
    assert sorted((e["cidr"], e["description"]) for e in after["entries"]) == [
        ("198.51.100.7/32", "this machine"),
        ("203.0.113.0/24", "office"),
    ]
    assert int(after["version"][1:]) == int(version[1:]) + 1  # one new version for the whole batch


def test_a_refused_change_leaves_the_whole_list_as_it_was(sandbox: Sandbox) -> None:
    with sandbox.admin(ME) as admin:
        admin.post(sandbox.org_list + "/entries", json={"cidr": ME})
        before = admin.get(sandbox.org_list).json()
        body = {"add": [{"cidr": "203.0.113.0/24"}], "remove": ["ipal_nosuchentry"]}
        missing = admin.post(sandbox.org_list + "/batch", json=body)
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "entry_not_found"
        duplicate = admin.post(
            sandbox.org_list + "/batch", json={"add": [{"cidr": "10.0.0.0/8"}, {"cidr": ME}]}
        )
        assert duplicate.status_code == 409
        stale = admin.post(
            sandbox.org_list + "/batch", json={"add": [{"cidr": "10.0.0.0/8"}]}, headers={"if-match": '"v0"'}
        )
        assert stale.status_code == 412
    assert _list(sandbox) == before  # not one of the changes was made, not even the first


def test_the_lockout_guard_decides_on_the_list_as_the_batch_leaves_it(sandbox: Sandbox) -> None:
    with sandbox.admin(ME) as admin:
        mine = admin.post(sandbox.org_list + "/entries", json={"cidr": ME}).json()
        assert admin.patch(sandbox.org_list, json={"enabled": True}).status_code == 200
        # Removing my entry while adding another that covers me: allowed.
        moved = {"add": [{"cidr": "198.51.100.0/24"}], "remove": [mine["id"]]}
        assert admin.post(sandbox.org_list + "/batch", json=moved).status_code == 200
        wide = next(e for e in _list(sandbox)["entries"] if e["cidr"] == "198.51.100.0/24")
        out = {"add": [{"cidr": "203.0.113.0/24"}], "remove": [wide["id"]]}
        refused = admin.post(sandbox.org_list + "/batch", json=out)
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "would_block_caller"
        assert [e["cidr"] for e in _list(sandbox)["entries"]] == ["198.51.100.0/24"]
        assert admin.post(sandbox.org_list + "/batch?force=true", json=out).status_code == 200
