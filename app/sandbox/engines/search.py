"""The offline web search behind `web_search_preview`: a small corpus shipped under resources/.

Ranked by BM25 over words; a hand-written scorer because a real search engine would be a heavy
dependency for a corpus of a few dozen pages.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from functools import lru_cache

from app.common.assets import SEARCH_CORPUS

from .base import SearchResult

CORPUS = SEARCH_CORPUS
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "of",
        "on",
        "or",
        "tell",
        "that",
        "the",
        "this",
        "to",
        "was",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
        "you",
        "your",
        "about",
        "do",
        "does",
        "can",
        "please",
    ]
)


def words(text: str) -> list[str]:
    return [word for word in _WORD.findall(text.lower()) if word not in _STOP]


@lru_cache(maxsize=1)
def _corpus() -> tuple[list[dict[str, str]], list[Counter[str]], float]:
    pages = json.loads(CORPUS.read_text(encoding="utf-8"))
    counts = [Counter(words(f"{page['title']} {page['title']} {page['text']}")) for page in pages]
    average = sum(sum(count.values()) for count in counts) / max(1, len(counts))
    return pages, counts, average


def make_query(text: str) -> str:
    """A search query from a prompt: its content words, as a person would type them."""
    return " ".join(words(text)[:12]) or text.strip()[:80]


def search(query: str, limit: int = 3) -> list[SearchResult]:
    pages, counts, average = _corpus()
    terms = set(words(query))
    scored = []
    for page, count in zip(pages, counts, strict=True):
        length = sum(count.values())
        score = 0.0
        for term in terms:
            frequency = count.get(term, 0)
            if frequency:
                containing = sum(1 for other in counts if term in other)
                idf = math.log(1 + (len(counts) - containing + 0.5) / (containing + 0.5))
                score += idf * frequency * 2.2 / (frequency + 1.2 * (0.25 + 0.75 * length / average))
        if score > 0:
            scored.append((score, page))
    scored.sort(key=lambda pair: -pair[0])
    # Drop weak matches (a shared common word): a page must score at least 40% of the best one.
    best = scored[0][0] if scored else 0.0
    return [
        SearchResult(page["url"], page["title"], page["text"])
        for score, page in scored[:limit]
        if score >= 0.4 * best
    ]
