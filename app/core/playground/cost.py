"""What an answer cost: its tokens at its model's price, as the service's costs endpoint prices them (uncached
input, cached input and output, reasoning included in the output, each at its own price per million tokens),
the words the figures line and its tooltip say, and a conversation's total.

A model the price table does not name has no cost: "cost unknown", never a guess and never $0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.common.prices import Price

from .figures import Figures

if TYPE_CHECKING:
    from .turns import Turn

PER_MILLION = 1_000_000
ORGANIZATION = "the organization's prices"
DEFAULTS = "the default prices (the profile has no admin key)"
UNREAD = "the default prices (the organization's could not be read)"


@dataclass(frozen=True)
class PriceBook:
    """The prices answers are costed at, by model, and where they came from (a phrase: `ORGANIZATION`…)."""

    prices: Mapping[str, Price]
    origin: str

    def price(self, model: str) -> Price | None:
        return self.prices.get(model)


@dataclass(frozen=True)
class AnswerCost:
    """One answer's tokens as they are priced, and the price (None: the model has none)."""

    model: str
    uncached_input: int
    cached_input: int
    output: int  # reasoning included
    reasoning: int
    price: Price | None
    origin: str

    @property
    def has_tokens(self) -> bool:
        return bool(self.uncached_input or self.cached_input or self.output)

    @property
    def usd(self) -> float | None:
        price = self.price
        return None if price is None else price.cost(self.uncached_input, self.cached_input, self.output)


def answer_cost(figures: Figures, model: str, book: PriceBook) -> AnswerCost:
    cached = min(figures.cached_tokens, figures.input_tokens)  # a part of the input, whatever a server says
    return AnswerCost(
        model,
        max(0, figures.input_tokens - cached),
        cached,
        figures.output_tokens,
        figures.reasoning_tokens,
        book.price(model),
        book.origin,
    )


def turn_cost(turn: Turn, book: PriceBook) -> AnswerCost:
    """A turn's figures at the price of the model that answered (as the response names it; else the one
    asked for, which is what a price table holding aliases names)."""
    answered = turn.response.model if turn.response is not None else ""
    model = answered if answered and book.price(answered) is not None else turn.model
    return answer_cost(turn.figures, model, book)


def short_usd(amount: float) -> str:
    """Four significant digits under a dollar (answers cost fractions of a cent), cents above."""
    if amount <= 0:
        return "$0"
    if amount >= 1:
        return f"${amount:,.2f}"
    places = max(2, 3 - math.floor(math.log10(amount)))
    whole, _, fraction = f"{amount:.{places}f}".partition(".")
    return f"${whole}.{fraction.rstrip('0').ljust(2, '0')}"


def exact_usd(amount: float) -> str:
    """To the billionth of a dollar, as the costs endpoint rounds its amounts."""
    text = f"{round(amount, 9):,.9f}".rstrip("0").rstrip(".")
    return f"${text}"


def cost_text(cost: AnswerCost) -> str:
    """What the figures line says after the tokens ("" for an answer without tokens)."""
    if not cost.has_tokens:
        return ""
    return "cost unknown" if cost.usd is None else short_usd(cost.usd)


def cost_breakdown(cost: AnswerCost) -> str:
    """The tooltip: each kind of token at its price, and the exact total."""
    if not cost.has_tokens:
        return ""
    price = cost.price
    if price is None:
        origin = cost.origin[:1].upper() + cost.origin[1:]
        return f"{origin} have no price for {cost.model}: this answer's cost is unknown."
    lines = [f"At {cost.origin} for {cost.model}, per million tokens:"]
    lines.append(_part("input", cost.uncached_input, price.input))
    if cost.cached_input:
        lines.append(_part("cached input", cost.cached_input, price.cached_input))
    reasoning = f" ({cost.reasoning:,} of them reasoning)" if cost.reasoning else ""
    lines.append(_part("output", cost.output, price.output, reasoning))
    lines.append(f"total {exact_usd(cost.usd or 0.0)}")
    return "\n".join(lines)


def _part(name: str, tokens: int, price: float, note: str = "") -> str:
    return f"{name} {tokens:,}{note} × {exact_usd(price)} = {exact_usd(tokens * price / PER_MILLION)}"


@dataclass(frozen=True)
class ConversationCost:
    """The answers' costs added up: what is known, and how many answers had no price."""

    usd: float
    priced: int
    unknown: int
    origin: str = ORGANIZATION


def conversation_cost(costs: Iterable[AnswerCost]) -> ConversationCost:
    usd, priced, unknown, origin = 0.0, 0, 0, ORGANIZATION
    for cost in costs:
        origin = cost.origin
        if not cost.has_tokens:
            continue
        amount = cost.usd
        if amount is None:
            unknown += 1
        else:
            usd, priced = usd + amount, priced + 1
    return ConversationCost(usd, priced, unknown, origin)


def total_text(total: ConversationCost) -> str:
    """The conversation's total, as the Playground shows it ("" before any answer used a token)."""
    if not total.priced:
        return "Conversation: cost unknown" if total.unknown else ""
    unknown = " + cost unknown" if total.unknown else ""
    return f"Conversation: {short_usd(total.usd)}{unknown}"


def total_breakdown(total: ConversationCost) -> str:
    if not total.priced and not total.unknown:
        return ""
    lines = [f"{_answers(total.priced)} at {total.origin}: {exact_usd(total.usd)}"]
    if total.unknown:
        lines.append(f"{_answers(total.unknown)} on a model with no price: cost unknown")
    return "\n".join(lines)


def _answers(count: int) -> str:
    return f"{count} answer{'' if count == 1 else 's'}"
