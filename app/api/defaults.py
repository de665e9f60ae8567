"""Every transport default in one place."""

from __future__ import annotations

CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 120.0  # a reasoning model may think for a while before its first byte
WRITE_TIMEOUT = 30.0
POOL_TIMEOUT = 10.0
MAX_RETRIES = 2
BACKOFF_BASE = 0.5  # seconds; doubled per attempt, with jitter
BACKOFF_MAX = 8.0
RETRY_AFTER_MAX = 60.0  # never sleep longer than this on a server's Retry-After
RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
USER_AGENT = "service-console"
