"""The function loop of one turn, without Qt, shared by the Playground and Compare: stream the turn; while
the model calls functions, answer the calls (saved outputs, or what the caller decides) and send them back,
within the turn's bound on rounds. A call nobody can answer leaves the turn waiting (CALLING)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from app.core.playground.function_calls import FunctionCall, with_saved_outputs
from app.core.playground.turn_runner import TurnRun
from app.core.playground.turns import Turn, TurnStatus, build_followup

if TYPE_CHECKING:
    from app.api.client import ServiceClient
    from app.api.requests import ResponseCreateParams

Answerer = Callable[[Turn, list[FunctionCall]], bool]  # answers what it can; True when every call is


def answer_with_saved(turn: Turn, calls: list[FunctionCall]) -> bool:
    return with_saved_outputs(calls, turn.tools)


def next_round(earlier: Sequence[Turn], turn: Turn, server: str = "") -> ResponseCreateParams:
    """The request that sends this round's outputs back to `server` (a profile id; "" for the turn's own);
    the turn counts one more round, and its responses come from that server from now on."""
    body = build_followup(earlier, turn, server)
    turn.server = server or turn.server
    turn.rounds += 1
    turn.followups.append(body)
    turn.status = TurnStatus.STREAMING
    return body


async def run_turn(
    run: TurnRun,
    client: ServiceClient | None,
    earlier: Callable[[], Sequence[Turn]],
    answer: Answerer = answer_with_saved,
    body: ResponseCreateParams | None = None,
    on_round: Callable[[], None] = lambda: None,
) -> None:
    """Stream the turn (from `body`, a follow-up, when given) and go on while the calls are answered."""
    turn = run.turn
    while True:
        await run.run(client, body)
        if turn.status != TurnStatus.CALLING:
            return
        if turn.rounds >= turn.tools.max_rounds:
            turn.status = TurnStatus.INCOMPLETE
            turn.round_note = (
                f"The model was still calling functions after {turn.rounds} rounds, the bound set under "
                "Functions: the loop stopped here."
            )
            return
        if not answer(turn, turn.pending_calls):
            return  # the person answers (the Playground shows the calls), then the loop is started again
        body = next_round(earlier(), turn)
        on_round()
