"""Proxy URLs as typed, the log that never shows their password, a held-back stream's figures, and Get code
with the profile's proxy and TLS files (paths and URLs only; secrets come from the environment)."""

from __future__ import annotations

import ast
import logging
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from app.common.logs import RedactingFilter, redact
from app.common.proxy_url import BadProxyUrl, parse_proxy_url, public_form
from app.core.playground.snippets import SnippetNetwork, all_snippets
from app.core.playground.turns import Figures


@pytest.mark.parametrize(
    ("typed", "public", "password"),
    [
        ("127.0.0.1:8080", "http://127.0.0.1:8080", ""),
        ("user:pass@proxy.corp:3128", "http://user@proxy.corp:3128", "pass"),
        ("HTTP://proxy.corp:8080/", "http://proxy.corp:8080", ""),
        ("socks5://10.0.0.1:1080", "socks5://10.0.0.1:1080", ""),
        ("http://a%40b:p%3Aw@[::1]:3128", "http://a%40b@[::1]:3128", "p:w"),
    ],
)
def test_a_proxy_url_is_checked_and_split(typed: str, public: str, password: str) -> None:
    proxy = parse_proxy_url(typed)
    assert proxy.public == public and proxy.password == password
    if password:
        assert parse_proxy_url(proxy.with_password(password)).password == password


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("ftp://proxy:21", "not a proxy scheme the console speaks"),
        ("socks4://proxy:1080", "use http://, https:// or socks5://"),
        ("http://proxy:99999", "port is not a number"),
        ("http://proxy:8080/path", "no path"),
        ("http://:8080", "names no host"),
        ("   ", "empty"),
    ],
)
def test_a_proxy_url_that_cannot_be_one_is_refused_in_words(typed: str, said: str) -> None:
    with pytest.raises(BadProxyUrl, match=said):
        parse_proxy_url(typed)


def test_the_log_never_shows_a_proxy_password() -> None:
    line = "Unknown scheme for proxy URL URL('socks4://alice:s3cr%40t@proxy:1080'); Proxy-Authorization: Basic YWxpY2U6cw=="
    shown = redact(line)
    assert "s3cr" not in shown and "YWxpY2U6cw" not in shown and "alice:***@proxy" in shown
    assert public_form("http://alice:s3cret@proxy:3128") == "http://alice@proxy:3128"
    assert "s3cret" not in public_form("weird://alice:s3cret@proxy")
    record = logging.LogRecord("x", logging.ERROR, "", 0, "proxy %s failed", ("http://u:pw12345@h:1",), None)
    RedactingFilter().filter(record)
    assert "pw12345" not in record.getMessage()


def test_an_answer_that_arrived_all_at_once_says_so_instead_of_a_pace() -> None:
    buffered = Figures(time_to_first_token=8.739, duration=8.75, output_tokens=100_000)
    buffered.last_token_at, buffered.text_deltas = 8.741, 400
    assert buffered.held_back and buffered.tokens_per_second is None
    streamed = Figures(time_to_first_token=1.2, duration=9.0, output_tokens=400)
    streamed.last_token_at, streamed.text_deltas = 8.9, 400
    assert not streamed.held_back and streamed.tokens_per_second == pytest.approx(400 / 7.8)
    fast = Figures(time_to_first_token=0.01, duration=0.02, output_tokens=40)  # the local sandbox, no delay
    fast.last_token_at, fast.text_deltas = 0.015, 40
    assert not fast.held_back
    assert fast.tokens_per_second is None  # 40 tokens in 10 ms: no pace to speak of (was "4,000 tok/s")
    short = Figures(time_to_first_token=0.05, duration=0.0512, output_tokens=40)  # a short answer at once
    short.last_token_at, short.text_deltas = 0.0504, 8
    assert short.tokens_per_second is None


NETWORK = SnippetNetwork(
    proxy="http://alice@proxy.corp:3128",
    proxy_password_env="SERVICE_PROXY_PASSWORD",
    ca_bundle="/etc/corp/ca.pem",
    client_cert="/home/me/client.pem",
    client_key="/home/me/client.key",
    passphrase_env="SERVICE_CLIENT_KEY_PASSPHRASE",
)
BODY: dict[str, Any] = {"model": "service-pro", "input": "Hello"}


