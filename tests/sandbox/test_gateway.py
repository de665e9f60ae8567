"""The gateway's order: source IP, scope without the key, allowlists (403 before the key), key, rate limit."""

from __future__ import annotations

import ipaddress
from typing import Any

import httpx

from app.sandbox.gateway.source import resolve_source_ip
from tests.conftest import Sandbox, SandboxFactory

TRUSTED = [ipaddress.ip_network("10.0.0.0/8")]


def scope_with(peer: str, *forwarded: str) -> dict[str, Any]:
    return {"client": (peer, 5000), "headers": [(b"x-forwarded-for", value.encode()) for value in forwarded]}


def test_forwarded_for_is_read_only_from_trusted_peers() -> None:
    assert str(resolve_source_ip(scope_with("203.0.113.9", "198.51.100.7"), TRUSTED)) == "203.0.113.9"
    assert str(resolve_source_ip(scope_with("10.0.0.1", "198.51.100.7"), TRUSTED)) == "198.51.100.7"


def test_forwarded_for_walks_from_the_right_skipping_trusted_hops() -> None:
    scope = scope_with("10.0.0.1", "192.0.2.66, 198.51.100.7:51234", "10.2.3.4")
    assert str(resolve_source_ip(scope, TRUSTED)) == "198.51.100.7"
    scope = scope_with("10.0.0.1", "[2001:db8::1]:443, 10.9.9.9")
    assert str(resolve_source_ip(scope, TRUSTED)) == "2001:db8::1"


def test_garbage_forwarded_for_is_unknown() -> None:
    for values in (("",), ("not-an-ip",), ("198.51.100.7, ,garbage",)):
        assert resolve_source_ip(scope_with("10.0.0.1", *values), TRUSTED) is None


def test_a_trusted_peer_without_the_header_is_the_client() -> None:
    """A direct request from the proxy's own host (curl on the sandbox's machine), as nginx's realip takes it."""
    assert str(resolve_source_ip(scope_with("10.0.0.1"), TRUSTED)) == "10.0.0.1"


def test_all_trusted_hops_give_the_leftmost() -> None:
    assert str(resolve_source_ip(scope_with("10.0.0.1", "10.0.0.3, 10.0.0.2"), TRUSTED)) == "10.0.0.3"


def test_mapped_peer_is_ipv4() -> None:
    assert str(resolve_source_ip(scope_with("::ffff:198.51.100.7"), [])) == "198.51.100.7"


def enable_org_list(sandbox: Sandbox, *cidrs: str) -> None:
    with sandbox.admin() as admin:
        for cidr in cidrs:
            assert admin.post(f"{sandbox.org_list}/entries", json={"cidr": cidr}).status_code == 201
        assert (
            admin.patch(sandbox.org_list, params={"force": "true"}, json={"enabled": True}).status_code == 200
        )


def ask(client: httpx.Client) -> httpx.Response:
    return client.post("/responses", json={"model": "service-pro", "input": "hi"})


def test_allowlist_blocks_unlisted_ip_before_key_validation(sandbox: Sandbox) -> None:
    enable_org_list(sandbox, "198.51.100.0/24")
    with sandbox.api("198.51.100.7") as allowed, sandbox.api("203.0.113.9") as blocked:
        assert ask(allowed).status_code == 200
        response = ask(blocked)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "ip_not_allowed"
    assert response.json()["error"]["type"] == "permission_error"
    assert "203.0.113.9" in response.json()["error"]["message"]
    assert response.headers["x-request-source-ip"] == "203.0.113.9"


def test_403_for_valid_and_wrong_key_is_identical(sandbox: Sandbox) -> None:
    enable_org_list(sandbox, "198.51.100.0/24")
    wrong = sandbox.creds.api_key[:-6] + "AAAAAA"
    answers = []
    for key in (sandbox.creds.api_key, wrong):
        with sandbox.client(key, "203.0.113.9") as client:
            answers.append(ask(client))
    bodies = {answer.content for answer in answers}
    headers = [{k: v for k, v in a.headers.items() if k != "date"} for a in answers]
    assert len(bodies) == 1 and headers[0] == headers[1]
    assert all(answer.status_code == 403 for answer in answers)


def test_no_tokens_are_counted_for_refused_requests(sandbox: Sandbox) -> None:
    enable_org_list(sandbox, "198.51.100.0/24")
    tokens = sandbox.server.state.tokens_by_project
    with sandbox.api("203.0.113.9") as blocked:
        assert ask(blocked).status_code == 403
    assert tokens[sandbox.creds.project_id] == 0
    with sandbox.api("198.51.100.7") as allowed:
        assert ask(allowed).status_code == 200
    assert tokens[sandbox.creds.project_id] > 0


