"""The command line: serve prints the keys once and writes credentials; the dashboard works on the store."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from app.sandbox.cli import build_parser, exposure_warning, main, serve_config
from app.sandbox.store.aggregates import Store
from tests.conftest import SandboxFactory
from tests.fork_server import ForkServer
from tests.sandbox_process import ServerProcess, spawn_sandbox


def stop_and_read(process: ServerProcess) -> str:
    """SIGTERM, then what the server printed after its first line."""
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=20)
    assert process.stdout is not None and process.returncode == 0
    with process.stdout:  # read through the same buffer that read the first line, then close it
        return process.stdout.read()


def test_serve_with_credentials_out_prints_nothing_secret(tmp_path: Path, python_m: ForkServer) -> None:
    creds = tmp_path / "creds.json"
    outputs = []
    for _ in range(2):  # the same data folder: the second start finds the store made by the first
        process, _ = spawn_sandbox(
            tmp_path, forks=python_m
        )  # asserts the "listening at" line and waits for the credentials
        outputs.append(stop_and_read(process))
    data = json.loads(creds.read_text())
    assert set(data) == {"base_url", "org_id", "project_id", "api_key", "admin_key"}
    for output in outputs:  # a captured server log holds no key: they are in the file only
        assert data["admin_key"] not in output and data["api_key"] not in output
        assert "sk-" not in output
    assert f"Keys: written to {creds}" in outputs[0]
    assert (creds.stat().st_mode & 0o777) == 0o600


def test_serve_without_credentials_out_shows_the_keys_once(tmp_path: Path, python_m: ForkServer) -> None:
    outputs: list[str] = []
    for _ in range(2):
        process = python_m.spawn(
            ["-m", "app.sandbox", "serve", "--port", "0", "--data", str(tmp_path / "data")]
        )
        assert process.stdout is not None
        lines = [process.stdout.readline()]
        while len(outputs) == 0 and "project key" not in lines[-1]:  # first start: wait for the keys
            lines.append(process.stdout.readline())
        outputs.append("".join(lines) + stop_and_read(process))
    assert "admin key:" in outputs[0] and "project key:" in outputs[0]
    assert "admin key:" not in outputs[1]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux's /proc and tgkill")
def test_a_sigterm_landing_on_a_server_thread_still_stops_serve(tmp_path: Path, python_m: ForkServer) -> None:
    """The kernel may hand the process's SIGTERM to any thread; Python runs handlers in the main thread only,
    and one sleeping in a lock was never woken (about 1 stop in 100 hung): sent straight to each of the
    server's other threads in turn, every start ends with 0."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for turn in range(3):
        process, _ = spawn_sandbox(tmp_path / str(turn), forks=python_m)
        threads = sorted(
            int(tid) for tid in os.listdir(f"/proc/{process.pid}/task") if int(tid) != process.pid
        )
        assert threads, "the server runs its work in threads of its own"
        assert libc.tgkill(process.pid, threads[turn % len(threads)], signal.SIGTERM) == 0, ctypes.get_errno()
        process.wait(timeout=20)
        assert process.returncode == 0
        assert process.stdout is not None
        process.stdout.close()


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_serve_on_every_interface_warns_and_says_what_to_switch_on(
    tmp_path: Path, host: str, python_m: ForkServer
) -> None:
    process, _ = spawn_sandbox(tmp_path, "--host", host, forks=python_m)
    output = stop_and_read(process)
    assert f"warning: listening on every interface ({host})" in output
    assert "allowlist is off" in output and f"allowlist enable --data {tmp_path / 'data'}" in output
    assert "--tls-cert" in output and "--host 127.0.0.1" in output


def test_serve_on_loopback_says_nothing_more(tmp_path: Path) -> None:
    store = Store(tmp_path / "sandbox.sqlite3")
    try:
        for host in ("127.0.0.1", "::1", "localhost"):
            assert exposure_warning(host, store, False, tmp_path) is None
        assert "every interface" not in (exposure_warning("192.0.2.7", store, True, tmp_path) or "")
    finally:
        store.close()