def test_get_code_carries_the_profile_s_proxy_and_tls_files() -> None:
    snippets = all_snippets("https://api.corp/v1", BODY, "SERVICE_API_KEY", NETWORK)
    curl = snippets["curl"]
    for option in (
        "--proxy http://proxy.corp:3128",
        '--proxy-user "alice:$SERVICE_PROXY_PASSWORD"',
        "--cacert /etc/corp/ca.pem",
        "--cert /home/me/client.pem",
        "--key /home/me/client.key",
        '--pass "$SERVICE_CLIENT_KEY_PASSPHRASE"',
    ):
        assert option in curl
    node = snippets["Node.js"]
    assert (
        'new ProxyAgent({ uri: "http://proxy.corp:3128"' in node
        and "process.env.SERVICE_PROXY_PASSWORD" in node
    )
    assert 'ca: fs.readFileSync("/etc/corp/ca.pem")' in node and "fetchOptions: { dispatcher }" in node
    direct = all_snippets("http://127.0.0.1:8765/v1", BODY, "SERVICE_API_KEY")
    assert "proxy" not in "".join(direct.values()).lower() and "http_client" not in direct["Python"]


def test_the_python_snippet_with_a_proxy_runs_as_written(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Executed with stand-ins for the official client and httpx: the proxy, its credentials from the
    environment and the TLS context reach the client."""
    import trustme

    ca = trustme.CA()
    cert = ca.issue_cert("client")
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    cert.cert_chain_pems[0].write_to_path(str(tmp_path / "c.pem"))
    cert.private_key_pem.write_to_path(str(tmp_path / "k.pem"))
    network = SnippetNetwork(
        proxy="http://alice@proxy.corp:3128",
        proxy_password_env="SERVICE_PROXY_PASSWORD",
        ca_bundle=str(tmp_path / "ca.pem"),
        client_cert=str(tmp_path / "c.pem"),
        client_key=str(tmp_path / "k.pem"),
    )
    made: dict[str, Any] = {}

    class Client:
        def __init__(self, **arguments: Any) -> None:
            made["http_client"] = arguments

    class Proxy:
        def __init__(self, url: str, auth: tuple[str, str]) -> None:
            made["proxy"] = (url, auth)

    class OpenAI:
        def __init__(self, *, base_url: str, api_key: str, http_client: Client) -> None:
            self.responses = types.SimpleNamespace(create=lambda **_: types.SimpleNamespace(output_text="ok"))

    monkeypatch.setitem(sys.modules, "openai", types.SimpleNamespace(OpenAI=OpenAI))
    monkeypatch.setitem(sys.modules, "httpx", types.SimpleNamespace(Client=Client, Proxy=Proxy))
    monkeypatch.setenv("SERVICE_API_KEY", "sk-from-the-environment")
    monkeypatch.setenv("SERVICE_PROXY_PASSWORD", "from-the-environment")
    source = all_snippets("https://api.corp/v1", BODY, "SERVICE_API_KEY", network)["Python"]
    ast.parse(source)
    exec(compile(source, "snippet.py", "exec"), {"print": lambda *_: None})
    assert made["proxy"] == ("http://proxy.corp:3128", ("alice", "from-the-environment"))
    assert made["http_client"]["proxy"] is not None and made["http_client"]["verify"] is not None
    assert "from-the-environment" not in source


def test_the_wait_for_the_first_token_is_counted_and_a_proxy_named_after_five_seconds() -> None:
    from app.core.playground.status import waiting_text

    assert waiting_text(0.4, "proxy:3128") == "Waiting for the first token…"
    assert waiting_text(54.2) == "Waiting for the first token… 54 s."
    assert waiting_text(4.9, "proxy:3128") == "Waiting for the first token… 5 s."
    assert waiting_text(5.0, "proxy:3128") == (
        "Waiting for the first token… 5 s. The proxy proxy:3128 may be holding the answer back until it is whole."
    )
