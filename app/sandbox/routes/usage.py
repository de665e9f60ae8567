"""The usage and costs endpoints of the Admin API (admin key), in the hosted service's shape:
`GET .../usage/completions`, `GET .../costs`, and the sandbox's own `GET .../usage/refused` (what the
gateway refused, by reason). Each writes what was counted since the last flush first, so an answer is in
the usage as soon as its response is."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.sandbox.contract.usage import UsageQuery, parse_query
from app.sandbox.routes.admin import _context
from app.sandbox.store.aggregates import Store
from app.sandbox.store.prices import PriceTable
from app.sandbox.store.usage import GROUPS, TOKEN_COLUMNS

Rows = list[dict[str, Any]]


def _pages(query: UsageQuery, rows: Rows, result: Any) -> dict[str, Any]:
    """The page of buckets the query asks for (empty ones too), each holding `result(rows of it)`."""
    by_start: dict[int, Rows] = defaultdict(list)
    for row in rows:
        by_start[row["start"]].append(row)
    starts = range(query.start, query.end, query.width)[: query.limit]
    data = [
        {
            "object": "bucket",
            "start_time": start,
            "end_time": start + query.width,
            "results": result(by_start.get(start, [])),
        }
        for start in starts
    ]
    following = starts[-1] + query.width if starts else query.end
    more = following < query.end
    return {
        "object": "page",
        "data": data,
        "has_more": more,
        "next_page": f"page_{following}" if more else None,
    }


class UsageRoutes:
    def __init__(self, store: Store, prices: PriceTable) -> None:
        self.store = store
        self.prices = prices

    async def _query(self, request: Request, costs: bool = False) -> tuple[str, UsageQuery]:
        org_id = request.path_params["org_id"]
        _context(request, org_id)
        query = parse_query(request.query_params.multi_items(), self.store.database.now(), costs)
        await self.store.usage.flush()
        return org_id, query

    def _rows(self, org_id: str, query: UsageQuery, group_by: tuple[str, ...]) -> Rows:
        end = min(query.end, query.start + query.limit * query.width)  # only this page's buckets
        return self.store.usage.completions(org_id, query.width, query.start, end, group_by, query.filters)

    async def completions(self, request: Request) -> Response:
        org_id, query = await self._query(request)

        def result(rows: Rows) -> list[dict[str, Any]]:
            return [
                {
                    "object": "organization.usage.completions.result",
                    **{column: row[column] for column in TOKEN_COLUMNS},
                    "input_audio_tokens": 0,
                    "output_audio_tokens": 0,
                    "num_model_requests": row["num_model_requests"],
                    **{column: row.get(column) for column in GROUPS},
                    "user_id": None,
                    "batch": None,
                    "service_tier": None,
                }
                for row in rows
            ]

        return JSONResponse(_pages(query, self._rows(org_id, query, query.group_by), result))

    async def costs(self, request: Request) -> Response:
        org_id, query = await self._query(request, costs=True)
        prices = self.prices.prices()
        by_item = "line_item" in query.group_by
        by_project = "project_id" in query.group_by

        def result(rows: Rows) -> list[dict[str, Any]]:
            amounts: dict[tuple[str | None, str | None], float] = defaultdict(float)
            for row in rows:
                price = prices.get(row["model"])
                if price is None:
                    continue
                cached = row["input_cached_tokens"]
                parts = (
                    ("input", (row["input_tokens"] - cached) * price.input),
                    ("cached input", cached * price.cached_input),
                    ("output", row["output_tokens"] * price.output),
                )
                project = row["project_id"] if by_project else None
                for name, amount in parts:
                    amounts[project, f"{row['model']}, {name}" if by_item else None] += amount / 1_000_000
            return [
                {
                    "object": "organization.costs.result",
                    "amount": {"value": round(value, 9), "currency": "usd"},
                    "line_item": item,
                    "project_id": project,
                }
                for (project, item), value in sorted(amounts.items(), key=lambda pair: str(pair[0]))
            ]

        return JSONResponse(_pages(query, self._rows(org_id, query, ("project_id", "model")), result))

    async def refused(self, request: Request) -> Response:
        org_id, query = await self._query(request)
        end = min(query.end, query.start + query.limit * query.width)
        rows = self.store.usage.refused_requests(org_id, query.width, query.start, end, query.filters)

        def result(rows: Rows) -> list[dict[str, Any]]:
            return [
                {
                    "object": "organization.usage.refused.result",
                    "project_id": row["project_id"] or None,
                    "reason": row["reason"],
                    "num_requests": row["num_requests"],
                }
                for row in rows
            ]

        return JSONResponse(_pages(query, rows, result))

    async def price_list(self, request: Request) -> Response:
        """`GET .../prices`: the price table the costs are read at (US dollars per million tokens), so a
        console prices an hour, a key or one answer exactly as the costs endpoint prices a day."""
        _context(request, request.path_params["org_id"])
        data = [
            {
                "object": "price",
                "model": model,
                "input": price.input,
                "cached_input": price.cached_input,
                "output": price.output,
                "currency": "usd",
            }
            for model, price in sorted(self.prices.prices().items())
        ]
        return JSONResponse({"object": "list", "data": data, "has_more": False})
