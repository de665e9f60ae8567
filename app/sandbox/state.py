"""What the routes and the gateway share, made once per application by `create_app`."""

from __future__ import annotations

import threading
from collections import defaultdict

from app.sandbox.config import SandboxConfig
from app.sandbox.engines.base import Engine
from app.sandbox.store.aggregates import Store


class SandboxState:
    """What the routes share: settings, store, engine, and the token counter (for 'no tokens on a 403')."""

    def __init__(self, config: SandboxConfig, store: Store, engine: Engine) -> None:
        self.config = config
        self.store = store
        self.engine = engine
        self.tokens_by_project: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def count_tokens(self, project_id: str, tokens: int) -> None:
        with self._lock:
            self.tokens_by_project[project_id] += tokens
