"""The difference between two versions of a prompt, line by line (difflib), as a person reads a review."""

from __future__ import annotations

import difflib
import json

from app.api.prompts import StoredPrompt
from app.core.prompts.draft import message_text


def as_lines(stored: StoredPrompt) -> list[str]:
    """A version as the lines a diff compares: each field under its own heading."""
    lines = [f"Name: {stored.name}", f"Model: {stored.model or '(any)'}"]
    if stored.options:
        lines.append("Options: " + json.dumps(stored.options, sort_keys=True))
    lines += ["Instructions:", *(stored.instructions or "").splitlines()]
    lines += ["Message:", *message_text(stored.input).splitlines()]
    return lines


def version_diff(older: StoredPrompt, newer: StoredPrompt) -> list[str]:
    """Unified diff lines from `older` to `newer` (empty when they say the same)."""
    return list(
        difflib.unified_diff(
            as_lines(older),
            as_lines(newer),
            fromfile=f"version {older.version}",
            tofile=f"version {newer.version}",
            lineterm="",
        )
    )