def test_dashboard_removes_and_shows(
    sandbox_factory: SandboxFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox = sandbox_factory()  # alone in its store: the dashboard acts on the only organization
    with sandbox.admin() as admin:
        admin.post(f"{sandbox.org_list}/entries", json={"cidr": "203.0.113.0/24", "description": "office"})
        admin.patch(sandbox.org_list, params={"force": "true"}, json={"enabled": True})
    data = str(sandbox.server.config.data_dir)
    assert main(["allowlist", "remove", "203.0.113.0/24", "--data", data]) == 0
    assert main(["allowlist", "show", "--data", data]) == 0
    out = capsys.readouterr().out
    assert "removed" in out and "enabled, 0 entries" in out
    assert main(["allowlist", "remove", "198.51.100.1", "--data", data]) == 1


def test_dashboard_creates_a_working_key(sandbox_factory: SandboxFactory, python_m: ForkServer) -> None:
    sandbox = sandbox_factory()  # alone in its store: the dashboard acts on the only organization
    data = str(sandbox.server.config.data_dir)
    result = python_m.run(["-m", "app.sandbox", "keys", "project", "--data", data])
    assert result.code == 0, result.err
    key = result.out.strip()
    with sandbox.client(key) as client:
        assert client.get("/models").status_code == 200


def test_the_dashboard_never_creates_a_store_in_a_wrong_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = tmp_path / "not-a-sandbox"
    wrong.mkdir()
    for argv in (["allowlist", "show"], ["allowlist", "disable"], ["keys", "admin"]):
        with pytest.raises(SystemExit) as stopped:
            main([*argv, "--data", str(wrong)])
        assert "no sandbox store in" in str(stopped.value.code)
    assert list(wrong.iterdir()) == []  # nothing was written there


def test_the_dashboard_points_at_the_embedded_sandbox_folder(tmp_path: Path) -> None:
    nested = tmp_path / "sandbox"  # the console keeps its embedded sandbox's store one level down
    nested.mkdir()
    Store(nested / "sandbox.sqlite3").close()
    with pytest.raises(SystemExit) as stopped:
        main(["allowlist", "show", "--data", str(tmp_path)])
    assert f"use --data {nested}" in str(stopped.value.code)


def test_a_missing_model_file_names_the_fix(tmp_path: Path, python_m: ForkServer) -> None:
    done = python_m.run(
        [
            "-m",
            "app.sandbox",
            "serve",
            "--port",
            "0",
            "--data",
            str(tmp_path),
            "--engine",
            "local",
            "--model-file",
            str(tmp_path / "missing.gguf"),
        ]
    )
    assert done.code == 1
    assert "does not exist: give --model-file the path of a GGUF file" in done.err


def test_the_dashboard_keeps_working_and_is_in_the_audit_log_as_the_dashboard(
    sandbox_factory: SandboxFactory, python_m: ForkServer
) -> None:

    sandbox = sandbox_factory()  # alone in its store: the dashboard acts on the only organization
    with sandbox.admin("198.51.100.7") as admin:
        admin.post(f"{sandbox.org_list}/entries", json={"cidr": "198.51.100.0/24"})
        before = admin.get(sandbox.org_list).headers["etag"]
        data = str(sandbox.server.config.data_dir)
        for command in (
            ["allowlist", "enable"],
            ["allowlist", "remove", "198.51.100.0/24"],
            ["allowlist", "disable"],
        ):
            done = python_m.run(["-m", "app.sandbox", *command, "--data", data])
            assert done.code == 0, done.err
        after = admin.get(sandbox.org_list)
        assert after.json()["entries"] == [] and after.headers["etag"] != before  # the server saw the changes
        events = admin.get(f"/organizations/{sandbox.creds.org_id}/audit_log").json()["data"][:3]
    assert [(e["type"], e["actor"]) for e in events] == [
        (kind, {"type": "dashboard", "id": None, "name": "dashboard"})
        for kind in ("ip_allowlist.disabled", "ip_allowlist.entry.deleted", "ip_allowlist.enabled")
    ]


def test_a_key_made_with_a_name_appears_by_that_name_in_the_audit_log(
    sandbox_factory: SandboxFactory, python_m: ForkServer
) -> None:
    sandbox = sandbox_factory()
    data = str(sandbox.server.config.data_dir)
    made = python_m.run(["-m", "app.sandbox", "keys", "admin", "--name", "CI of repo X", "--data", data])
    assert made.code == 0, made.err
    key = made.out.strip()
    with sandbox.client(key, "198.51.100.7") as ci:
        assert ci.post(f"{sandbox.org_list}/entries", json={"cidr": "198.51.100.7/32"}).status_code == 201
        event = ci.get(f"/organizations/{sandbox.creds.org_id}/audit_log").json()["data"][0]
    assert event["actor"]["name"] == "CI of repo X" and event["actor"]["type"] == "api_key"
    assert key not in json.dumps(event)


def test_the_local_output_limit_is_a_serve_option(tmp_path: Path) -> None:
    parse = build_parser().parse_args
    assert serve_config(parse(["serve", "--data", str(tmp_path)])).model_max_output == 2048
    chosen = parse(["serve", "--data", str(tmp_path), "--engine", "local", "--max-output-tokens", "300"])
    assert serve_config(chosen).model_max_output == 300
