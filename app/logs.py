"""Logging to a file with every key redacted, whatever code logged it."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from logging.handlers import RotatingFileHandler
from pathlib import Path

_KEY_PATTERNS = (
    re.compile(r"sk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)(bearer\s+)[^\s'\",]+"),
)


def redact(text: str, secrets: list[str] | None = None) -> str:
    for secret in secrets or []:
        if secret:
            text = text.replace(secret, "***")
    text = _KEY_PATTERNS[0].sub("sk-***", text)
    return _KEY_PATTERNS[1].sub(r"\1***", text)


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


def setup_logging(log_dir: Path, secrets: Callable[[], list[str]] = list) -> Path:
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / "console.log"
    handler = RotatingFileHandler(path, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter(secrets))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    return path
