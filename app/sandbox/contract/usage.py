"""The contract of the usage and costs endpoints, in the hosted Admin API's shape: their query strings and
the objects they answer (docs/contract.md, "Usage and costs").

`GET .../usage/completions?start_time=&end_time=&bucket_width=1m|1h|1d&group_by=&project_ids=&models=
&api_key_ids=&limit=&page=`; `GET .../costs` takes `bucket_width=1d` only and groups by `project_id` or
`line_item`. A list parameter is given once per value (`group_by=model&group_by=project_id`, or with the
`[]` suffix some clients add).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.sandbox.contract.traffic import MAX_SECONDS
from app.sandbox.contract.validate import bad
from app.sandbox.errors import quote

WIDTHS = {"1m": 60, "1h": 3600, "1d": 86_400}
# Buckets per page by width, (default, most), as the hosted service pages them.
LIMITS = {"1m": (60, 1440), "1h": (24, 168), "1d": (7, 31)}
COST_LIMITS = (7, 180)
FILTERS = {"project_ids": "project_id", "models": "model", "api_key_ids": "api_key_id"}
FILTER_MAX_CHARS = 64  # one id or model name in a filter, as the published document says
PAGE_MAX_CHARS = 64  # a `page` cursor, as the published document says
USAGE_GROUPS = ("project_id", "api_key_id", "model")
COST_GROUPS = ("project_id", "line_item")
_SINGLE = ("start_time", "end_time", "bucket_width", "limit", "page")


@dataclass(frozen=True)
class UsageQuery:
    """A usage or costs query, checked: times are Unix seconds, `start` aligned down to the bucket width."""

    start: int
    end: int
    width_name: str
    limit: int
    group_by: tuple[str, ...] = ()
    filters: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def width(self) -> int:
        return WIDTHS[self.width_name]


def _number(name: str, text: str, low: int, high: int) -> int:
    if not text.isdigit() or not low <= int(text) <= high:
        raise bad(f"'{name}' must be a whole number from {low} to {high}, not '{quote(text)}'.", name)
    return int(text)


def parse_query(pairs: list[tuple[str, str]], now: int, costs: bool = False) -> UsageQuery:
    """The query string of `usage/completions` (or of `costs`); a 400 names the first wrong parameter."""
    single: dict[str, str] = {}
    lists: dict[str, list[str]] = {}
    allowed_lists = ("group_by", *(() if costs else FILTERS), *(("project_ids",) if costs else ()))
    for raw, value in pairs:
        name = raw.removesuffix("[]")
        if name in _SINGLE:
            if name in single:
                raise bad(f"'{quote(name)}' is given more than once.", quote(name))
            single[name] = value
        elif name in allowed_lists:
            parts = [part for part in value.split(",") if part]
            if name in FILTERS and any(len(part) > FILTER_MAX_CHARS for part in parts):
                raise bad(f"'{name}' takes ids of at most {FILTER_MAX_CHARS} characters.", name)
            lists.setdefault(name, []).extend(parts)
        else:
            raise bad(f"Unknown query parameter: '{quote(raw)}'.", quote(raw), "unknown_parameter")
    if "start_time" not in single:
        raise bad("'start_time' is required: Unix seconds, the start of the first bucket.", "start_time")
    width_name = single.get("bucket_width", "1d")
    if width_name not in (("1d",) if costs else WIDTHS):
        allowed = "1d" if costs else "1m, 1h or 1d"
        raise bad(f"'bucket_width' must be {allowed}, not '{quote(width_name)}'.", "bucket_width")
    width = WIDTHS[width_name]
    start = _number("start_time", single["start_time"], 0, MAX_SECONDS)
    end = _number("end_time", single["end_time"], 1, MAX_SECONDS) if "end_time" in single else now + 1
    if end <= start:
        raise bad("'end_time' must be after 'start_time'.", "end_time")
    default, most = COST_LIMITS if costs else LIMITS[width_name]
    limit = _number("limit", single["limit"], 1, most) if "limit" in single else default
    start -= start % width
    if "page" in single:  # the next bucket's start, as `next_page` gave it
        if len(single["page"]) > PAGE_MAX_CHARS:
            raise bad(f"'page' is not one this query gave: longer than {PAGE_MAX_CHARS} characters.", "page")
        page = single["page"].removeprefix("page_")
        start = _number("page", page, start, end)
        if start % width:
            raise bad(f"'page' is not one this query gave: '{quote(single['page'])}'.", "page")
    groups = tuple(lists.get("group_by", ()))
    for group in groups:
        if group not in (COST_GROUPS if costs else USAGE_GROUPS):
            names = ", ".join(COST_GROUPS if costs else USAGE_GROUPS)
            raise bad(f"'group_by' takes {names}, not '{quote(group)}'.", "group_by")
    filters = {FILTERS[name]: tuple(values) for name, values in lists.items() if name in FILTERS}
    return UsageQuery(start, end, width_name, limit, groups, filters)