def test_project_list_applies_together_with_org_list(sandbox: Sandbox) -> None:
    enable_org_list(sandbox, "198.51.100.0/24", "192.0.2.0/24")
    with sandbox.admin("198.51.100.1") as admin:
        admin.post(f"{sandbox.project_list}/entries", json={"cidr": "192.0.2.0/25"})
        assert (
            admin.patch(sandbox.project_list, params={"force": "true"}, json={"enabled": True}).status_code
            == 200
        )
    results = {}
    for ip in ("192.0.2.10", "192.0.2.200", "198.51.100.7", "203.0.113.1"):
        with sandbox.api(ip) as client:
            results[ip] = ask(client).status_code
    assert results == {"192.0.2.10": 200, "192.0.2.200": 403, "198.51.100.7": 403, "203.0.113.1": 403}


def test_garbage_forwarded_for_fails_closed_only_where_a_list_is_active(sandbox: Sandbox) -> None:
    with sandbox.api("garbage") as client:
        assert ask(client).status_code == 200  # no list active: nothing to fail
    enable_org_list(sandbox, "0.0.0.0/0", "::/0")
    with sandbox.api("garbage") as client:
        response = ask(client)
    assert response.status_code == 403
    assert response.headers["x-request-source-ip"] == "unknown"


def test_healthz_is_exempt(sandbox: Sandbox) -> None:
    enable_org_list(sandbox, "198.51.100.0/24")
    with sandbox.client(ip="203.0.113.9") as client:
        response = client.get(sandbox.url.removesuffix("/v1") + "/healthz")
    assert response.status_code == 200


def test_enabled_empty_list_blocks_everything(sandbox: Sandbox) -> None:
    enable_org_list(sandbox)
    with sandbox.api("198.51.100.7") as client:
        assert ask(client).status_code == 403


def test_changes_hold_from_the_next_request(sandbox: Sandbox) -> None:
    enable_org_list(sandbox, "198.51.100.0/24")
    with sandbox.admin("198.51.100.1") as admin, sandbox.api("203.0.113.9") as client:
        assert ask(client).status_code == 403
        entry = admin.post(f"{sandbox.org_list}/entries", json={"cidr": "203.0.113.9"}).json()
        assert ask(client).status_code == 200
        assert admin.delete(f"{sandbox.org_list}/entries/{entry['id']}").status_code == 200
        assert ask(client).status_code == 403


def test_missing_and_garbage_authorization_are_401(sandbox: Sandbox) -> None:
    for headers in (
        {},
        {"authorization": "Basic abc"},
        {"authorization": "Bearer"},
        {"authorization": "Bearer sk-nope"},
    ):
        response = httpx.post(
            f"{sandbox.url}/responses", json={"model": "service-pro", "input": "x"}, headers=headers
        )
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "invalid_api_key"
        assert "x-request-source-ip" not in response.headers  # no list active


def test_error_responses_carry_source_ip_when_a_list_applies(sandbox: Sandbox) -> None:
    enable_org_list(sandbox, "198.51.100.0/24")
    with sandbox.api("198.51.100.7") as client:
        response = client.post("/responses", json={"model": "nope", "input": "x"})
        ok = ask(client)
    assert response.status_code == 400 and response.headers["x-request-source-ip"] == "198.51.100.7"
    assert "x-request-source-ip" not in ok.headers


