"""The sandbox's own token estimate, for the engines without a tokenizer (usage figures, truncation)."""

from __future__ import annotations

import re

TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """An estimate, about one token per word or punctuation mark: enough for usage figures offline."""
    return len(TOKEN.findall(text))
