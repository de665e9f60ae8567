"""The simulated engine's log probabilities: deterministic, so a test (or a person) can check them.

Each streamed piece is one token. Its probability p comes from the SHA-256 of the token's text:
p = 0.60 + 0.35 * u, where u is the digest's first 32 bits over 2**32 (so p is in [0.60, 0.95)); the
sampled token is always the most likely one. The alternatives are the first words of a fixed list that
differ from the token (with the token's leading space), with probabilities (1 - p) / 2, (1 - p) / 4, ...,
so the probabilities shown never add up to more than 1. Values are natural logarithms rounded to 6 places.
"""

from __future__ import annotations

import hashlib
import math

from app.sandbox.request.engine_request import EngineRequest

from .base import TokenLogprob

LOGPROBS = "message.output_text.logprobs"
_ALTERNATIVES = [
    "the",
    "a",
    "an",
    "and",
    "of",
    "to",
    "in",
    "it",
    "is",
    "that",
    "for",
    "on",
    "with",
    "as",
    "this",
    "was",
    "be",
    "at",
    "by",
    "or",
    "from",
    "not",
    "but",
    "are",
    "they",
    "one",
    "you",
    "we",
    "all",
    "so",
    "can",
    "had",
    "have",
    "more",
    "out",
    "up",
    "about",
    "some",
    "there",
    "which",
    "their",
    "what",
    "when",
    "were",
]


def top_logprobs_wanted(request: EngineRequest) -> int | None:
    """How many alternatives per token, when logprobs were asked for (`include`); None otherwise."""
    if LOGPROBS not in request.include:
        return None
    return request.body.top_logprobs or 0


def simulated_logprobs(token: str, top: int) -> tuple[TokenLogprob, ...]:
    digest = hashlib.sha256(token.encode()).digest()
    p = 0.60 + 0.35 * int.from_bytes(digest[:4], "big") / 2**32
    lead = token[: len(token) - len(token.lstrip())]
    alternatives: list[tuple[str, float]] = [(token, round(math.log(p), 6))]
    rest = 1 - p
    for word in _ALTERNATIVES:
        if len(alternatives) >= top:
            break
        if lead + word == token:
            continue
        rest /= 2
        alternatives.append((lead + word, round(math.log(rest), 6)))
    return (TokenLogprob(token, alternatives[0][1], tuple(alternatives[:top])),)
