"""Every transport default in one place."""

from __future__ import annotations

CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 120.0  # a reasoning model may think for a while before its first byte
WRITE_TIMEOUT = 30.0
POOL_TIMEOUT = 10.0
# The whole of one call, retries and waits included: a stalling GET gives up well under a minute.
REQUEST_DEADLINE = 30.0
# A stream's wait for the answer's head (a setting of each profile): a proxy that buffers sends nothing until
# the whole answer is there, which for a long answer is minutes.
FIRST_BYTE_DEADLINE = 300.0
# A non-streamed answer from a reasoning model may take minutes; still bounded.
GENERATION_DEADLINE = 300.0
# uvicorn closes idle keep-alive connections after 5 s: never reuse one that has idled near that long.
KEEPALIVE_EXPIRY = 2.0
MAX_RETRIES = 2
BACKOFF_BASE = 0.5  # seconds; doubled per attempt, with jitter
BACKOFF_MAX = 8.0
# A Retry-After up to this long is waited out automatically; a longer one is the person's to wait or stop.
RETRY_AFTER_AUTO = 5.0
RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
USER_AGENT = "service-console"
