"""Property-based API testing with schemathesis against the sandbox's own OpenAPI document.

Runs every built-in check: no 5xx for any input, no answer that breaks the document, data the document
allows is accepted and data it forbids is refused.
"""

from __future__ import annotations

import ipaddress
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
# One worker runs the whole module: the tally test reads the fuzz test's STATUSES.
pytestmark = pytest.mark.xdist_group("schemathesis")
from collections.abc import Iterator  # noqa: E402

from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis import Case  # noqa: E402
from schemathesis.config import SchemathesisConfig  # noqa: E402
from schemathesis.schemas import BaseSchema  # noqa: E402
from starlette.types import ASGIApp, Receive, Scope, Send  # noqa: E402

from app.sandbox import SandboxConfig  # noqa: E402
from app.sandbox.app import create_app  # noqa: E402
from app.sandbox.openapi import openapi_document  # noqa: E402
from app.sandbox.store import Credentials, Store  # noqa: E402

# What the module's server fixture gives: the app in process, its configuration, and its credentials.
SandboxApp = tuple[ASGIApp, SandboxConfig, Credentials]


@pytest.fixture(scope="module")
def sandbox_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxApp]:
    data = Path(tmp_path_factory.mktemp("schemathesis"))
    config = SandboxConfig(
        data_dir=data, rate_limit_per_minute=10**9, trusted_proxies=[ipaddress.ip_network("127.0.0.1/32")]
    )
    store = Store(config.database)
    creds = store.bootstrap()
    # Every address allowed, so lists switched on by the examples never block the checks' own probes.
    for scope, owner in (("organization", creds.org_id), ("project", creds.project_id)):
        store.add_entry(scope, owner, "0.0.0.0/0", "all IPv4")
        store.add_entry(scope, owner, "::/0", "all IPv6")
    gateway = create_app(config, store)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        # In process the peer has no address ("testclient"): give it one, outside the trusted proxies.
        scope["client"] = ("192.0.2.10", 40000)
        await gateway(scope, receive, send)

    yield app, config, creds
    store.close()


@pytest.fixture(scope="module")
def api_schema(sandbox_app: SandboxApp) -> BaseSchema:
    app, config, creds = sandbox_app
    document = openapi_document(config)
    # Fill the path's ids with the real ones half of the time, so operations get past 404 and 403.
    for path_item in document["paths"].values():
        for parameter in path_item.get("parameters", []):
            if parameter["name"] == "org_id":
                parameter["schema"] = {"enum": [creds.org_id, "org_other"]}
            if parameter["name"] == "project_id":
                parameter["schema"] = {"enum": [creds.project_id, "proj_other"]}
    loaded: BaseSchema = schemathesis.openapi.from_dict(document, config=CONFIG)
    loaded.app = app  # calls go to the ASGI app in process
    return loaded


schema = schemathesis.pytest.from_fixture("api_schema")
# Data the document allows but the server may still refuse with a 400, for reasons no JSON Schema can say:
# an address range with host bits set, image bytes that are no image, an id that does not exist (yet), an
# expiry in the past; and an If-Match naming a version the list does not have (412). A conversation's items
# are checked as a response's input is (the images read); input_tokens reads the history that
# `conversation` or `previous_response_id` names, which the examples rarely hold.
_SEMANTIC_400 = ["2xx", "400", "401", "403", "404", "409", "412", "429"]
_REJECTED = ["400", "401", "403", "404", "405", "406", "409", "412", "415", "422", "428", "429"]
CONFIG = SchemathesisConfig.from_dict(
    {
        "operations": [
            {
                "include-path-regex": "^/v1/responses/compact$",
                "checks": {"positive_data_acceptance": {"enabled": False}},
            },
            {
                # A change with a stale If-Match is refused with 412 before anything else is looked at, the
                # rest of a malformed request included: a refusal all the same, and nothing changes.
                "include-path-regex": "/ip_allowlist",
                "checks": {
                    "positive_data_acceptance": {"expected-statuses": _SEMANTIC_400},
                    "negative_data_rejection": {"expected-statuses": _REJECTED},
                },
            },
            {
                "include-path-regex": "^/v1/responses$|^/v1/responses/input_tokens$|^/v1/conversations",
                "checks": {"positive_data_acceptance": {"expected-statuses": _SEMANTIC_400}},
            },
        ]
    }
)
# Bounded for the default run (~5 s over the eleven operations); raise it for a deeper search:
# SANDBOX_FUZZ_EXAMPLES=500 pytest tests/sandbox/test_schemathesis.py
EXAMPLES = int(os.environ.get("SANDBOX_FUZZ_EXAMPLES", "20"))


@pytest.mark.timeout(300)  # eleven operations' examples run inside this one test (~30 s idle)
@schema.parametrize()  # type: ignore[untyped-decorator]  # schemathesis leaves parametrize() unannotated
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_errors_and_responses_match_schema(case: Case[Any], sandbox_app: SandboxApp) -> None:
    _, _, creds = sandbox_app
    admin = "/organizations/" in case.path
    key = creds.admin_key if admin else creds.api_key
    # Every built-in check (checks=None means all of them): no 5xx, answers that match the document,
    # schema-valid data accepted, invalid data refused, 405s with Allow, and the rest.
    # Spelled as the bearer scheme names it, so the ignored-auth check can take it off and expect a 401.
    response = case.call_and_validate(headers={"Authorization": f"Bearer {key}"})
    STATUSES.append((case.method, case.path, response.status_code))


STATUSES: list[tuple[str, str, int]] = []


def test_the_fuzzing_got_past_the_gateway(request: pytest.FixtureRequest) -> None:
    """The examples above reach the handlers: some are answered 2xx, not all refused by auth or ids.

    Runs after the fuzz test (the same module, and the same xdist group, so the same worker's STATUSES).
    """
    fuzzed = [item for item in request.session.items if item.name.startswith("test_no_server_errors")]
    if not fuzzed:
        pytest.skip("the fuzz test was not selected")
    statuses = Counter(status for *_, status in STATUSES)
    assert statuses, "the fuzz test made no call"
    assert any(200 <= status < 300 for status in statuses), f"no example got past the gateway: {statuses}"
    assert not any(status >= 500 for status in statuses), statuses
