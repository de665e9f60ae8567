"""Keys never reach the log, whatever logged them."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from app.common.logs import RedactingFilter, redact


def test_redact_patterns_and_known_secrets() -> None:
    text = "key sk-proj_abc-0123456789abcdef and Authorization: Bearer tok3n.value, secret hunter2"
    out = redact(text, ["hunter2"])
    assert "0123456789abcdef" not in out and "tok3n" not in out and "hunter2" not in out
    assert "sk-***" in out and "Bearer ***" in out


def test_filter_redacts_arguments_and_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
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


def test_the_log_is_rotated_at_start_once_it_is_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.common import logs

    monkeypatch.setattr(logs, "MAX_LOG_BYTES", 10)
    path = tmp_path / "console.log"
    for generation in ("first", "second", "third", "fourth"):
        path.write_text(generation * 5)
        logs.rotate_at_start(path)
    assert not path.exists()
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == ["console.log.1", "console.log.2", "console.log.3"]
    assert (tmp_path / "console.log.1").read_text().startswith("fourth")
    assert (tmp_path / "console.log.3").read_text().startswith("second")
    small = tmp_path / "small.log"
    small.write_text("tiny")
    logs.rotate_at_start(small)
    assert small.read_text() == "tiny"


def test_a_session_made_again_logs_to_its_own_file_only(tmp_path: Path) -> None:
    """Each record goes to the latest session's log file, not to every earlier one's as well (each of which
    stayed open, with its filter run for every record)."""
    from app.common.logs import setup_logging

    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        first = setup_logging(tmp_path / "first")
        second = setup_logging(tmp_path / "second")
        logging.getLogger("test.sessions").warning("to the second session's file")
        for handler in root.handlers:
            handler.flush()
        assert "second session" in second.read_text() and "second session" not in first.read_text()
        added = [handler for handler in root.handlers if handler not in handlers]
        assert [Path(getattr(handler, "baseFilename", "")) for handler in added] == [second]
    finally:
        for handler in set(root.handlers) - set(handlers):
            root.removeHandler(handler)
            handler.close()
        root.setLevel(level)
