"""`service-console keys ...` as a subprocess against a real sandbox: create prints the value once (or only
to --value-out), list never shows one, revoke is refused for the key the command runs with, rotate."""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.cli.cli_support import app_command, environment
from tests.conftest import Sandbox


@pytest.fixture
def direct(sandbox_factory: Callable[..., Sandbox]) -> Sandbox:
    return sandbox_factory(trusted_proxies=[])


def test_create_list_rotate_revoke_a_project_key(direct: Sandbox, tmp_path: Path) -> None:
    env = environment(direct)
    project = direct.creds.project_id
    made = app_command("keys", "create", "--project", project, "--name", "CI", "--json", env=env)
    assert made.code == 0, made.err
    value, key_id = made.json["value"], made.json["id"]
    assert value.startswith("sk-") and value not in made.err
    with httpx.Client(base_url=direct.url, headers={"authorization": f"Bearer {value}"}) as api:
        assert api.get("/models").status_code == 200
    listed = app_command("keys", "list", "--project", project, "--json", env=env)
    assert value not in listed.out and key_id in listed.out
    mine = next(key for key in listed.json["keys"] if key["id"] == key_id)
    assert mine["owner"] == "service account: CI" and mine["last_used_at"] is not None
    text = app_command("keys", "list", "--project", project, env=env).out
    assert "CI" in text and "last used just now" in text
    out = tmp_path / "new-key"
    rotated = app_command(
        "keys", "rotate", "--project", project, "--name", "CI", "--value-out", str(out), "--revoke-old",
        "--json", env=env,
    )  # fmt: skip
    assert rotated.code == 0, rotated.err
    new_value = out.read_text().strip()
    assert new_value not in rotated.out + rotated.err and "value" not in rotated.json
    assert stat.S_IMODE(out.stat().st_mode) == 0o600 and rotated.json["revoked_old"] is True
    with httpx.Client(base_url=direct.url) as api:
        assert api.get("/models", headers={"authorization": f"Bearer {value}"}).status_code == 401
        assert api.get("/models", headers={"authorization": f"Bearer {new_value}"}).status_code == 200
    revoked = app_command("keys", "revoke", rotated.json["id"], "--project", project, "--json", env=env)
    assert revoked.code == 0 and revoked.json["revoked"]["id"] == rotated.json["id"]


def test_revoking_the_admin_key_in_use_needs_force(direct: Sandbox) -> None:
    env = environment(direct)
    listed = app_command("keys", "list", "--json", env=env).json["keys"]
    first = next(key for key in listed if key["name"] == "First admin key")
    refused = app_command("keys", "revoke", first["id"], "--json", env=env)
    assert refused.code == 1 and "Nothing was changed" in refused.err
    made = app_command("keys", "create", "--name", "ops", env=env)
    assert made.code == 0 and made.out.startswith("sk-admin-") and len(made.out.splitlines()) == 1
    bad = app_command("keys", "create", "--name", "x", "--permissions", "files", env=env)
    assert bad.code == 2
    unknown = app_command("keys", "revoke", "--name", "nobody", env=env)
    assert unknown.code == 2
    forced = app_command("keys", "revoke", first["id"], "--force", env=env)
    assert forced.code == 0
    assert app_command("keys", "list", env=env).code == 3
