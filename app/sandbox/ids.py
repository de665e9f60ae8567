"""Identifiers the sandbox makes: a prefix that says what the object is, and 96 random bits."""

from __future__ import annotations

import secrets


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(12)}"
