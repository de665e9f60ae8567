"""The sandbox's ASGI application: routes behind the gateway, JSON errors everywhere, never a 5xx for input."""

from __future__ import annotations

import logging
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute

from app.common.engine_kind import EngineKind
from app.sandbox.config import SandboxConfig
from app.sandbox.contract.openapi import openapi_document
from app.sandbox.engines.base import Engine
from app.sandbox.engines.simulated import SimulatedEngine
from app.sandbox.errors import ServiceError, error_body, quote
from app.sandbox.gateway.admission import Gateway
from app.sandbox.routes.admin import AdminRoutes
from app.sandbox.routes.allowlist_batch import BatchRoutes
from app.sandbox.routes.budgets import BudgetRoutes
from app.sandbox.routes.certificates import CertificateRoutes
from app.sandbox.routes.compaction import Compaction
from app.sandbox.routes.counting import TokenCounting
from app.sandbox.routes.keys import KeyRoutes
from app.sandbox.routes.prompts import PromptRoutes
from app.sandbox.routes.rate_limits import RateLimitRoutes
from app.sandbox.routes.responses import ResponsesRoutes
from app.sandbox.routes.responses_socket import ResponsesSocket
from app.sandbox.routes.traffic import TrafficRoutes
from app.sandbox.routes.usage import UsageRoutes
from app.sandbox.state import SandboxState
from app.sandbox.store.aggregates import Store
from app.sandbox.store.prices import PriceTable

log = logging.getLogger(__name__)


def make_engine(config: SandboxConfig) -> Engine:
    if config.engine == EngineKind.UPSTREAM:
        from app.sandbox.engines.upstream import UpstreamApi, UpstreamEngine

        if not config.upstream_url:
            raise ValueError("the upstream engine needs --upstream-url")
        api = UpstreamApi(config.upstream_api)
        return UpstreamEngine(config.upstream_url, config.upstream_key, config.model_map, api)
    if config.engine == EngineKind.LOCAL:
        from app.sandbox.engines.local import LocalEngine

        engine = LocalEngine(
            config.model_file,
            config.model_map,
            config.model_threads,
            config.model_context,
            config.model_max_output,
        )
        engine.start_loading()  # in the background: the server answers at once, the first request waits
        return engine
    if config.engine != EngineKind.SIMULATED:
        raise ValueError(f"unknown engine {config.engine!r}: use simulated, upstream or local")
    return SimulatedEngine(config.stream_delay_ms)


def allowed(request: Request) -> dict[str, str]:
    """The Allow header of a 405: every method some route serves on this path."""
    matching = [
        route
        for route in request.app.routes
        if isinstance(route, Route) and route.methods and route.path_regex.match(request.url.path)
    ]
    # A literal path wins over a pattern it also matches (/v1/responses/compact over /v1/responses/{id}).
    fewest = min((route.path.count("{") for route in matching), default=0)
    methods: set[str] = set()
    for route in matching:
        if route.path.count("{") == fewest and route.methods:
            methods |= route.methods
    return {"allow": ", ".join(sorted(methods))}


def key_routes(keys: KeyRoutes, org: str, project: str) -> list[Route]:
    """The Admin API's keys and service accounts (routes/keys.py)."""
    return [
        Route(org + "/admin_api_keys", keys.list_admin_keys, methods=["GET"]),
        Route(org + "/admin_api_keys", keys.create_admin_key, methods=["POST"]),
        Route(org + "/admin_api_keys/{key_id}", keys.retrieve_admin_key, methods=["GET"]),
        Route(org + "/admin_api_keys/{key_id}", keys.delete_admin_key, methods=["DELETE"]),
        Route(project + "/api_keys", keys.list_project_keys, methods=["GET"]),
        Route(project + "/api_keys/{key_id}", keys.retrieve_project_key, methods=["GET"]),
        Route(project + "/api_keys/{key_id}", keys.delete_project_key, methods=["DELETE"]),
        Route(project + "/service_accounts", keys.list_service_accounts, methods=["GET"]),
        Route(project + "/service_accounts", keys.create_service_account, methods=["POST"]),
        Route(project + "/service_accounts/{account_id}", keys.retrieve_service_account, methods=["GET"]),
        Route(project + "/service_accounts/{account_id}", keys.delete_service_account, methods=["DELETE"]),
    ]


