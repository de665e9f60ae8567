"""A token's logprob in the shapes the stream events and the finished output_text part carry."""

from __future__ import annotations

from typing import Any

from app.sandbox.engines.base import TokenLogprob


def event_logprob(token: TokenLogprob) -> dict[str, Any]:
    """A token's logprob as a delta event carries it (no bytes)."""
    top = [{"token": text, "logprob": logprob} for text, logprob in token.top]
    return {"token": token.token, "logprob": token.logprob, "top_logprobs": top}


def part_logprob(token: TokenLogprob) -> dict[str, Any]:
    """A token's logprob as the finished output_text part carries it (with each token's UTF-8 bytes)."""
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


def without_bytes(logprobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The part's logprobs without bytes, as the done event carries them."""
    return [
        {
            "token": lp["token"],
            "logprob": lp["logprob"],
            "top_logprobs": [
                {"token": top["token"], "logprob": top["logprob"]} for top in lp["top_logprobs"]
            ],
        }
        for lp in logprobs
    ]
