"""`service-console allowlist ...` as a subprocess against a real sandbox: each command, the lockout guard,
the exit codes, and keys from the environment only."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from app.sandbox.store.database import run_blocking
from tests.cli.cli_support import cli, environment
from tests.conftest import Sandbox


@pytest.fixture
def direct(sandbox_factory: Callable[..., Sandbox]) -> Sandbox:
    """A sandbox that trusts no proxy: the command line is seen at its real address, 127.0.0.1."""
    return sandbox_factory(trusted_proxies=[])


def test_whoami_add_wait_list_check_remove(direct: Sandbox) -> None:
    env = environment(direct)
    assert cli("whoami", env=env).out.strip() == "127.0.0.1"
    added = cli("add", "--expires", "2h", "--description", "CI job 7", "--wait", "--json", env=env)
    assert added.code == 0, added.err
    entry = added.json["entry"]
    assert entry["cidr"] == "127.0.0.1/32" and entry["description"] == "CI job 7"
    assert 7100 < entry["expires_at"] - time.time() <= 7200 and entry["expired"] is False
    assert added.json["result"] == "added" and added.json["waited_s"] >= 0
    listed = cli("list", "--json", env=env).json
    assert [e["cidr"] for e in listed["entries"]] == ["127.0.0.1/32"]
    assert listed["scope"] == "organization" and listed["source_ip"] == "127.0.0.1"
    again = cli("add", "127.0.0.1", "--json", env=env)  # a job run again: no second entry
    assert again.code == 0 and again.json["result"] == "already_listed"
    later = cli("add", "127.0.0.1", "--expires", "1d", "--json", env=env)  # its expiry moved
    assert later.json["result"] == "extended" and later.json["entry"]["expires_at"] - time.time() > 86_000
    checked = cli("check", "203.0.113.9", "--json", env=env).json
    assert checked["address"] == "203.0.113.9" and checked["admitted"] is True  # the list is off
    text = cli("list", env=env).out
    assert "127.0.0.1/32" in text and "CI job 7" in text
    assert cli("enable", env=env).code == 0 and cli("disable", "--json", env=env).json["enabled"] is False
    removed = cli("remove", entry["id"], "--json", env=env)  # by id
    assert removed.code == 0 and [e["id"] for e in removed.json["removed"]] == [entry["id"]]
    gone = cli("remove", "127.0.0.1", "--json", env=env)  # nothing left to remove: done all the same
    assert gone.code == 0 and gone.json["not_listed"] == ["127.0.0.1"]


def test_the_lockout_guard_refuses_with_exit_1_unless_forced(direct: Sandbox) -> None:
    env = environment(direct)
    refused = cli("enable", "--json", env=env)  # an empty list switched on blocks everyone
    assert refused.code == 1 and refused.json["error"]["kind"] == "refused_by_guard"
    assert "Nothing was changed" in refused.err
    with direct.admin() as admin:
        assert admin.get(direct.org_list).json()["enabled"] is False
    assert cli("add", "127.0.0.1", "--description", "me", env=env).code == 0
    assert cli("add", "203.0.113.0/24", env=env).code == 0
    assert cli("enable", env=env).code == 0
    mine = cli("remove", "127.0.0.1/32", env=env)
    assert mine.code == 1 and "127.0.0.1" in mine.err
    assert cli("check", env=env).out.startswith("127.0.0.1: admitted")
    other = cli("remove", "203.0.113.0/24", env=env)
    assert other.code == 0
    forced = cli("remove", "127.0.0.1", "--force", env=env)  # locked out, as asked
    assert forced.code == 0
    blocked = cli("list", "--json", env=env)
    assert blocked.code == 3 and blocked.json["error"]["source_ip"] == "127.0.0.1"
    assert "allowlist refuses" in cli("whoami", env=env).out  # whoami still names the address


def test_exit_codes_for_usage_keys_and_network(direct: Sandbox, tmp_path: Path) -> None:
    env = environment(direct)
    bad_entry = cli("add", "10.0.0.1/8", env=env)
    assert bad_entry.code == 2 and "10.0.0.0/8" in bad_entry.err  # the fix is named
    assert cli("add", "1.2.3.4", "--expires", "soon", env=env).code == 2
    assert cli("add", "1.2.3.4", "--project", "no such project", env=env).code == 2
    assert cli("frobnicate", env=env).code == 2
    nothing = ("--home", str(tmp_path))  # neither a saved profile nor the environment
    assert cli("list", *nothing, env=environment()).code == 2
    assert cli("list", "--profile", "nobody", env=environment()).code == 2
    no_key = cli("list", env=environment(direct, SERVICE_ADMIN_KEY=""))
    assert no_key.code == 3 and "SERVICE_ADMIN_KEY" in no_key.err
    wrong_key = cli("list", env=environment(direct, SERVICE_ADMIN_KEY="sk-admin-wrong"))
    assert wrong_key.code == 3 and "sk-admin-wrong" not in wrong_key.err + wrong_key.out
    down = cli("list", "--json", env=environment(direct, SERVICE_BASE_URL="http://127.0.0.1:9/v1"))
    assert down.code == 4 and down.json["error"]["kind"] == "network"


def test_a_project_list_by_name(direct: Sandbox) -> None:
    env = environment(direct)
    added = cli("add", "198.51.100.0/24", "--project", "Default project", "--json", env=env)
    assert added.code == 0, added.err
    assert added.json["scope"] == "project" and added.json["project_id"] == direct.creds.project_id
    with direct.admin() as admin:
        cidrs = [e["cidr"] for e in admin.get(direct.project_list).json()["entries"]]
    assert cidrs == ["198.51.100.0/24"]
    assert cli("list", "--json", env=env).json["entries"] == []  # the organization's list is untouched


def test_add_wait_gives_up_with_exit_4_when_the_service_never_admits(direct: Sandbox) -> None:
    """The organization's list is on and holds only this machine: an address added to the project's list
    alone is never admitted (a request must pass every list in force), so `--wait` gives up with exit 4 and
    says the entry was added all the same."""
    env = environment(direct)
    assert cli("add", "127.0.0.1", "--description", "this machine", env=env).code == 0
    assert cli("enable", env=env).code == 0
    started = time.monotonic()
    waited = cli(
        "add",
        "198.51.100.7",
        "--project",
        "Default project",
        "--wait",
        "--wait-timeout",
        "1",
        "--json",
        env=env,
    )
    assert waited.code == 4, waited.err
    said = re.search(
        r"198\.51\.100\.7/32 was added, but the service did not admit it within (\d+) s\.", waited.err
    )
    assert said is not None and 1 <= int(said.group(1)) < 30, waited.err  # the time it waited, rounded
    error = waited.json["error"]
    assert error["kind"] == "network" and error["entry"]["cidr"] == "198.51.100.7/32"
    assert time.monotonic() - started < 30  # it polled about a second, not the default two minutes
    with direct.admin() as admin:  # added, as the message says, and nothing else changed
        assert [e["cidr"] for e in admin.get(direct.project_list).json()["entries"]] == ["198.51.100.7/32"]
        assert [e["cidr"] for e in admin.get(direct.org_list).json()["entries"]] == ["127.0.0.1/32"]


def test_check_refuses_by_an_entry_that_expired(direct: Sandbox) -> None:
    """Issue 38: once an entry expired the gateway refuses its address, and `check` says so."""
    env = environment(direct)
    assert cli("add", "127.0.0.1", env=env).code == 0
    store = direct.server.store  # an entry that expired a second ago (the API takes only future ones)
    expired = int(store.clock()) - 1
    run_blocking(
        store.allowlists.add_entry(
            "organization", direct.creds.org_id, "198.51.100.23/32", expires_at=expired
        )
    )
    assert cli("enable", env=env).code == 0
    checked = cli("check", "198.51.100.23", "--json", env=env)
    assert checked.code == 0 and checked.json["admitted"] is False
    assert checked.json["lists"][0]["admits"] is False and checked.json["lists"][0]["admitted_by"] is None
    assert cli("check", "198.51.100.23", env=env).out.startswith("198.51.100.23: refused")
