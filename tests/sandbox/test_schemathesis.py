"""Property-based API testing with schemathesis against the sandbox's own OpenAPI document.

Finds no 5xx for any input, and no response that breaks its own schema.
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402

from app.sandbox import SandboxConfig  # noqa: E402
from app.sandbox.app import create_app  # noqa: E402
from app.sandbox.openapi import openapi_document  # noqa: E402
from app.sandbox.store import Store  # noqa: E402


@pytest.fixture(scope="module")
def sandbox_app(tmp_path_factory: pytest.TempPathFactory):
    data = Path(tmp_path_factory.mktemp("schemathesis"))
    config = SandboxConfig(
        data_dir=data, rate_limit_per_minute=10**9, trusted_proxies=[ipaddress.ip_network("127.0.0.1/32")]
    )
    store = Store(config.database)
    creds = store.bootstrap()
    app = create_app(config, store)
    yield app, config, creds
    store.close()


@pytest.fixture(scope="module")
def api_schema(sandbox_app):
    app, config, creds = sandbox_app
    document = openapi_document(config)
    # Fill the path's ids with the real ones half of the time, so operations get past 404 and 403.
    for path_item in document["paths"].values():
        for parameter in path_item.get("parameters", []):
            if parameter["name"] == "org_id":
                parameter["schema"] = {"enum": [creds.org_id, "org_other"]}
            if parameter["name"] == "project_id":
                parameter["schema"] = {"enum": [creds.project_id, "proj_other"]}
    loaded = schemathesis.openapi.from_dict(document)
    loaded.app = app  # calls go to the ASGI app in process
    return loaded


schema = schemathesis.pytest.from_fixture("api_schema")
# Bounded for the default run (~5 s over the eleven operations); raise it for a deeper search:
# SANDBOX_FUZZ_EXAMPLES=500 pytest tests/sandbox/test_schemathesis.py
EXAMPLES = int(os.environ.get("SANDBOX_FUZZ_EXAMPLES", "20"))


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_errors_and_responses_match_schema(case, sandbox_app) -> None:
    _, _, creds = sandbox_app
    admin = "/organizations/" in case.path
    key = creds.admin_key if admin else creds.api_key
    response = case.call_and_validate(
        headers={"authorization": f"Bearer {key}"},
        checks=[schemathesis.checks.not_a_server_error, schemathesis.checks.response_schema_conformance],
    )
    STATUSES.append((case.method, case.path, response.status_code))


STATUSES: list[tuple[str, str, int]] = []


def teardown_module() -> None:
    from collections import Counter

    print("\nschemathesis calls by status:", dict(Counter(status for *_, status in STATUSES)))
