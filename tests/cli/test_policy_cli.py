"""`service-console allowlist plan|apply|export FILE` against a real sandbox: a plan then its apply, drift
found by the next plan, a change made between plan and apply stopping it with nothing changed, the lockout
guard, comments kept through an export, and the dry run's evidence."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.cli_support import cli, environment
from tests.conftest import Sandbox

POLICY = """\
# Reviewed in pull requests; applied on merge.
[organization]
enabled = true

[[organization.entries]]
cidr = "127.0.0.1"   # the runner itself
description = "this machine"

[[organization.entries]]
cidr = "203.0.113.0/24"
description = "office"
expires = 2090-01-01T00:00:00Z
"""


@pytest.fixture
def direct(sandbox_factory: Callable[..., Sandbox]) -> Sandbox:
    return sandbox_factory(trusted_proxies=[])


def _entries(sandbox: Sandbox) -> list[tuple[str, str]]:
    with sandbox.admin() as admin:
        body = admin.get(sandbox.org_list).json()
    return sorted((e["cidr"], e["description"]) for e in body["entries"])


def test_plan_apply_plan_again_then_drift(direct: Sandbox, tmp_path: Path) -> None:
    env = environment(direct)
    policy = tmp_path / "allowlists.toml"
    policy.write_text(POLICY)
    planned = cli("plan", str(policy), env=env)
    assert planned.code == 5, planned.err
    assert "+ 127.0.0.1/32" in planned.out and "switch the list on" in planned.out
    assert _entries(direct) == []  # a plan changes nothing
    applied = cli("apply", str(policy), "--json", env=env)
    assert applied.code == 0, applied.err
    assert _entries(direct) == [("127.0.0.1/32", "this machine"), ("203.0.113.0/24", "office")]
    again = cli("plan", str(policy), "--json", env=env)
    assert again.code == 0 and again.json["changes"] is False
    # A change made by hand (the dashboard, another script) is drift: the next plan finds it.
    assert cli("add", "198.51.100.7", "--description", "by hand", env=env).code == 0
    drift = cli("plan", str(policy), "--json", env=env)
    assert drift.code == 5
    removed = drift.json["lists"][0]["remove"]
    assert [e["cidr"] for e in removed] == ["198.51.100.7/32"]
    assert cli("apply", str(policy), env=env).code == 0
    assert "198.51.100.7/32" not in dict(_entries(direct))


def test_a_change_between_plan_and_apply_stops_it_and_changes_nothing(
    direct: Sandbox, tmp_path: Path
) -> None:
    env = environment(direct)
    policy = tmp_path / "allowlists.toml"
    policy.write_text(POLICY)
    saved = tmp_path / "plan.json"
    planned = cli("plan", str(policy), "--json", env=env)
    saved.write_text(planned.out)
    assert cli("add", "192.0.2.1", "--description", "meanwhile", env=env).code == 0
    stopped = cli("apply", str(policy), "--plan", str(saved), env=env)
    assert stopped.code == 5 and "Plan again" in stopped.err
    assert _entries(direct) == [("192.0.2.1/32", "meanwhile")]  # nothing of the plan was made
    with direct.admin() as admin:
        assert admin.get(direct.org_list).json()["enabled"] is False


def test_a_plan_that_locks_this_machine_out_is_said_and_refused(direct: Sandbox, tmp_path: Path) -> None:
    env = environment(direct)
    policy = tmp_path / "allowlists.toml"
    policy.write_text('[organization]\nenabled = true\n\n[[organization.entries]]\ncidr = "203.0.113.0/24"\n')
    planned = cli("plan", str(policy), "--json", env=env)
    assert planned.json["lists"][0]["locks_out"] is True
    assert "lock this machine (127.0.0.1) out" in cli("plan", str(policy), env=env).out
    refused = cli("apply", str(policy), env=env)
    assert refused.code == 1 and "Nothing was changed" in refused.err
    assert _entries(direct) == []


def test_export_keeps_the_comments_and_reimports_to_no_change(direct: Sandbox, tmp_path: Path) -> None:
    env = environment(direct)
    policy = tmp_path / "allowlists.toml"
    policy.write_text(POLICY)
    assert cli("apply", str(policy), env=env).code == 0
    assert cli("add", "198.51.100.0/24", "--description", "partner", env=env).code == 0
    exported = cli("export", str(policy), env=env)
    assert exported.code == 0, exported.err
    text = policy.read_text()
    assert "# Reviewed in pull requests; applied on merge." in text and "# the runner itself" in text
    assert 'cidr = "198.51.100.0/24"' in text and "partner" in text
    assert cli("plan", str(policy), env=env).code == 0  # the file is the lists as they stand


def test_the_dry_run_names_who_a_removed_entry_admitted(sandbox: Sandbox, tmp_path: Path) -> None:
    """Through the loopback proxy, requests come from two addresses of a project entry the plan removes."""
    env = environment(sandbox)
    with sandbox.admin() as admin:
        for cidr in ("10.1.0.0/16", "192.0.2.0/24"):
            assert admin.post(sandbox.project_list + "/entries", json={"cidr": cidr}).status_code == 201
        assert admin.patch(sandbox.project_list + "?force=true", json={"enabled": True}).status_code == 200
    for ip, count in (("10.1.2.3", 3), ("10.1.9.9", 1)):
        with sandbox.api(ip) as api:
            for _ in range(count):
                assert api.get("/models").status_code == 200
    policy = tmp_path / "allowlists.toml"
    project = sandbox.creds.project_id
    policy.write_text(
        f'[projects."{project}"]\nenabled = true\n\n[[projects."{project}".entries]]\ncidr = "192.0.2.0/24"\n\n'
        f'[[projects."{project}".entries]]\ncidr = "10.1.2.0/24"\n'
    )
    planned = cli("plan", str(policy), "--json", env=env)
    assert planned.code == 5, planned.err
    removed = planned.json["lists"][0]["remove"][0]
    assert removed["cidr"] == "10.1.0.0/16" and removed["hit_count"] >= 0
    sources = removed["evidence"]["sources"]
    assert [(s["source_ip"], s["hits"], s["refused_after"]) for s in sources] == [
        ("10.1.2.3", 3, False),
        ("10.1.9.9", 1, True),
    ]
    text = cli("plan", str(policy), env=env).out
    assert "4 requests from 2 addresses, 1 of them refused after this change" in text
