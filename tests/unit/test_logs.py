"""Keys never reach the log, whatever logged them."""

from __future__ import annotations

import logging

from app.logs import RedactingFilter, redact


def test_redact_patterns_and_known_secrets() -> None:
    text = "key sk-proj_abc-0123456789abcdef and Authorization: Bearer tok3n.value, secret hunter2"
    out = redact(text, ["hunter2"])
    assert "0123456789abcdef" not in out and "tok3n" not in out and "hunter2" not in out
    assert "sk-***" in out and "Bearer ***" in out


def test_filter_redacts_arguments_and_tracebacks(caplog) -> None:
    logger = logging.getLogger("test.redact")
    handler_filter = RedactingFilter(lambda: ["plain-secret"])
    records = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    handler = Keep()
    handler.addFilter(handler_filter)
    logger.addHandler(handler)
    try:
        logger.error("calling with %s", "sk-admin-org_x-SECRETSECRETSECRET")
        try:
            raise ValueError("plain-secret in an error")
        except ValueError:
            logger.exception("boom")
    finally:
        logger.removeHandler(handler)
    joined = "\n".join(records)
    assert "SECRETSECRETSECRET" not in joined and "plain-secret" not in joined and "ValueError" in joined
