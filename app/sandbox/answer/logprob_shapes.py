"""A token's logprob in the shape the stream events and the finished output_text part carry."""

from __future__ import annotations

from typing import Any

from app.sandbox.engines.base import TokenLogprob


def part_logprob(token: TokenLogprob) -> dict[str, Any]:
    """A token's logprob with each token's UTF-8 bytes, as the output_text part and its delta and done events
    carry it (Open Responses requires the bytes in all three; the official client reads them where it knows
    them and keeps them elsewhere)."""
    raw = token.top_bytes or tuple(text.encode() for text, _ in token.top)
    top = [
        {"token": text, "bytes": list(data), "logprob": lp}
        for (text, lp), data in zip(token.top, raw, strict=True)
    ]
    return {
        "token": token.token,
        "bytes": list(token.token_bytes if token.token_bytes is not None else token.token.encode()),
        "logprob": token.logprob,
        "top_logprobs": top,
    }
