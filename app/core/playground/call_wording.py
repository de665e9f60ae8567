"""What the Playground and Compare say about a turn's function calls: which functions the model called (by
name, twice said as twice), what it waits for, and why calls went unanswered."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .function_calls import FunctionCall
from .turns import Turn

_TIMES = {1: "", 2: " twice"}


def calls_phrase(calls: Sequence[FunctionCall]) -> str:
    """ "get_weather", "get_weather twice", "get_weather and calculate", in the order they were called."""
    counts = Counter(call.name for call in calls)
    parts = [f"{name}{_TIMES.get(count, f' {count} times')}" for name, count in counts.items()]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def outputs_wanted_text(turn: Turn) -> str:
    """The turn waits for the person: what the model called in this round, and what is to be typed."""
    this_round = [call for call in turn.calls if call.round == turn.rounds] or turn.pending_calls
    pending = turn.pending_calls
    ask = "type its output" if len(pending) == 1 else "type each output"
    if len(pending) < len(this_round):
        ask = f"type the output of {calls_phrase(pending)}"
    return f"The model called {calls_phrase(this_round)}: {ask}, then Send outputs."


def unanswered_note(pending: Sequence[FunctionCall]) -> str:
    """A new message was sent while these calls waited for their outputs."""
    return (
        f"Not answered: a new message was sent while the model waited for the output of "
        f"{calls_phrase(pending)}; the model got no output for {'it' if len(pending) == 1 else 'them'}."
    )


def compare_waiting_text(turn: Turn) -> str:
    """A re-run (or the original) that ended waiting for outputs nobody gave: Compare answers a call only with
    an output the conversation gave it, or the function's saved output."""
    pending = turn.pending_calls
    return (
        f"Waiting for function outputs: the model called {calls_phrase(pending)}, and neither the "
        "conversation nor a saved output answers it. Give it a saved output (Functions > Edit) to compare."
    )
