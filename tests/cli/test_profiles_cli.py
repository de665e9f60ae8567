"""The command line on the console's saved profiles: a remote one, and the embedded sandbox the window runs
(its port and store found through the console's settings). `add --wait` there: the address is admitted by
the time the command returns."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from app.core.embedded import EmbeddedSandbox, SandboxKeys
from app.core.profile import Profile
from app.core.settings import ConsoleFolders, SettingsFile
from app.services.session.profiles import ProfileStore
from tests.cli.cli_support import cli, environment
from tests.conftest import Sandbox


def saved_profiles(home: Path) -> ProfileStore:
    """The profiles as the window keeps them (settings.json under --home)."""
    return ProfileStore(SettingsFile(ConsoleFolders.under(home).settings_file))


def test_a_remote_profile_by_name(sandbox_factory: Callable[..., Sandbox], tmp_path: Path) -> None:
    direct = sandbox_factory(trusted_proxies=[])
    store = saved_profiles(tmp_path)
    store.save(Profile(id="profile-ci", name="Staging, EU", base_url=direct.url, org_id=direct.creds.org_id))
    env = environment(SERVICE_ADMIN_KEY=direct.creds.admin_key)  # no keychain here: the profile's variable
    listed = cli("list", "--home", str(tmp_path), "--profile", "staging, eu", "--json", env=env)
    assert listed.code == 0, listed.err
    assert listed.json["source_ip"] == "127.0.0.1"
    no_key = cli("list", "--home", str(tmp_path), "--profile", "Staging, EU", env=environment())
    assert no_key.code == 3 and "Staging, EU" in no_key.err


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[tuple[EmbeddedSandbox, SandboxKeys, ProfileStore]]:
    """The window's embedded sandbox (in this process, as in the window), its port in the settings."""
    store = saved_profiles(tmp_path)
    settings = store.settings

    def remember_port(port: int) -> None:
        settings.update(lambda saved: setattr(saved.sandbox, "port", port))

    sandbox = EmbeddedSandbox(tmp_path / "data" / "sandbox", remember_port=remember_port)
    keys = sandbox.first_start_keys()
    assert keys is not None
    profile = store.ensure_sandbox_profile()
    profile.simulated_ip = (
        "198.51.100.23"  # the window's Play IP, for its Playground: never the command line's
    )
    store.save(profile)
    yield sandbox, keys, store
    sandbox.stop()


def test_add_wait_on_the_embedded_sandbox_admits_before_returning(
    embedded: tuple[EmbeddedSandbox, SandboxKeys, ProfileStore], tmp_path: Path
) -> None:
    sandbox, keys, _store = embedded
    base = sandbox.base_url
    project_list = f"/organizations/{keys.org_id}/projects/{keys.project_id}/ip_allowlist"
    runner = "127.0.0.1"  # this machine, as the embedded sandbox sees it (through its trusted loopback proxy)
    with httpx.Client(base_url=base, headers={"authorization": f"Bearer {keys.admin_key}"}) as admin:
        admin.post(f"{project_list}/entries", json={"cidr": "203.0.113.0/24"}).raise_for_status()
        admin.patch(project_list, json={"enabled": True}, params={"force": "true"}).raise_for_status()

    def runner_admitted() -> bool:
        headers = {"authorization": f"Bearer {keys.api_key}", "x-forwarded-for": runner}
        with httpx.Client(base_url=base, headers=headers) as api:
            return api.get("/models").status_code == 200

    assert not runner_admitted()
    env = environment(SERVICE_ADMIN_KEY=keys.admin_key, SERVICE_API_KEY=keys.api_key)
    home = ["--home", str(tmp_path), "--profile", "Local sandbox"]
    assert cli("whoami", *home, env=env).out.strip() == runner
    run = cli("add", *home, "--project", keys.project_id, "--expires", "1h", "--wait", "--json", env=env)
    returned = time.monotonic()
    assert run.code == 0, run.err
    while True:  # the moment a request that the gateway admits was sent, after the command returned
        sent = time.monotonic()
        if runner_admitted():
            break
        assert sent - returned < 1.0, "not admitted within 1 s of the command returning"
        time.sleep(0.01)
    after = sent - returned
    assert run.json["entry"]["cidr"] == f"{runner}/32"
    print(
        f"\nadd --wait: propagation measured by the command {run.json['waited_s'] * 1000:.0f} ms;"
        f" admitted {after * 1000:.0f} ms after it returned"
    )


def test_the_only_profile_needs_no_name(sandbox_factory: Callable[..., Sandbox], tmp_path: Path) -> None:
    direct = sandbox_factory(trusted_proxies=[])
    store = saved_profiles(tmp_path)
    store.save(Profile(id="profile-ci", name="Staging", base_url=direct.url, org_id=direct.creds.org_id))
    env = environment(SERVICE_ADMIN_KEY=direct.creds.admin_key)
    alone = cli("whoami", "--home", str(tmp_path), env=env)
    assert alone.code == 0 and alone.out.strip() == "127.0.0.1", alone.err
    store.save(Profile(id="profile-prod", name="Production", base_url=direct.url, org_id="org_other"))
    two = cli("whoami", "--home", str(tmp_path), env=env)
    assert two.code == 2 and "“Staging”" in two.err and "“Production”" in two.err


def test_the_local_sandbox_profile_needs_no_keychain_while_the_console_runs_it(
    embedded: tuple[EmbeddedSandbox, SandboxKeys, ProfileStore], tmp_path: Path
) -> None:
    sandbox, _keys, _store = embedded
    env = environment()  # no keychain (the null backend) and no key in the environment
    listed = cli("list", "--home", str(tmp_path), "--json", env=env)  # the only profile: the sandbox's
    assert listed.code == 0, listed.err
    assert listed.json["entries"] == [] and listed.json["source_ip"] == "127.0.0.1"
    named = cli("whoami", "--home", str(tmp_path), "--profile", "Local sandbox", env=env)
    assert named.code == 0 and named.out.strip() == "127.0.0.1", named.err
    sandbox.stop()
    stopped = cli("list", "--home", str(tmp_path), env=env)
    assert stopped.code == 4 and "not running" in stopped.err and "open the console" in stopped.err
