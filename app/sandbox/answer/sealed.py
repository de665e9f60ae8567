"""Encrypted content the sandbox hands out and takes back: reasoning items' `encrypted_content`.

A client that keeps no state on the server (store=false, as Codex runs) gets its reasoning back as an opaque
blob and sends it with the next turn. The blob is Fernet (AES-128-CBC with an HMAC-SHA256, from the
cryptography library): only this sandbox can read it, and a changed byte is refused. The key is made once
per sandbox data file and kept in it (table `secrets`), so a blob still opens after a restart.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from cryptography.fernet import Fernet, InvalidToken

from app.sandbox.store.aggregates import Store

_KEY_NAME = "fernet_reasoning"


@dataclass(frozen=True)
class ReasoningContent:
    """What a reasoning blob holds: the reasoning text and what it cost."""

    text: str
    tokens: int


class Sealer:
    def __init__(self, key: bytes) -> None:
        self._fernet = Fernet(key)

    @classmethod
    def for_store(cls, store: Store) -> Sealer:
        """The store's key, made and written (durably) the first time."""
        fresh = Fernet.generate_key()

        def keep(db: sqlite3.Connection) -> bytes:
            db.execute("INSERT OR IGNORE INTO secrets VALUES (?, ?)", (_KEY_NAME, fresh))
            row = db.execute("SELECT value FROM secrets WHERE name = ?", (_KEY_NAME,)).fetchone()
            return bytes(row[0])

        return cls(store.database.submit(keep).result())

    def seal(self, content: ReasoningContent) -> str:
        data = {"text": content.text, "tokens": content.tokens}
        return self._fernet.encrypt(json.dumps(data).encode()).decode()

    def open(self, blob: str) -> ReasoningContent | None:
        """The content, or None for a blob this sandbox did not make or that was changed."""
        try:
            data: Any = json.loads(self._fernet.decrypt(blob.encode()))
        except (InvalidToken, ValueError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("text"), str):
            return None
        tokens = data.get("tokens")
        return ReasoningContent(data["text"], tokens if isinstance(tokens, int) else 0)
