"""Logging to a file with every key redacted, whatever code logged it."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path

from app.common.private import private_dir, private_file

_KEY_PATTERNS = (
    re.compile(r"sk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)(bearer\s+)[^\s'\",]+"),
    # The password of a URL with credentials (a proxy's, as httpx and its errors print it): user:***@host.
    re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://[^\s:/@'\"]+:)[^\s@'\"]+@"),
    # A Proxy-Authorization header's Basic credentials.
    re.compile(r"(?i)(proxy-authorization['\"]?\s*[:=,]\s*['\"]?\s*basic\s+)[^\s'\",]+"),
)


def redact(text: str, secrets: list[str] | None = None) -> str:
    for secret in secrets or []:
        if secret:
            text = text.replace(secret, "***")
    text = _KEY_PATTERNS[0].sub("sk-***", text)
    text = _KEY_PATTERNS[1].sub(r"\1***", text)
    text = _KEY_PATTERNS[2].sub(r"\1***@", text)
    return _KEY_PATTERNS[3].sub(r"\1***", text)


class RedactingFilter(logging.Filter):
    def __init__(self, secrets: Callable[[], list[str]] = list) -> None:
        super().__init__()
        self._secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info:
            message += "\n" + logging.Formatter().formatException(record.exc_info)
            record.exc_info = None
            record.exc_text = None
        record.msg, record.args = redact(message, self._secrets()), None
        return True


MAX_LOG_BYTES = 2_000_000
KEPT_LOGS = 3


def rotate_at_start(path: Path) -> None:
    """console.log -> console.log.1 -> … when it has grown past MAX_LOG_BYTES. By hand, at start-up only:
    logging.handlers.RotatingFileHandler would rotate mid-session too, but importing it costs ~20 ms
    before the first frame, and a console session does not write 2 MB."""
    try:
        if path.stat().st_size < MAX_LOG_BYTES:
            return
    except FileNotFoundError:
        return
    for index in range(KEPT_LOGS - 1, 0, -1):
        older = path.with_name(f"{path.name}.{index}")
        if older.exists():
            older.replace(path.with_name(f"{path.name}.{index + 1}"))
    path.replace(path.with_name(f"{path.name}.1"))


class ConsoleLogHandler(logging.FileHandler):
    """The console's log file: one per process, the latest session's."""


def setup_logging(log_dir: Path, secrets: Callable[[], list[str]] = list) -> Path:
    """Log to `log_dir`/console.log, keys redacted. A session made again in the same process replaces the
    file the one before it logged to: added beside it, each record went to every earlier session's file too
    (through every earlier filter: the tests make hundreds of sessions in one process), each kept open."""
    private_dir(log_dir)
    path = log_dir / "console.log"
    rotate_at_start(path)
    private_file(path)  # the log names addresses and hosts: the owner's only
    root = logging.getLogger()
    for earlier in [handler for handler in root.handlers if isinstance(handler, ConsoleLogHandler)]:
        root.removeHandler(earlier)
        earlier.close()
    handler = ConsoleLogHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter(secrets))
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    return path
