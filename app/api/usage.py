"""The organization's usage and costs (Admin API, admin key), read page after page into flat rows: one per
bucket and group, as the command line and the Usage tab show them (docs/contract.md, "Usage and costs")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.common.prices import Price

from .errors import ApiError, InvalidResponse
from .transport import Transport

TOKENS = ("input_tokens", "input_cached_tokens", "output_tokens", "output_reasoning_tokens")
MOST_PAGES = 1000  # a server that never stops paging is a fault, not a year of usage


@dataclass(frozen=True)
class UsageRow:
    """One bucket's usage for one group (a field the query did not group by is None)."""

    start_time: int
    project_id: str | None
    api_key_id: str | None
    model: str | None
    requests: int
    input_tokens: int
    input_cached_tokens: int
    output_tokens: int
    output_reasoning_tokens: int


def _count(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidResponse("a usage result with a count that is not a whole number")
    return value


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


# One model's price as `GET .../prices` gives it: the class of the sandbox's and the console's default table.
ModelPrice = Price


def _price(value: Any) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
        raise InvalidResponse("a price that is not a number")
    return float(value)


class Usage:
    """`GET .../usage/completions` and `.../costs` of one organization."""

    def __init__(self, transport: Transport, org_id: str) -> None:
        self._transport = transport
        self.org_id = org_id

    async def _buckets(self, path: str, params: dict[str, str]) -> list[dict[str, Any]]:
        buckets: list[dict[str, Any]] = []
        for _ in range(MOST_PAGES):
            result, _headers = await self._transport.request("GET", path, key="admin", params=params)
            if not isinstance(result, dict) or not isinstance(result.get("data"), list):
                raise InvalidResponse("a usage page without its buckets")
            buckets += [bucket for bucket in result["data"] if isinstance(bucket, dict)]
            following = result.get("next_page")
            if not result.get("has_more") or not isinstance(following, str):
                return buckets
            params = {**params, "page": following}
        raise InvalidResponse("a usage answer that never ends")

    async def completions(
        self, start: int, end: int, width: str = "1d", group_by: Sequence[str] = ()
    ) -> list[UsageRow]:
        """Every non-empty bucket's results in [start, end), grouped by project_id, api_key_id, model."""
        params = {"start_time": str(start), "end_time": str(end), "bucket_width": width}
        if group_by:
            params["group_by"] = ",".join(group_by)
        path = f"/organizations/{self.org_id}/usage/completions"
        rows = []
        for bucket in await self._buckets(path, params):
            for result in bucket.get("results") or ():
                rows.append(
                    UsageRow(
                        _count(bucket.get("start_time")),
                        _text(result.get("project_id")),
                        _text(result.get("api_key_id")),
                        _text(result.get("model")),
                        _count(result.get("num_model_requests")),
                        *(_count(result.get(name, 0)) for name in TOKENS),
                    )
                )
        return rows

    async def costs(
        self, start: int, end: int, group_by: Sequence[str] = ()
    ) -> list[tuple[int, str | None, float]]:
        """(day, project id or None, US dollars) for every day's result in [start, end)."""
        params = {"start_time": str(start), "end_time": str(end), "bucket_width": "1d", "limit": "180"}
        if group_by:
            params["group_by"] = ",".join(group_by)
        found = []
        for bucket in await self._buckets(f"/organizations/{self.org_id}/costs", params):
            for result in bucket.get("results") or ():
                amount = result.get("amount")
                value = amount.get("value") if isinstance(amount, dict) else None
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    raise InvalidResponse("a cost without an amount")
                found.append(
                    (_count(bucket.get("start_time")), _text(result.get("project_id")), float(value))
                )
        return found

    async def prices(self) -> dict[str, ModelPrice]:
        """The price table the costs are read at, by model."""
        result, _ = await self._transport.request("GET", f"/organizations/{self.org_id}/prices", key="admin")
        data = result.get("data") if isinstance(result, dict) else None
        if not isinstance(data, list):
            raise InvalidResponse("a price list without its prices")
        return {
            item["model"]: ModelPrice(
                *(_price(item.get(name)) for name in ("input", "cached_input", "output"))
            )
            for item in data
            if isinstance(item, dict) and isinstance(item.get("model"), str)
        }

    async def published_prices(self) -> dict[str, ModelPrice]:
        """`prices`, or none where the service publishes no price table or refuses this key: the costs are
        then not known, and whatever wanted them goes on."""
        try:
            return await self.prices()
        except ApiError:
            return {}
