"""The admission of an address the Playground was refused at (a 403): into the list that refused it (each in
turn when both did), then the refused request goes again, once every list that refused it admits it, as the
Admin API reads them.

Only the first list is opened by the click on "Allow this IP". Once it admits the address, the lists are read
again in the background (the Admin API, as after the 403): when they all admit it the request goes again; when
one still refuses, it is offered (`next_list`) and opened when the person asks (`open_next`), never by switching
the Security tab's scope under them."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from app.core.playground.turns import Turn
from app.services.security.allowlist import AllowlistService


class AddressAdmission(QObject):
    """One refused address on its way into the lists that refused it; a new one replaces it, a new profile
    ends it."""

    # The list to show and the address. The list is a project id, or None for the organization's: `object`,
    # since a Signal names one class and a `str` one would hand the slot "" for None.
    open_list = Signal(object, str)
    next_list = Signal(
        object, str
    )  # the next list that still refuses (as open_list): offer it, do not open it
    admitted = Signal(Turn)  # the refused turn: every list admits its address now, send it again
    ended = Signal()  # admitted or given up: nothing is waiting any more

    def __init__(self, allowlists: AllowlistService, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.allowlists = allowlists
        self.turn: Turn | None = None
        self.address = ""
        self.waiting: tuple[str | None, ...] = ()  # the lists still to admit the address, the shown one first
        allowlists.loaded.connect(self._loaded)

    def start(self, turn: Turn) -> None:
        """Open the first list that refused `turn`'s address, the address filled in."""
        self.turn, self.address = turn, turn.source_ip or ""
        refusal = turn.refusal
        self.waiting = refusal.lists_to_fix if refusal is not None else (None,)
        self._next(open_it=True)

    def open_next(self) -> None:
        """Open the list still waited on (the person pressed the offer of `next_list`)."""
        if self.waiting:
            self.open_list.emit(self.waiting[0], self.address)

    def cancel(self) -> None:
        if self.turn is not None:
            self.turn, self.waiting = None, ()
            self.ended.emit()

    def _next(self, open_it: bool) -> None:
        if self.waiting:
            (self.open_list if open_it else self.next_list).emit(self.waiting[0], self.address)
            return
        turn, self.turn = self.turn, None
        self.ended.emit()
        if turn is not None:
            self.admitted.emit(turn)

    def _loaded(self) -> None:
        """A list was read (or answered a change): move on once the one waited on admits the address."""
        if not self.waiting or self.allowlists.project_id != self.waiting[0]:
            return
        if self.allowlists.admits(self.address):
            self.waiting = self.waiting[1:]
            if not self.waiting:
                self._next(open_it=False)
            elif self.turn is not None:
                self.allowlists.session.tasks.start("admission.lists", self._read_the_rest(self.turn))

    async def _read_the_rest(self, turn: Turn) -> None:
        """Which of the lists still waited on refuses the address: none, and the request goes again."""
        from app.core.refusal import find_refusal

        client, refusal = self.allowlists.session.client, turn.refusal
        if client is None or refusal is None:
            self._next(open_it=False)
            return
        now = await find_refusal(client, refusal.project_id, refusal.source_ip)
        if self.turn is not turn:  # given up, or another 403 meanwhile
            return
        if now.verdict is not None:  # read: the lists that refuse it now (none: admitted everywhere)
            self.waiting = tuple(chosen for chosen in now.lists_to_fix if chosen in self.waiting)
        self._next(open_it=False)
