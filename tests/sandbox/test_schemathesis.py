"""Property-based API testing with schemathesis against the sandbox's own OpenAPI document.

Runs every built-in check: no 5xx for any input, no answer that breaks the document, data the document
allows is accepted and data it forbids is refused.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any, cast

import pytest

schemathesis = pytest.importorskip("schemathesis")
from collections.abc import Callable, Iterator  # noqa: E402

from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis import Case  # noqa: E402
from schemathesis.config import SchemathesisConfig  # noqa: E402
from schemathesis.python import asgi  # noqa: E402
from schemathesis.schemas import BaseSchema  # noqa: E402
from starlette.types import ASGIApp, Receive, Scope, Send  # noqa: E402

from app.sandbox import SandboxConfig  # noqa: E402
from app.sandbox.app import create_app  # noqa: E402
from app.sandbox.contract.openapi import openapi_document  # noqa: E402
from app.sandbox.store.aggregates import Store  # noqa: E402
from app.sandbox.store.database import run_blocking  # noqa: E402
from app.sandbox.store.organizations import Credentials  # noqa: E402
from tests.sandbox.asgi_in_thread import clients_ignore_the_environment, in_this_thread  # noqa: E402

# What the module's server fixture gives: the app in process, its configuration, and its credentials.
SandboxApp = tuple[ASGIApp, SandboxConfig, Credentials]


@pytest.fixture(scope="module")
def sandbox_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxApp]:
    data = Path(tmp_path_factory.mktemp("schemathesis"))
    config = SandboxConfig(
        data_dir=data, rate_limit_per_minute=10**9, trusted_proxies=[ipaddress.ip_network("127.0.0.1/32")]
    )
    store = Store(config.database)
    creds = store.organizations.bootstrap()
    # Every address allowed, so lists switched on by the examples never block the checks' own probes.
    for scope, owner in (("organization", creds.org_id), ("project", creds.project_id)):
        run_blocking(store.allowlists.add_entry(scope, owner, "0.0.0.0/0", "all IPv4"))
        run_blocking(store.allowlists.add_entry(scope, owner, "::/0", "all IPv6"))
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

    # The keys through schemathesis's own auth, not headers passed to each call: a negative example may leave
    # the bearer scheme's Authorization header out, and schemathesis then sends none (the sandbox answers
    # 401). A header added at the call put the key back into such an example, which the server rightly
    # accepted, and the negative-data check failed the run on a request that was not invalid.
    @loaded.auth(refresh_interval=None)
    class SandboxKeys:
        def get(self, case: Case[Any], context: object) -> str:
            return creds.admin_key if "/organizations/" in case.path else creds.api_key

        def set(self, case: Case[Any], key: str, context: object) -> None:
            # Spelled as the bearer scheme names it, so the ignored-auth check can take it off and expect a 401.
            case.headers["Authorization"] = f"Bearer {key}"

    return loaded


schema = schemathesis.pytest.from_fixture("api_schema")
# Data the document allows but the server may still refuse with a 400, for reasons no JSON Schema can say:
# an address range with host bits set, image bytes that are no image, an id that does not exist (yet), an
# expiry in the past, a certificate that is no PEM; and an If-Match naming a version the list does not have (412). A conversation's items
# are checked as a response's input is (the images read); input_tokens reads the history that
# `conversation` or `previous_response_id` names, which the examples rarely hold.
_SEMANTIC_400 = ["2xx", "400", "401", "403", "404", "409", "412", "429"]
_REJECTED = ["400", "401", "403", "404", "405", "406", "409", "412", "415", "422", "428", "429"]
CONFIG = SchemathesisConfig.from_dict(
    {
        "operations": [
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
                # A certificate's PEM that is none, or not a CA's (no JSON Schema says so).
                "include-path-regex": "/certificates",
                "checks": {"positive_data_acceptance": {"expected-statuses": _SEMANTIC_400}},
            },
            {
                # The usage queries' filters are arrays in the query string (`api_key_ids=a&api_key_ids=b`),
                # where one value is a one-item array: a "negative" example that turns the array into one
                # string is the same request as a valid one, and no server can refuse it. The other negative
                # examples of these routes are still sent; only a 2xx to them no longer fails the run.
                "include-path-regex": "/usage/(completions|refused)$|/costs$",
                "checks": {
                    "positive_data_acceptance": {"expected-statuses": _SEMANTIC_400},
                    "negative_data_rejection": {"expected-statuses": [*_REJECTED, "2xx"]},
                },
            },
            {
                # A usage window whose end is not after its start, a page cursor this query did not give; a
                # budget's, rate limit's or stored prompt's option's whole number written 1.0 (an integer to
                # JSON Schema, not to strict validation, which also refuses "5" and true for a count).
                "include-path-regex": "/usage/|/costs$|/budget$|/rate_limits/|/prompts",
                "checks": {"positive_data_acceptance": {"expected-statuses": _SEMANTIC_400}},
            },
            {
                "include-path-regex": "^/v1/responses$|^/v1/responses/(input_tokens|compact)$|^/v1/conversations",
                "checks": {"positive_data_acceptance": {"expected-statuses": _SEMANTIC_400}},
            },
        ]
    }
)
# Bounded for the default run; raise it for a deeper search:
# SANDBOX_FUZZ_EXAMPLES=500 pytest tests/sandbox/test_schemathesis.py
EXAMPLES = int(os.environ.get("SANDBOX_FUZZ_EXAMPLES", "20"))
FUZZ_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module", autouse=True)
def config_resolved_once_per_operation() -> Iterator[None]:
    """schemathesis works out an operation's effective configuration (our CONFIG's per-operation overrides
    laid over the defaults) again for every example, a tenth of the module's time; the answer depends only
    on the configuration, the operation and the phase, all fixed for the run, so each is worked out once.

    ProjectConfig is schemathesis's private class: where a release moves or renames it or these methods, the
    run goes on unpatched (the same checks, only slower) rather than failing on the patch."""
    try:
        from schemathesis.config._projects import ProjectConfig
    except ImportError:
        yield
        return
    names = ("checks_config_for", "phases_for", "generation_for")
    with pytest.MonkeyPatch.context() as patch:
        for name in names:
            if callable(getattr(ProjectConfig, name, None)):
                patch.setattr(ProjectConfig, name, _memoized(getattr(ProjectConfig, name)))
        yield


def _memoized(method: Callable[..., Any]) -> Callable[..., Any]:
    answers: dict[tuple[int, str | None, str | None], tuple[object, Any]] = {}

    def resolved(self: object, **keywords: Any) -> Any:  # operation=, and phase= for two of the three
        operation = keywords.get("operation")
        key = (id(self), None if operation is None else operation.label, keywords.get("phase"))
        if key not in answers:  # the config object is kept beside its answer, so its id is never reused
            answers[key] = (self, method(self, **keywords))
        return answers[key][1]

    return resolved


@pytest.fixture(scope="module")
def session(sandbox_app: SandboxApp) -> Iterator[asgi.ASGIClient]:
    """One in-process client for every call. Without it schemathesis builds one per call, and requests reads
    the whole environment for proxy variables on each (a tenth of the module's time): nothing here goes
    through a proxy; nor do the clients schemathesis makes for the ignored-auth check's probes. The
    application runs in the test's thread (asgi_in_thread.py)."""
    app, _, _ = sandbox_app
    # schemathesis types an ASGI app with dict scopes, starlette with MutableMapping ones: the same protocol.
    with in_this_thread(), clients_ignore_the_environment(), asgi.get_client(cast(Any, app)) as client:
        client.trust_env = False
        yield client


# The operations in five parts, one test each, so that xdist's workers share them (one test over every
# operation took a minute alone, the run's longest by far; the Admin API's ~36 operations in one part were
# still the run's longest test, ~20 CPU-s, its last on a loaded machine: the allowlists and keys are
# a part of their own). Each part is a group of its own: its tally test
# below reads what its fuzz test saw, so they must run on one worker. Together the parts are every operation
# the document has, each once (test_the_parts_cover_every_operation_once).
PARTS = {
    "responses": r"^/v1/responses$",
    "responses_by_id": r"^/v1/responses/",
    "conversations": r"^/v1/conversations",
    "allowlists_and_keys": r"/ip_allowlist|api_keys|/service_accounts",
}
REST = "admin_and_the_rest"
STATUSES: dict[str, list[tuple[str, str, int]]] = {part: [] for part in [*PARTS, REST]}


def fuzz_one(case: Case[Any], session: asgi.ASGIClient, part: str) -> None:
    # Every built-in check (checks=None means all of them): no 5xx, answers that match the document,
    # schema-valid data accepted, invalid data refused, 405s with Allow, and the rest. The key is on the case
    # already (api_schema's auth).
    response = case.call_and_validate(session=session)
    STATUSES[part].append((case.operation.label, case.method, response.status_code))


# Each part's examples run inside one test (~10-25 s idle); schemathesis leaves parametrize() unannotated.
@pytest.mark.xdist_group("schemathesis-responses")
@pytest.mark.timeout(300)
@schema.include(path_regex=PARTS["responses"]).parametrize()  # type: ignore[untyped-decorator]
@FUZZ_SETTINGS
def test_no_server_errors_and_responses_match_schema_responses(
    case: Case[Any], session: asgi.ASGIClient
) -> None:
    fuzz_one(case, session, "responses")


@pytest.mark.xdist_group("schemathesis-responses_by_id")
@pytest.mark.timeout(300)
@schema.include(path_regex=PARTS["responses_by_id"]).parametrize()  # type: ignore[untyped-decorator]
@FUZZ_SETTINGS
def test_no_server_errors_and_responses_match_schema_responses_by_id(
    case: Case[Any], session: asgi.ASGIClient
) -> None:
    fuzz_one(case, session, "responses_by_id")


@pytest.mark.xdist_group("schemathesis-conversations")
@pytest.mark.timeout(300)
@schema.include(path_regex=PARTS["conversations"]).parametrize()  # type: ignore[untyped-decorator]
@FUZZ_SETTINGS
def test_no_server_errors_and_responses_match_schema_conversations(
    case: Case[Any], session: asgi.ASGIClient
) -> None:
    fuzz_one(case, session, "conversations")


@pytest.mark.xdist_group("schemathesis-allowlists_and_keys")
@pytest.mark.timeout(300)
@schema.include(path_regex=PARTS["allowlists_and_keys"]).parametrize()  # type: ignore[untyped-decorator]
@FUZZ_SETTINGS
def test_no_server_errors_and_responses_match_schema_allowlists_and_keys(
    case: Case[Any], session: asgi.ASGIClient
) -> None:
    fuzz_one(case, session, "allowlists_and_keys")


@pytest.mark.xdist_group(f"schemathesis-{REST}")
@pytest.mark.timeout(300)
@schema.exclude(path_regex="|".join(PARTS.values())).parametrize()  # type: ignore[untyped-decorator]
@FUZZ_SETTINGS
def test_no_server_errors_and_responses_match_schema_admin_and_the_rest(
    case: Case[Any], session: asgi.ASGIClient
) -> None:
    fuzz_one(case, session, REST)


@pytest.mark.parametrize(
    "part", [pytest.param(part, marks=pytest.mark.xdist_group(f"schemathesis-{part}")) for part in STATUSES]
)
def test_the_fuzzing_got_past_the_gateway(
    part: str, request: pytest.FixtureRequest, sandbox_app: SandboxApp
) -> None:
    """The examples above reach the handlers: in every part some are answered 2xx, not all refused by auth
    or ids; every operation of the part was called, and the part made at least EXAMPLES calls per operation
    (the coverage phase adds many more; an operation with few possible inputs may get fewer on its own).

    Runs after that part's fuzz test (the same module, and the same xdist group, so the same worker's
    STATUSES).
    """
    fuzzed = [item for item in request.session.items if item.name.endswith(f"match_schema_{part}")]
    if not fuzzed:
        pytest.skip("the fuzz test was not selected")
    statuses = Counter(status for *_, status in STATUSES[part])
    assert statuses, "the fuzz test made no call"
    assert any(200 <= status < 300 for status in statuses), f"no example got past the gateway: {statuses}"
    assert not any(status >= 500 for status in statuses), statuses
    operations = operations_of(part, sandbox_app[1])
    assert {label for label, _, _ in STATUSES[part]} == operations
    assert len(STATUSES[part]) >= EXAMPLES * len(operations), (len(STATUSES[part]), len(operations))


def operations_of(part: str, config: SandboxConfig) -> set[str]:
    """The part's operations, labelled as schemathesis labels them ("POST /v1/responses")."""
    paths = openapi_document(config)["paths"]
    chosen = [
        path
        for path in paths
        if (
            re.search(PARTS[part], path)
            if part in PARTS
            else not any(re.search(r, path) for r in PARTS.values())
        )
    ]
    methods = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
    return {f"{method.upper()} {path}" for path in chosen for method in paths[path] if method in methods}


def test_the_parts_cover_every_operation_once(sandbox_app: SandboxApp) -> None:
    """The fuzz tests' filters split the document's operations without a gap or an overlap."""
    _, config, _ = sandbox_app
    paths = list(openapi_document(config)["paths"])
    rest = [path for path in paths if not any(re.search(regex, path) for regex in PARTS.values())]
    in_parts = [path for regex in PARTS.values() for path in paths if re.search(regex, path)]
    assert (
        sorted(in_parts + rest) == sorted(paths)
        and rest
        and all(any(re.search(regex, path) for path in paths) for regex in PARTS.values())
    )
