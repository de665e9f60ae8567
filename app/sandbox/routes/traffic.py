"""What the allowlists refused and admitted, per source (store/traffic.py), for the Admin API.

`GET .../ip_allowlist/refused?since=&limit=` pages through refusals oldest first: `next_since` is the last
second of the page, to pass again (a row seen twice across pages has the same key: a client keeps the
latest). `GET .../ip_allowlist/sources?since=` gives the sources a list admitted, busiest first.
Both include what the gateway counted since the last write.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.sandbox.contract.traffic import RefusedQuery, SourcesQuery
from app.sandbox.contract.validate import validate_query
from app.sandbox.routes.admin import _target
from app.sandbox.store.aggregates import Store


class TrafficRoutes:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def refused(self, request: Request) -> Response:
        scope, owner, _ = _target(request, self.store)
        query = validate_query(RefusedQuery, request.query_params.multi_items())
        org_id = request.path_params["org_id"]
        project_id = owner if scope == "project" else None
        rows, more = self.store.traffic.refusals(org_id, project_id, query.since, query.limit)
        next_since = rows[-1]["last_seen"] if rows else query.since
        body = {"object": "list", "data": rows, "has_more": more, "next_since": next_since}
        return JSONResponse(body)

    async def sources(self, request: Request) -> Response:
        scope, owner, _ = _target(request, self.store)
        query = validate_query(SourcesQuery, request.query_params.multi_items())
        rows = self.store.traffic.sources(scope, owner, query.since)
        return JSONResponse({"object": "list", "data": rows})
