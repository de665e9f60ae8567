"""Bodies as bytes: a request's JSON encoded (a long one off the event loop), and an answer read whole and
decoded, or turned into the typed error of its status (through a proxy, the proxy's own answer)."""

from __future__ import annotations

import asyncio
import json
from functools import partial
from typing import Any

import httpx

from .errors import ApiError, InvalidResponse, status_error
from .network_errors import Route, connection_error, status_through_proxy

# Below this many characters of text a body is encoded on the loop: a worker thread's round trip (its result
# comes back through the loop's queue, behind whatever the window does meanwhile) cost a turn more than the
# json.dumps of a short conversation (tests/perf/bench_functions). The count stops once past the limit.
INLINE_ENCODE_CHARS = 64_000


def _text_over(value: Any, limit: int) -> bool:
    """Whether the strings in `value` (a JSON-ready body) hold more than `limit` characters."""
    stack, total = [value], 0
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
            if total > limit:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


async def encoded_body(body: Any) -> bytes:
    """The body as httpx would encode it; a long one on a worker thread: a long conversation sends megabytes
    of history (300,000 tokens: 1.5 MB, ~8 ms of json.dumps), which the window's loop need not wait for."""
    encode = partial(json.dumps, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    if not _text_over(body, INLINE_ENCODE_CHARS):
        return encode(body).encode()
    text = await asyncio.to_thread(encode, body)
    return text.encode()


def _page_kind(response: httpx.Response, content: bytes) -> str:
    """What a body that is not the API's JSON looks like, for an error message."""
    content_type = response.headers.get("content-type", "")
    if "html" in content_type or content.lstrip()[:1] == b"<":
        if response.status_code == 404:
            return "a web page, not the API: check that the base URL ends in /v1"
        return "a web page, not the API: likely a proxy or gateway in between"
    if not content.strip():
        return "with an empty body"
    return "with a body that is not the API's JSON"


def _json_or_none(content: bytes) -> Any:
    try:
        return json.loads(content) if content else None
    except ValueError:
        return None


def not_a_page(response: httpx.Response, content: bytes) -> bytes:
    """A successful answer's body, unless it is a web page (InvalidResponse). Only called for status < 400."""
    content_type = response.headers.get("content-type", "")
    if "html" in content_type or content.lstrip()[:1] == b"<":
        raise InvalidResponse(
            f"{response.request.url} answered a web page, not the API: check that the base URL ends in /v1."
        )
    return content


def decoded(response: httpx.Response, content: bytes) -> Any:
    """A successful answer's JSON; anything else is InvalidResponse. Only called for status < 400."""
    not_a_page(response, content)
    try:
        return json.loads(content) if content else None
    except ValueError:
        raise InvalidResponse(f"{response.request.url} answered something that is not JSON.") from None


def error_for(response: httpx.Response, content: bytes, route: Route) -> ApiError:
    """Status first, then body: an HTML or text page maps to the typed error of its status, or, through a
    proxy, to the proxy's own answer (a 407, a 403 of its rules), which is never the service's."""
    body = _json_or_none(content)
    api_error = isinstance(body, dict) and isinstance(body.get("error"), dict)
    proxied = status_through_proxy(response.status_code, api_error, str(response.request.url), route, content)
    if proxied is not None:
        return proxied
    what = "" if api_error else _page_kind(response, content)
    return status_error(response.status_code, body, dict(response.headers), what)


async def read_closing(response: httpx.Response, url: str, route: Route) -> bytes:
    """The whole body of an answer, the response closed after; a failure while reading is a typed error."""
    try:
        return await response.aread()
    except httpx.HTTPError as error:
        raise await connection_error(error, url, route) from None
    finally:
        await response.aclose()
