"""Counts in sentences: "1 entry", "2 entries", "1,000 turns" (a bare plural reads wrong for one)."""

from __future__ import annotations


def counted(count: int, one: str, many: str = "") -> str:
    """`count` and the noun, singular for one: counted(1, "entry", "entries") is "1 entry"."""
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def in_sentence(label: str) -> str:
    """A field's label inside a sentence: "Admin key" is "admin key", but "API key" stays "API key"."""
    first = label.partition(" ")[0]
    if len(first) > 1 and first.isupper():  # an acronym
        return label
    return label[:1].lower() + label[1:]
