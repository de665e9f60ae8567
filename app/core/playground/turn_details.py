"""What a turn view shows beside the answer (its searches, sources and reasoning), read from the turn's output
items."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.core.playground.turns import Turn
    from app.schema.items import UrlCitation


@dataclass(frozen=True)
class TurnDetails:
    """What a turn view shows beside the answer."""

    searches: list[str] = field(default_factory=list)
    citations: list[UrlCitation] = field(default_factory=list)
    reasoning: str = ""


def turn_details(turn: Turn) -> TurnDetails:
    # pydantic loads with the first turn shown, not with the tab
    from app.api.wire import citations, reasoning_summary, search_queries

    items = turn.output_items()
    return TurnDetails(search_queries(items), citations(items), reasoning_summary(items))