def create_app(config: SandboxConfig, store: Store | None = None) -> Gateway:
    store = store or Store(config.database)
    state = SandboxState(config, store, make_engine(config))
    admin = AdminRoutes(store, config.max_entries)
    certificates = CertificateRoutes(store)
    batches = BatchRoutes(admin)
    traffic = TrafficRoutes(store)
    store.traffic.keep_days = config.keep_responses_days
    prompts = PromptRoutes(store)
    responses = ResponsesRoutes(state, prompts.resolve)
    counting = TokenCounting(responses)
    conversations = responses.conversations

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    def model_list() -> dict[str, Any]:
        describe = getattr(state.engine, "describe", None)  # the real model behind each name (local engine)
        # Whether each model can call functions, where the engine knows (an upstream server's models: not
        # said). Not a field of the service's model object: clients ignore it, the console's model box shows it.
        calls_functions = getattr(state.engine, "calls_functions", None)
        data = [
            {
                "id": name,
                "object": "model",
                "owned_by": describe(name) if describe else "sandbox",
                "created": 0,
                **({"capabilities": {"function_calling": calls_functions(name)}} if calls_functions else {}),
            }
            for name in config.models
        ]
        return {"object": "list", "data": data}

    # Without an engine that names its weights the list never changes: one response, rendered once and
    # sent for every request (a Response keeps nothing of a request it answered).
    fixed_models = None if hasattr(state.engine, "describe") else JSONResponse(model_list())

    async def models(_: Request) -> Response:
        return fixed_models if fixed_models is not None else JSONResponse(model_list())

    async def openapi(_: Request) -> Response:
        return JSONResponse(openapi_document(config))

    org = "/v1/organizations/{org_id}"
    project = org + "/projects/{project_id}"
    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/v1/responses", responses.create, methods=["POST"]),
        WebSocketRoute("/v1/responses", ResponsesSocket(responses, lambda: gateway.limiter).serve),
        Route("/v1/responses/input_tokens", counting.count, methods=["POST"]),
        Route("/v1/responses/compact", Compaction(responses).compact, methods=["POST"]),
        Route("/v1/responses/{response_id}", responses.retrieve_or_stream, methods=["GET"]),
        Route("/v1/responses/{response_id}", responses.delete, methods=["DELETE"]),
        Route("/v1/responses/{response_id}/cancel", responses.cancel, methods=["POST"]),
        Route("/v1/responses/{response_id}/input_items", responses.input_items, methods=["GET"]),
        Route("/v1/conversations", conversations.create, methods=["POST"]),
        Route("/v1/conversations/{conversation_id}", conversations.retrieve, methods=["GET"]),
        Route("/v1/conversations/{conversation_id}", conversations.update, methods=["POST"]),
        Route("/v1/conversations/{conversation_id}", conversations.delete, methods=["DELETE"]),
        Route("/v1/conversations/{conversation_id}/items", conversations.list_items, methods=["GET"]),
        Route("/v1/conversations/{conversation_id}/items", conversations.add_items, methods=["POST"]),
        Route(
            "/v1/conversations/{conversation_id}/items/{item_id}",
            conversations.retrieve_item,
            methods=["GET"],
        ),
        Route(
            "/v1/conversations/{conversation_id}/items/{item_id}",
            conversations.delete_item,
            methods=["DELETE"],
        ),
        Route(org + "/projects", admin.list_projects, methods=["GET"]),
        Route(org + "/audit_log", admin.audit_log, methods=["GET"]),
        Route(org + "/prompts", prompts.list_prompts, methods=["GET"]),
        Route(org + "/prompts", prompts.create, methods=["POST"]),
        Route(org + "/prompts/{prompt_id}", prompts.retrieve, methods=["GET"]),
        Route(org + "/prompts/{prompt_id}/versions", prompts.list_versions, methods=["GET"]),
        Route(org + "/prompts/{prompt_id}/versions", prompts.add_version, methods=["POST"]),
        Route(org + "/prompts/{prompt_id}/versions/{version}", prompts.retrieve_version, methods=["GET"]),
    ]
    routes += key_routes(KeyRoutes(store), org, project)
    store.budgets.prices = prices = PriceTable(config.data_dir, config.brand)
    usage = UsageRoutes(store, prices)
    routes += [
        Route(org + "/usage/completions", usage.completions, methods=["GET"]),
        Route(org + "/usage/refused", usage.refused, methods=["GET"]),
        Route(org + "/costs", usage.costs, methods=["GET"]),
        Route(org + "/prices", usage.price_list, methods=["GET"]),
    ]
    limits = RateLimitRoutes(store, config.models)
    routes += [
        Route(project + "/rate_limits", limits.list_limits, methods=["GET"]),
        Route(project + "/rate_limits/{rate_limit_id}", limits.update, methods=["POST"]),
    ]
    budgets = BudgetRoutes(store)
    routes += [
        Route(org + "/budgets", budgets.list_budgets, methods=["GET"]),
        Route(org + "/budget", budgets.update, methods=["POST"]),
        Route(project + "/budget", budgets.update, methods=["POST"]),
    ]
    for base in (org, project):
        routes += [
            Route(base + "/ip_allowlist", admin.get_list, methods=["GET"]),
            Route(base + "/ip_allowlist", admin.patch_list, methods=["PATCH"]),
            Route(base + "/ip_allowlist/entries", admin.add_entry, methods=["POST"]),
            Route(base + "/ip_allowlist/entries/{entry_id}", admin.delete_entry, methods=["DELETE"]),
            Route(base + "/ip_allowlist/entries/{entry_id}", admin.update_entry, methods=["PATCH"]),
            Route(base + "/ip_allowlist/batch", batches.apply, methods=["POST"]),
            Route(base + "/ip_allowlist/refused", traffic.refused, methods=["GET"]),
            Route(base + "/ip_allowlist/sources", traffic.sources, methods=["GET"]),
        ]

    routes += [  # mutual TLS: "activate" and "deactivate" before the id they would otherwise match
        Route(org + "/certificates", certificates.list_certificates, methods=["GET"]),
        Route(org + "/certificates", certificates.upload, methods=["POST"]),
        Route(org + "/certificates/activate", certificates.activate, methods=["POST"]),
        Route(org + "/certificates/deactivate", certificates.deactivate, methods=["POST"]),
        Route(org + "/certificates/{certificate_id}", certificates.retrieve, methods=["GET"]),
        Route(org + "/certificates/{certificate_id}", certificates.rename, methods=["POST"]),
        Route(org + "/certificates/{certificate_id}", certificates.delete, methods=["DELETE"]),
        Route(project + "/certificates", certificates.list_certificates, methods=["GET"]),
        Route(project + "/certificates/activate", certificates.activate, methods=["POST"]),
        Route(project + "/certificates/deactivate", certificates.deactivate, methods=["POST"]),
    ]

    async def api_error(_: Request, error: Exception) -> Response:
        assert isinstance(error, ServiceError)
        return JSONResponse(error.body(), status_code=error.status, headers=error.headers)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        if error.status_code == 404:
            message = f"Unknown path: {request.method} {quote(request.url.path)}."
            return JSONResponse(error_body(404, message, "not_found"), status_code=404)
        if error.status_code == 405:
            message = f"{quote(request.method)} is not allowed on {quote(request.url.path)}."
            body = error_body(405, message, "method_not_allowed")
            return JSONResponse(body, status_code=405, headers=allowed(request))
        return JSONResponse(error_body(error.status_code, str(error.detail)), status_code=error.status_code)

    async def unexpected(request: Request, error: Exception) -> Response:
        # A bug, not bad input: logged with its trace for us, a plain 500 for the client.
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse(
            error_body(500, "The sandbox hit an internal error; see its log."), status_code=500
        )

    exception_handlers: dict[Any, Any] = {
        ServiceError: api_error,
        HTTPException: http_error,
        Exception: unexpected,
    }
    starlette = Starlette(routes=routes, exception_handlers=exception_handlers)
    starlette.state.sandbox = state
    gateway = Gateway(starlette, store, config)
    gateway.state = state
    return gateway
