"""Real proxies on loopback for the `proxies` tests and tests/perf/bench_proxy.py: mitmproxy (intercepting,
re-signing TLS with its own CA; buffering whole answers by default, streaming with stream_large_bodies) and
squid (tunnelling CONNECT, with basic authentication). `packaging/proxies.sh` installs them; mitmproxy lives
in its own venv (`PROXIES_VENV`, default `.proxies-venv`) because it pins its own versions.

Also the TLS material the tests share: a CA (trustme) and the sandbox's server and client certificates.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import trustme

from tests.loopback import free_port, stop_process

ROOT = Path(__file__).resolve().parents[2]
PROXY_USER, PROXY_PASSWORD = "alice", "pr0xy-s3cret"  # local test values, not secrets


@dataclass(frozen=True)
class RunningProxy:
    url: str  # http://127.0.0.1:PORT, no credentials
    ca_file: Path | None  # the CA it re-signs TLS with (mitmproxy), None for a tunnel
    log: Path

    def with_credentials(self, user: str = PROXY_USER, password: str = PROXY_PASSWORD) -> str:
        return self.url.replace("http://", f"http://{user}:{password}@")


@dataclass(frozen=True)
class Pki:
    ca: Path
    server_cert: Path
    server_key: Path
    client: Path  # the client certificate and its key, in one PEM
    client_cert: Path
    client_key: Path


def make_pki(folder: Path) -> Pki:
    """A CA, a server certificate for 127.0.0.1 and a client certificate, as files."""
    ca = trustme.CA(organization_name="Service Console test CA")
    server = ca.issue_cert("127.0.0.1", "localhost")
    client = ca.issue_cert("console@example.com")
    pki = Pki(
        *(folder / name for name in ("ca.pem", "server.pem", "server.key", "client.pem", "cc.pem", "ck.pem"))
    )
    ca.cert_pem.write_to_path(str(pki.ca))
    server.cert_chain_pems[0].write_to_path(str(pki.server_cert))
    server.private_key_pem.write_to_path(str(pki.server_key))
    client.private_key_and_cert_chain_pem.write_to_path(str(pki.client))
    client.cert_chain_pems[0].write_to_path(str(pki.client_cert))
    client.private_key_pem.write_to_path(str(pki.client_key))
    return pki


def mitmdump_command() -> Path | None:
    venv = Path(os.environ.get("PROXIES_VENV", ROOT / ".proxies-venv"))
    command = (venv if venv.is_absolute() else ROOT / venv) / "bin" / "mitmdump"
    return command if command.exists() else None


def squid_command() -> str | None:
    return shutil.which("squid") or next((path for path in ("/usr/sbin/squid",) if Path(path).exists()), None)


def _wait_port(process: subprocess.Popen[bytes], port: int, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the proxy exited ({process.returncode}): {log.read_text()[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)  # polling a process we do not own: there is no event to await
    process.kill()
    raise RuntimeError(
        f"the proxy did not listen on {port} within {timeout:.0f} s: {log.read_text()[-2000:]}"
    )


@contextmanager
def _running(command: list[str], port: int, folder: Path, timeout: float = 30) -> Iterator[Path]:
    log = folder / "proxy.log"
    with log.open("wb") as log_file:
        process = subprocess.Popen(command, stdout=log_file, stderr=subprocess.STDOUT, cwd=folder)
    try:
        _wait_port(process, port, log, timeout)
        yield log
    finally:
        stop_process(process)


@contextmanager
def mitmproxy(
    *,
    upstream_ca: Path | None = None,
    streaming: bool = False,
    auth: str | None = None,
    extra: tuple[str, ...] = (),
) -> Iterator[RunningProxy]:
    """mitmdump on a free port with a CA of its own (made in a fresh confdir at start), trusting
    `upstream_ca` for the servers it connects to. By default it buffers each answer whole before sending it
    on; `streaming` passes bodies through as they come."""
    command = mitmdump_command()
    if command is None:
        raise RuntimeError("mitmproxy is not installed: bash packaging/proxies.sh installs it")
    with tempfile.TemporaryDirectory(prefix="mitm-") as name:
        folder = Path(name)
        port = free_port()
        options = ["--listen-host", "127.0.0.1", "--listen-port", str(port), "--set", f"confdir={folder}"]
        options += ["--set", "ssl_insecure=false", "--set", "connection_strategy=lazy"]
        if upstream_ca is not None:
            options += ["--set", f"ssl_verify_upstream_trusted_ca={upstream_ca}"]
        if streaming:
            options += ["--set", "stream_large_bodies=1"]
        if auth:
            options += ["--set", f"proxyauth={auth}"]
        with _running([str(command), "-q", *options, *extra], port, folder) as log:
            ca = folder / "mitmproxy-ca-cert.pem"
            deadline = time.monotonic() + 10
            while not ca.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            yield RunningProxy(f"http://127.0.0.1:{port}", ca, log)


SQUID_CONF = """\
http_port 127.0.0.1:{port}
pid_filename {folder}/squid.pid
cache deny all
cache_dir null /tmp
access_log stdio:{folder}/access.log
cache_log {folder}/cache.log
cache_store_log none
coredump_dir {folder}
shutdown_lifetime 0 seconds
auth_param basic program {helper} {folder}/passwords
auth_param basic realm proxy-tests
acl authenticated proxy_auth REQUIRED
acl allowed_ports port {allowed_ports}
acl CONNECT method CONNECT
http_access deny CONNECT !allowed_ports
http_access allow authenticated
http_access deny all
"""


@contextmanager
def squid(allowed_ports: str = "1-65535") -> Iterator[RunningProxy]:
    """squid on a free port: CONNECT tunnels for PROXY_USER, refused (403) to ports not in `allowed_ports`."""
    command = squid_command()
    if command is None:
        raise RuntimeError("squid is not installed: bash packaging/proxies.sh installs it")
    with tempfile.TemporaryDirectory(prefix="squid-") as name:
        folder = Path(name)
        os.chmod(folder, 0o777)  # squid drops to the `proxy` user when started as root
        port = free_port()
        hashed = subprocess.run(
            ["openssl", "passwd", "-apr1", PROXY_PASSWORD], check=True, capture_output=True, text=True
        ).stdout.strip()
        (folder / "passwords").write_text(f"{PROXY_USER}:{hashed}\n")
        conf = folder / "squid.conf"
        conf.write_text(
            SQUID_CONF.format(
                port=port, folder=folder, helper="/usr/lib/squid/basic_ncsa_auth", allowed_ports=allowed_ports
            )
        )
        for path in folder.iterdir():
            os.chmod(path, 0o666)
        with _running([command, "-N", "-f", str(conf)], port, folder) as log:
            yield RunningProxy(f"http://127.0.0.1:{port}", None, log)
