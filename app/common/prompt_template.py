"""`{{variables}}` in a stored prompt's text: which names it holds, and the text with their values.

The sandbox fills a prompt the Responses API names (`prompt.variables`), the console fills one before Send
against a service that does not store prompts, and an eval fills one per dataset row: all three read the
same placeholders here. A name is a letter or underscore, then letters, digits, `_` or `-`; spaces inside
the braces are allowed (`{{ city }}`). Anything else between double braces is left as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}")


def variables_in(texts: Iterable[str]) -> list[str]:
    """Every variable the texts name, each once, in the order they first appear."""
    seen: dict[str, None] = {}
    for text in texts:
        for match in PLACEHOLDER.finditer(text):
            seen.setdefault(match.group(1), None)
    return list(seen)


def fill(text: str, values: Mapping[str, str]) -> str:
    """The text with each placeholder replaced by its value; a name without a value is left as written."""
    return PLACEHOLDER.sub(lambda match: values.get(match.group(1), match.group(0)), text)


def pieces(text: str) -> list[str | tuple[str]]:
    """The text cut at its placeholders: plain runs as strings, each placeholder as a 1-tuple of its name
    (where a value is not text, an image, it becomes a part of its own between the runs around it)."""
    out: list[str | tuple[str]] = []
    start = 0
    for match in PLACEHOLDER.finditer(text):
        if match.start() > start:
            out.append(text[start : match.start()])
        out.append((match.group(1),))
        start = match.end()
    if start < len(text):
        out.append(text[start:])
    return out
