"""The fork server (tests/fork_server.py) answers as a real `python -m` does: the same exit code, the same
output on the same streams, each call in a process of its own with the environment it was given."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fork_server import ROOT, ForkServer


def real(argv: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, *argv], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["-m", "app", "allowlist", "frobnicate"],  # argparse: exit 2, usage on stderr
        ["-m", "app", "allowlist", "list", "--json"],  # no service named: exit 2, JSON on stdout
        ["-m", "app.sandbox", "allowlist", "show", "--data", "{tmp}"],  # sys.exit("message"): exit 1
    ],
)
def test_a_forked_call_answers_as_a_real_process_does(
    argv: list[str], python_m: ForkServer, tmp_path: Path
) -> None:
    argv = [word.replace("{tmp}", str(tmp_path)) for word in argv]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
    env["PYTHONPATH"] = str(ROOT)
    done = python_m.run(argv, env=env, cwd=ROOT)
    assert (done.code, done.out, done.err) == real(argv, env)
    assert done.code != 0


def test_each_call_has_its_own_environment(python_m: ForkServer) -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
    argv = ["-m", "app", "allowlist", "list", "--json"]
    pointed = {
        **base,
        "SERVICE_BASE_URL": "http://127.0.0.1:9/v1",
        "SERVICE_ORG_ID": "org_x",
        "SERVICE_ADMIN_KEY": "sk-admin-x",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
    }
    assert python_m.run(argv, env=pointed).code == 4  # nothing listens on port 9: a network failure
    assert python_m.run(argv, env=base).code == 2  # the last call's variables did not stay behind


def test_only_python_m_of_the_app_s_command_lines(python_m: ForkServer) -> None:
    with pytest.raises(ValueError, match="only `-m`"):
        python_m.run(["-c", "print(1)"])
