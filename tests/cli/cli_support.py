"""Running `service-console allowlist ...` (or `settings ...`) as a subprocess, as a script or a CI job does."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import Sandbox
from tests.fork_server import ForkServer

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        return json.loads(self.out)


def environment(sandbox: Sandbox | None = None, **extra: str) -> dict[str, str]:
    """This process's environment without any SERVICE_* variable, plus the sandbox's (admin key only) and
    `extra`; no keychain (the null backend), as on a CI runner."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    env["PYTHONPATH"] = str(ROOT)
    if sandbox is not None:
        env.update(
            SERVICE_BASE_URL=sandbox.url,
            SERVICE_ORG_ID=sandbox.creds.org_id,
            SERVICE_ADMIN_KEY=sandbox.creds.admin_key,
        )
    env.update(extra)
    return env


# The preloaded parent `cli` forks from (tests/fork_server.py), set by tests/cli/conftest.py.
SERVER: ForkServer | None = None


def cli(*args: str, env: dict[str, str]) -> Run:
    """`python -m app allowlist ARGS` in its own process (forked from the preloaded parent), with `env`."""
    return app_command("allowlist", *args, env=env)


def app_command(command: str, *args: str, env: dict[str, str]) -> Run:
    """`python -m app COMMAND ARGS` (allowlist, settings) in its own process, with `env`."""
    assert SERVER is not None, "the fork server runs for the tests in tests/cli (tests/cli/conftest.py)"
    done = SERVER.run(["-m", "app", command, *args], env=env, cwd=ROOT, timeout=60)
    return Run(done.code, done.out, done.err)
