"""The conversation's turn views, built only for the newest turns.

A turn view costs ~20 ms to build and lay out, and every built view takes part in each layout of the page:
with all of them built, a reopened 200-turn conversation would take 4 s to show, and a delta streamed below
300,000 tokens would cost twice one below 1,000. So only the newest turns, a few screens of text, are built. Earlier turns wait above a bar
("Show 12 earlier turns") and are built, in batches, when the person scrolls to the top or presses it, or
when code asks for one by index; the person's place on the page stays where it was. Sending a new message
goes back to the end of the conversation and lets the oldest built views go again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, overload

from app.core.playground.status import RUNNING

from .transcript import Transcript

if TYPE_CHECKING:  # built by the tab (its `build`), which imports them with the first turn shown
    from app.core.playground.turns import Turn

    from .turn_view import TurnView

# What stays built above the newest turn: many screens of text at any width, and few enough views that
# building them stays well under the 300 ms a reopened conversation may take.
KEEP_CHARS = 16_000
KEEP_TURNS = 10
# The newest turns are always built, whatever their size: the one streaming and the one it answers.
MIN_TURNS = 2


class LazyTurnViews(Sequence["TurnView"]):
    """The views of turns `first`… `len(self) - 1`, in order; indexing an earlier turn builds it."""

    def __init__(
        self, turns: Callable[[], list[Turn]], build: Callable[[int], TurnView], transcript: Transcript
    ) -> None:
        self._turns = turns
        self._build = build
        self._transcript = transcript
        self._views: list[TurnView] = []
        self._first = 0
        self._count = 0
        self._waiting: list[int] = []  # turns just sent whose views are not built yet (`add(later=True)`)
        transcript.earlier_requested.connect(self.reveal_batch)

    # -- the sequence -----------------------------------------------------------------------------

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> TurnView: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[TurnView]: ...

    def __getitem__(self, index: int | slice) -> TurnView | Sequence[TurnView]:
        if isinstance(index, slice):
            return [self[number] for number in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        self.build_waiting()
        if index < self._first:
            self.reveal(index)
        return self._views[index - self._first]

    def __iter__(self) -> Iterator[TurnView]:
        return (self[number] for number in range(self._count))

    @property
    def first_built(self) -> int:
        """The index of the earliest turn whose view is built (len(self) when none is)."""
        self.build_waiting()
        return self._first

    def built(self) -> list[TurnView]:
        """The views that exist now, without building earlier ones (a turn just sent is built)."""
        self.build_waiting()
        return list(self._views)

    def get(self, index: int) -> TurnView | None:
        """The view of turn `index` if it is built, without building an earlier one."""
        self.build_waiting()
        return self._views[index - self._first] if self._first <= index < self._count else None

    # -- changes ----------------------------------------------------------------------------------

    def clear(self) -> None:
        self._transcript.clear()
        self._views = []
        self._waiting = []
        self._first = self._count = 0
        self._show_earlier()

    def add(self, index: int, later: bool = False) -> TurnView | None:
        """Turn `index` joined the conversation: a new or unfinished turn, or the last one, gets its view at
        once; a finished one replayed before others (a conversation being reopened) waits for `settle`.

        `later`: a turn just sent; its view is built by `build_waiting` (ViewCatchUp calls it once the request
        is written, so that the view is built and drawn while the server works on it), or whenever a view is
        asked for."""
        if later:
            self._count = index + 1
            self._waiting.append(index)
            return None
        self.build_waiting()
        return self._add(index)

    def build_waiting(self) -> None:
        """Build the views of the turns just sent (`add(later=True)`), if any wait."""
        while self._waiting:
            self._add(self._waiting.pop(0))

    def _add(self, index: int) -> TurnView | None:
        turn = self._turns()[index]
        self._count = index + 1
        newest = index == len(self._turns()) - 1
        if not self._views and not newest and turn.status not in RUNNING:
            self._first = self._count
            self._show_earlier()
            return None
        if not self._views:
            self._first = index
        view = self._build(index)
        self._views.append(view)
        self._transcript.add_turn(view)
        self._let_oldest_go()
        self._show_earlier()
        return view

    def settle(self) -> None:
        """The newest turn is shown: build the earlier ones a few screens up, if they were waiting."""
        self.build_waiting()
        if self._views and self._first > 0:
            budget = self._budget(range(self._first, self._count))
            if budget > 0:
                self.reveal(self._first - self._batch_size(self._first, budget, at_least=0))

    def reveal_batch(self) -> None:
        """The person scrolled to the top or pressed the bar: the next few screens of earlier turns."""
        if self._first > 0:
            self.reveal(self._first - self._batch_size(self._first, KEEP_CHARS, at_least=1))

    def reveal(self, index: int) -> None:
        """Build the views of turns `index` … `first - 1`, above the ones already shown."""
        self.build_waiting()
        index = max(0, index)
        if index >= self._first:
            return
        last = self._count - 1
        earlier = []
        for number in range(index, self._first):
            view = self._build(number)
            if view.turn.status not in RUNNING:
                view.finish(number == last, view.turn.schema)
            earlier.append(view)
        self._views[:0] = earlier
        self._first = index
        self._transcript.insert_earlier(earlier)
        self._show_earlier()

    # -- the budget -------------------------------------------------------------------------------

    def _size(self, index: int) -> int:
        turn = self._turns()[index]
        return len(turn.prompt) + len(turn.text) + 400  # a turn's frame, header and buttons count too

    def _budget(self, built: range) -> int:
        """How many more characters of earlier turns may be built beside `built`."""
        if len(built) >= KEEP_TURNS:
            return 0
        return KEEP_CHARS - sum(self._size(number) for number in built[:-1])  # the newest is free

    def _batch_size(self, before: int, chars: int, at_least: int) -> int:
        """How many turns ending just before `before` fit in `chars` (`at_least` of them whatever their size)."""
        count = 0
        for number in range(before - 1, -1, -1):
            chars -= self._size(number)
            if count >= at_least and (chars < 0 or count >= KEEP_TURNS):
                break
            count += 1
        return count

    def _let_oldest_go(self) -> None:
        """After a new turn, keep only a few screens of the turns above it built (the view is at the end)."""
        if not self._transcript.following:
            return  # the person is reading above: nothing moves under them
        keep = len(self._views)
        chars = 0
        for position in range(len(self._views) - 2, -1, -1):  # the newest (streaming) one is free
            chars += self._size(self._first + position)
            if len(self._views) - position > KEEP_TURNS or chars > KEEP_CHARS:
                keep = len(self._views) - position - 1
                break
        keep = max(keep, MIN_TURNS)
        drop = len(self._views) - keep
        if drop > 0:
            self._transcript.drop_earliest(drop)
            del self._views[:drop]
            self._first += drop

    def _show_earlier(self) -> None:
        self._transcript.set_earlier(self._first)  # 0 when nothing waits above, the count is 0 included
