"""`truncation: "auto"` drops turns sent in `input` as well as chained ones, and cuts one over-long string;
without it, too long is a 400."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.conftest import Sandbox

WINDOW = 1_000


@pytest.fixture
def small(sandbox_factory: Any) -> Sandbox:
    made: Sandbox = sandbox_factory(context_window=WINDOW)
    return made


def create(sandbox: Sandbox, **body: Any) -> httpx.Response:
    with sandbox.api() as client:
        return client.post("/responses", json={"model": "service-pro", **body})


def turns(count: int, words: int) -> list[dict[str, str]]:
    return [
        {"role": "user" if index % 2 == 0 else "assistant", "content": f"turn{index} " + "word " * words}
        for index in range(count)
    ]


def test_turns_sent_in_input_are_dropped_oldest_first(small: Sandbox) -> None:
    five = turns(5, 300)  # ~1,500 tokens against a window of 1,000
    assert create(small, input=five).json()["error"]["code"] == "context_length_exceeded"
    answer = create(small, input=five, truncation="auto")
    assert answer.status_code == 200, answer.text
    assert answer.json()["usage"]["input_tokens"] <= WINDOW


def test_one_over_long_string_is_cut_at_its_start(small: Sandbox) -> None:
    long = "start " + "word " * 1_300 + "the question at the end"
    assert create(small, input=long).status_code == 400
    answer = create(small, input=long, truncation="auto")
    assert answer.status_code == 200, answer.text
    assert answer.json()["usage"]["input_tokens"] <= WINDOW


def test_instructions_longer_than_the_window_stay_a_400(small: Sandbox) -> None:
    answer = create(small, input="hi", instructions="rule " * 1_200, truncation="auto")
    assert answer.status_code == 400
    assert answer.json()["error"]["param"] == "instructions"


def test_a_fitting_request_is_untouched(small: Sandbox) -> None:
    answer = create(small, input=turns(3, 10), truncation="auto")
    assert answer.status_code == 200
    assert answer.json()["usage"]["input_tokens"] < 100
