"""What the command line takes and prints when the input is not what it expects: addresses with Unicode
spaces, a key typed as an argument, argparse's own errors under `--json`, nonsense timeouts, a server's
answer that is no allowlist, and another admin's description holding terminal escape sequences."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.api.servers import raw_server, reply
from tests.cli.cli_support import cli, environment
from tests.conftest import Sandbox

KEY = "sk-admin-org_0123456789abcdef01234567-Zm9vYmFyYmF6cXV4cXV1eHF1dXgxMjM0NTY3ODkw"


@pytest.fixture
def direct(sandbox_factory: Callable[..., Sandbox]) -> Sandbox:
    return sandbox_factory(trusted_proxies=[])


def test_an_address_with_a_unicode_space_is_refused_as_the_api_refuses_it(direct: Sandbox) -> None:
    env = environment(direct)
    for command in ("add", "check", "remove"):
        run = cli(command, "1.2.3.4\u3000", env=env)
        assert run.code == 2 and "U+3000" in run.err, (command, run.err)
    assert cli("add", "\u00a0198.51.100.7", env=env).code == 2
    with direct.admin() as admin:
        assert admin.get(direct.org_list).json()["entries"] == []
    assert cli("add", " 198.51.100.7\t", env=env).code == 0  # ASCII spaces around it: the API's own rule


def test_a_key_given_as_an_argument_is_refused_and_never_printed(direct: Sandbox) -> None:
    env = environment(direct)
    for args in (
        ("add", KEY),
        ("list", KEY),
        (KEY,),
        ("list", "--admin-key", KEY),
        ("add", "1.2.3.4", f"--description={KEY}"),
        ("list", "--json", "--profile", KEY.upper()),
    ):
        run = cli(*args, env=env)
        assert run.code == 2, args
        assert KEY not in run.out + run.err and KEY[20:] not in (run.out + run.err).lower(), args
        assert "never from an argument" in run.err, (args, run.err)


def test_argparse_errors_print_the_json_error_under_json(direct: Sandbox) -> None:
    env = environment(direct)
    for args in (("lsit", "--json"), ("list", "--json", "--frobnicate"), ("add", "--json", "--wait-timeout")):
        run = cli(*args, env=env)
        assert run.code == 2, args
        error = json.loads(run.out)["error"]
        assert error["exit_code"] == 2 and error["kind"] == "usage" and error["message"], args
        assert run.err.startswith("error: "), args


@pytest.mark.parametrize("timeout", ["nan", "-1", "inf", "-inf", "soon"])
def test_a_wait_timeout_that_is_no_number_of_seconds_is_refused(direct: Sandbox, timeout: str) -> None:
    run = cli("add", "198.51.100.7", "--wait", "--wait-timeout", timeout, env=environment(direct))
    assert run.code == 2 and "--wait-timeout" in run.err
    with direct.admin() as admin:
        assert admin.get(direct.org_list).json()["entries"] == []  # refused before anything was sent


def test_an_answer_that_is_no_allowlist_is_an_error_not_an_empty_list() -> None:
    answer = reply("200 OK", b"{}", {"content-type": "application/json"}, keep_alive=False)
    with raw_server(answer) as url:
        env = environment(SERVICE_BASE_URL=url, SERVICE_ORG_ID="org_x", SERVICE_ADMIN_KEY="sk-admin-x")
        run = cli("list", "--json", env=env)
    assert run.code == 4, run.out + run.err
    assert "enabled" in json.loads(run.out)["error"]["message"]


def test_another_admins_description_is_printed_escaped() -> None:
    description = "CI \x1b[2J\x1b]0;pwned\x07 runner\r\nfake line \u202eevil"
    body = {
        "object": "ip_allowlist",
        "scope": "organization",
        "enabled": False,
        "source_ip": "127.0.0.1",
        "entries": [{"id": "ipal_1", "cidr": "192.0.2.0/24", "description": description}],
    }
    answer = reply(
        "200 OK", json.dumps(body).encode(), {"content-type": "application/json"}, keep_alive=False
    )
    with raw_server(answer) as url:
        env = environment(SERVICE_BASE_URL=url, SERVICE_ORG_ID="org_x", SERVICE_ADMIN_KEY="sk-admin-x")
        shown = cli("list", env=env)
        as_json = cli("list", "--json", env=env)
    assert shown.code == 0, shown.err
    assert not any(c in shown.out for c in "\x1b\x07\r\u202e")
    assert shown.out.count("\n") == 2  # the heading and the entry: no line the description made up
    assert "CI \\x1b[2J\\x1b]0;pwned\\x07 runner\\r\\nfake line \\u202eevil" in shown.out
    assert as_json.json["entries"][0]["description"] == description  # JSON carries it as it is, escaped