def test_rate_limit_answers_429_with_retry_after(sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory(rate_limit_per_minute=3)
    with sandbox.api() as client:
        statuses = [client.get("/models") for _ in range(4)]
    assert [r.status_code for r in statuses] == [200, 200, 200, 429]
    assert statuses[0].headers["x-ratelimit-remaining-requests"] == "2"
    limited = statuses[-1]
    assert int(limited.headers["retry-after"]) >= 1
    assert limited.json()["error"]["code"] == "rate_limit_exceeded"


def test_body_over_the_limit_is_413(sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory(max_body_bytes=1000)
    with sandbox.api() as client:
        response = client.post("/responses", json={"model": "service-pro", "input": "x" * 2000})
        chunked = client.post(
            "/responses", content=iter([b'{"model": "service-pro", "input": "', b"x" * 2000, b'"}'])
        )
    assert response.status_code == 413 and response.json()["error"]["code"] == "request_too_large"
    assert chunked.status_code == 413


def test_a_blocked_address_gets_one_403_for_every_key_of_a_known_project(sandbox: Sandbox) -> None:
    """Valid, wrong secret, wrong kind: one answer. A key naming no known project selects no list (docs/contract.md;
    why not 403 there: Gateway._applicable_allowlists), so it is judged as a key: 401."""
    enable_org_list(sandbox, "198.51.100.0/24")
    creds = sandbox.creds
    project = creds.project_id
    keys = [creds.api_key, creds.api_key[:-6] + "AAAAAA", f"sk-{project}-short", f"sk-{project}-" + "x" * 200]
    answers = []
    for key in keys:
        with sandbox.client(key, "203.0.113.9") as client:
            answers.append(ask(client))
    with sandbox.client(creds.admin_key[:-4] + "AAAA", "203.0.113.9") as client:
        answers.append(client.get(sandbox.org_list))
    assert [answer.status_code for answer in answers] == [403] * len(answers)
    assert len({answer.content for answer in answers[:4]}) == 1
    assert {answer.headers["x-request-source-ip"] for answer in answers} == {"203.0.113.9"}
    wrong: tuple[str | None, ...] = ("sk-proj_000000000000000000000000-" + "A" * 43, "garbage", None)
    for wrong_key in wrong:
        with sandbox.client(wrong_key, "203.0.113.9") as client:
            assert ask(client).status_code == 401


def test_two_deletes_at_once_cannot_lock_the_caller_out(sandbox: Sandbox) -> None:
    """Each delete's lockout check sees the other's outcome: of two entries holding the caller, one stays."""
    from concurrent.futures import ThreadPoolExecutor

    enable_org_list(sandbox, "198.51.100.0/24", "198.51.100.7/32")
    with sandbox.admin("198.51.100.7") as admin:
        ids = [entry["id"] for entry in admin.get(sandbox.org_list).json()["entries"]]
    for _ in range(3):  # the race, a few times over
        with ThreadPoolExecutor(2) as pool:

            def delete(entry_id: str) -> int:
                with sandbox.admin("198.51.100.7") as admin:
                    return admin.delete(f"{sandbox.org_list}/entries/{entry_id}").status_code

            statuses = sorted(pool.map(delete, ids))
        assert statuses == [200, 409]
        with sandbox.admin("198.51.100.7") as admin:
            remaining = admin.get(sandbox.org_list).json()["entries"]
            assert len(remaining) == 1
            gone = ({*ids} - {remaining[0]["id"]}).pop()
            cidr = next(c for c in ("198.51.100.0/24", "198.51.100.7/32") if c not in {remaining[0]["cidr"]})
            ids = [
                remaining[0]["id"],
                admin.post(f"{sandbox.org_list}/entries", json={"cidr": cidr}).json()["id"],
            ]
            assert gone not in ids


def enable_project_list(sandbox: Sandbox, *cidrs: str, ip: str = "198.51.100.1") -> None:
    with sandbox.admin(ip) as admin:
        for cidr in cidrs:
            assert admin.post(f"{sandbox.project_list}/entries", json={"cidr": cidr}).status_code == 201
        patch = admin.patch(sandbox.project_list, params={"force": "true"}, json={"enabled": True})
        assert patch.status_code == 200


def test_the_gateway_decides_with_the_policy_rule_the_console_asks(sandbox: Sandbox) -> None:
    """One rule: for every address, the gateway admits exactly when netrules' `verdict` over each list's
    answer (as the console computes it from the lists it reads) says so."""
    from app.netrules import EntryIndex, parse_address
    from app.netrules.policy import Verdict, answer, verdict

    org_cidrs, project_cidrs = ["198.51.100.0/24", "192.0.2.0/24"], ["192.0.2.0/25"]
    enable_org_list(sandbox, *org_cidrs)
    enable_project_list(sandbox, *project_cidrs)
    org_index = EntryIndex.of_cidrs(org_cidrs, org_cidrs)
    project_index = EntryIndex.of_cidrs(project_cidrs, project_cidrs)
    for text in ("192.0.2.200", "192.0.2.5", "198.51.100.7", "203.0.113.9", "::ffff:192.0.2.9"):
        address = parse_address(text)
        expected = verdict(answer(org_index, True, address), answer(project_index, True, address))
        with sandbox.api(text) as client:
            status = ask(client).status_code
        assert (status != 403) == (expected == Verdict.ADMITTED), text


def test_the_403_does_not_say_which_list_refused(sandbox_factory: SandboxFactory) -> None:
    """Refused by the organization's list, the project's, or both: the same bytes (the console reads the
    lists through the Admin API to tell which; the answer to a request names no list)."""
    answers = {}
    for case, org_cidrs, project_cidrs in (
        ("organization", ["192.0.2.0/24"], ["203.0.113.0/24"]),
        ("project", ["203.0.113.0/24"], ["192.0.2.0/24"]),
        ("both", ["192.0.2.0/24"], ["192.0.2.0/24"]),
    ):
        sandbox = sandbox_factory()  # each case on a server of its own
        enable_project_list(sandbox, *project_cidrs)
        enable_org_list(sandbox, *org_cidrs)
        for key in (sandbox.creds.api_key, sandbox.creds.api_key[:-6] + "AAAAAA"):
            with sandbox.client(key, "203.0.113.9") as client:
                response = ask(client)
            answers[(case, key == sandbox.creds.api_key)] = (
                response.status_code,
                response.json()["error"],
                response.headers["x-request-source-ip"],
            )
    assert {answer[0] for answer in answers.values()} == {403}
    assert len({repr(answer) for answer in answers.values()}) == 1
