"""What an answer costs in the Playground: its tokens at its model's price (uncached input, cached input,
output with its reasoning), the sentence and the breakdown shown, a model with no price said plainly, and a
conversation's total; the usage the figures read from a response; one default price table for the sandbox
and the console."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.api.wire import parse_response
from app.common.prices import DEFAULT_PRICES, Price, default_prices
from app.core.playground.cost import (
    PriceBook,
    answer_cost,
    conversation_cost,
    cost_breakdown,
    cost_text,
    exact_usd,
    short_usd,
    total_text,
)
from app.core.playground.figures import Figures
from app.sandbox.store.prices import PriceTable

PRO = Price(1.25, 0.125, 10.0)
BOOK = PriceBook({"service-pro": PRO}, "the organization's prices")


def figures(given: int, cached: int, made: int, reasoning: int) -> Figures:
    return Figures(
        input_tokens=given,
        output_tokens=made,
        total_tokens=given + made,
        cached_tokens=cached,
        reasoning_tokens=reasoning,
    )


def test_cached_input_is_priced_apart_and_reasoning_is_output() -> None:
    cost = answer_cost(figures(1000, 600, 500, 200), "service-pro", BOOK)
    # 400 uncached at 1.25, 600 cached at 0.125, 500 output (200 of them reasoning) at 10, per million.
    assert cost.usd == pytest.approx((400 * 1.25 + 600 * 0.125 + 500 * 10.0) / 1e6)
    assert exact_usd(cost.usd or 0) == "$0.005575"
    assert cost_text(cost) == "$0.005575"
    lines = cost_breakdown(cost).splitlines()
    assert lines[0] == "At the organization's prices for service-pro, per million tokens:"
    assert lines[1:] == [
        "input 400 × $1.25 = $0.0005",
        "cached input 600 × $0.125 = $0.000075",
        "output 500 (200 of them reasoning) × $10 = $0.005",
        "total $0.005575",
    ]


def test_no_cache_no_reasoning_and_more_cached_than_input() -> None:
    plain = answer_cost(figures(40, 0, 53, 0), "service-pro", BOOK)
    assert plain.usd == pytest.approx((40 * 1.25 + 53 * 10.0) / 1e6)
    assert "cached" not in cost_breakdown(plain) and "reasoning" not in cost_breakdown(plain)
    odd = answer_cost(figures(10, 30, 0, 0), "service-pro", BOOK)  # a server's miscount: never negative
    assert odd.usd == pytest.approx(10 * 0.125 / 1e6)


def test_a_model_with_no_price_costs_unknown_not_nothing() -> None:
    cost = answer_cost(figures(40, 0, 53, 0), "other-model", BOOK)
    assert cost.usd is None
    assert cost_text(cost) == "cost unknown"
    assert cost_breakdown(cost) == (
        "The organization's prices have no price for other-model: this answer's cost is unknown."
    )
    nothing = answer_cost(figures(0, 0, 0, 0), "other-model", BOOK)  # no tokens (stopped early): no cost
    assert cost_text(nothing) == "" and cost_breakdown(nothing) == ""


def test_the_conversation_total_sums_what_is_known_and_says_what_is_not() -> None:
    first = answer_cost(figures(1000, 600, 500, 200), "service-pro", BOOK)
    second = answer_cost(figures(40, 0, 53, 0), "service-pro", BOOK)
    unknown = answer_cost(figures(40, 0, 53, 0), "other-model", BOOK)
    empty = answer_cost(figures(0, 0, 0, 0), "other-model", BOOK)
    total = conversation_cost([first, second, empty])
    assert total.usd == pytest.approx((first.usd or 0) + (second.usd or 0)) and total.unknown == 0
    assert total_text(total) == f"Conversation: {short_usd(total.usd)}"
    with_unknown = conversation_cost([first, unknown])
    assert with_unknown.usd == first.usd and with_unknown.unknown == 1
    assert total_text(with_unknown) == "Conversation: $0.005575 + cost unknown"
    assert total_text(conversation_cost([unknown])) == "Conversation: cost unknown"
    assert total_text(conversation_cost([])) == ""


def test_amounts_read_short_on_the_line_and_exact_in_the_breakdown() -> None:
    assert short_usd(0.000512375) == "$0.0005124"
    assert exact_usd(0.000512375) == "$0.000512375"
    assert short_usd(0.0123) == "$0.0123"
    assert short_usd(1234.5) == "$1,234.50"
    assert short_usd(0.0) == exact_usd(0.0) == "$0"


def test_the_figures_read_cached_and_reasoning_tokens_from_the_usage() -> None:
    body = {
        "id": "resp_1",
        "status": "completed",
        "model": "service-think",
        "output": [],
        "usage": {
            "input_tokens": 70,
            "input_tokens_details": {"cached_tokens": 64},
            "output_tokens": 30,
            "output_tokens_details": {"reasoning_tokens": 12},
            "total_tokens": 100,
        },
    }
    usage = parse_response(body).usage
    assert usage is not None and (usage.cached_tokens, usage.reasoning_tokens) == (64, 12)
    body["usage"] = {"input_tokens": 5, "output_tokens": 1, "total_tokens": 6, "input_tokens_details": None}
    usage = parse_response(body).usage
    assert usage is not None and (usage.cached_tokens, usage.reasoning_tokens) == (0, 0)


def test_the_console_and_the_sandbox_read_one_default_table(tmp_path: Path) -> None:
    assert PriceTable(tmp_path, "acme").prices() == default_prices("acme")
    assert default_prices("acme")["acme-pro"] == DEFAULT_PRICES["pro"] == PRO
