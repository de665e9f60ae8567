"""A turn's figures (its timings and token counts, as the figures line shows them) and the rules that read
them: whether a proxy held the answer back, and whether its pace can be timed; and a conversation's token
totals."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# An answer "arrived all at once" when its text deltas, many of them, came within this share of the wait for
# the first one (and under HELD_BACK_SPAN_S), after a wait of at least HELD_BACK_MIN_WAIT_S: what a proxy
# that buffers the whole answer does. A server that streams spreads them over the generation.
HELD_BACK_MIN_DELTAS = 10
HELD_BACK_MIN_WAIT_S = 1.0
HELD_BACK_SHARE = 0.05
HELD_BACK_SPAN_S = 0.25
# A pace is shown only for text that streamed over at least this long: a short answer that came in a few
# milliseconds would read as tens of thousands of tokens a second, a figure of the clock, not of the model.
PACE_MIN_SPAN_S = 0.25


@dataclass
class Figures:
    """A turn's numbers: its timings and token counts, as the figures line shows them."""

    time_to_first_token: float | None = None
    duration: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cached_tokens: int = 0  # of the input, as the answer's usage reports them (priced apart)
    reasoning_tokens: int = 0  # of the output
    last_token_at: float | None = None  # seconds from the start to the last text delta
    text_deltas: int = 0
    held_back_saved: bool = False  # a saved turn's verdict (its deltas' times are not saved)

    @property
    def held_back(self) -> bool:
        """The answer arrived all at once, after a wait: something in between (a proxy) held the stream."""
        if self.held_back_saved:
            return True
        first, last = self.time_to_first_token, self.last_token_at
        if first is None or last is None or self.text_deltas < HELD_BACK_MIN_DELTAS:
            return False
        span = last - first
        return first >= HELD_BACK_MIN_WAIT_S and span <= min(HELD_BACK_SPAN_S, HELD_BACK_SHARE * first)

    @property
    def tokens_per_second(self) -> float | None:
        """None when the answer was held back (its tokens' pace is the proxy's, not the model's), or came too
        fast to time."""
        if not self.duration or not self.output_tokens or self.held_back:
            return None
        streaming = self.duration - (self.time_to_first_token or 0)
        first, last = self.time_to_first_token, self.last_token_at
        span = last - first if first is not None and last is not None else streaming
        return self.output_tokens / streaming if span >= PACE_MIN_SPAN_S and streaming > 0 else None


def token_totals(figures: Iterable[Figures]) -> Figures:
    """The token counts of several turns added up (a conversation's, as the session line shows them)."""
    total = Figures()
    for turn in figures:
        total.input_tokens += turn.input_tokens
        total.output_tokens += turn.output_tokens
        total.total_tokens += turn.total_tokens
        total.cached_tokens += turn.cached_tokens
        total.reasoning_tokens += turn.reasoning_tokens
    return total
