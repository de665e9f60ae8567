"""The console's API client: Qt-free, and the only part of the console that imports httpx."""

from .client import ServiceClient
from .errors import (
    ApiError,
    BadRequest,
    Conflict,
    ConnectionFailed,
    Forbidden,
    InvalidResponse,
    IpNotAllowed,
    NotFound,
    RateLimited,
    ServerError,
    StatusError,
    StreamError,
    TimedOut,
    TlsFailed,
    Unauthorized,
)
from .output import citations, output_text, reasoning_summary, search_queries
from .streaming import ResponseStream, StreamEvent, collect
from .transport import ConnectionSettings

__all__ = [
    "ApiError",
    "BadRequest",
    "Conflict",
    "ConnectionFailed",
    "ConnectionSettings",
    "Forbidden",
    "InvalidResponse",
    "IpNotAllowed",
    "NotFound",
    "RateLimited",
    "ResponseStream",
    "ServerError",
    "ServiceClient",
    "StatusError",
    "StreamError",
    "StreamEvent",
    "TimedOut",
    "TlsFailed",
    "Unauthorized",
    "citations",
    "collect",
    "output_text",
    "reasoning_summary",
    "search_queries",
]
