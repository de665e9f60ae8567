"""Turns at a model that answers one request at a time: who waits, and who goes next.

A request joins the line of its model and gets a `Ticket`; it answers once the ticket is ready and gives
the turn back when its answer ends or its client leaves (a ticket still waiting simply leaves the line).
The next turn goes to the waiting client served least recently, and within one client to its oldest
request: a client that sends ten requests at once (a compliance suite, a batch script) takes turns with a
person's single request instead of holding it back for all ten. A client here is a project.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from types import TracebackType


class Ticket:
    """One request's place in a line; `async with` gives the turn back however the answer ends."""

    def __init__(self, line: TurnLine | None, client: str) -> None:
        self.line = line  # None: a model that never queues (the ticket is ready from the start)
        self.client = client
        self.turn = asyncio.Event()
        self.released = False
        if line is None:
            self.turn.set()

    @property
    def ready(self) -> bool:
        return self.turn.is_set()

    async def wait(self) -> None:
        await self.turn.wait()

    def release(self) -> None:
        """Gives the turn back, or leaves the line; a second call does nothing."""
        if not self.released:
            self.released = True
            if self.line is not None:
                self.line.leave(self)

    async def __aenter__(self) -> Ticket:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.release()


def no_line(client: str) -> Ticket:
    """The ticket of an engine that answers any number of requests at once: ready at once."""
    return Ticket(None, client)


class TurnLine:
    """The requests for one model: the one answering, and those waiting, per client in arrival order."""

    def __init__(self) -> None:
        self.holder: Ticket | None = None
        self.waiting: dict[str, deque[Ticket]] = {}
        self.served: dict[str, int] = {}  # client -> the number of the turn it had last
        self.turns = itertools.count()

    def join(self, client: str) -> Ticket:
        ticket = Ticket(self, client)
        if self.holder is None:
            self._give(ticket)
        else:
            self.waiting.setdefault(client, deque()).append(ticket)
        return ticket

    def waiting_count(self) -> int:
        return sum(len(line) for line in self.waiting.values())

    def leave(self, ticket: Ticket) -> None:
        if ticket is self.holder:
            self.holder = None
            self._next()
            return
        line = self.waiting.get(ticket.client)
        if line is not None and ticket in line:
            line.remove(ticket)
            if not line:
                del self.waiting[ticket.client]

    def _next(self) -> None:
        if not self.waiting:
            return
        client = min(self.waiting, key=lambda name: self.served.get(name, -1))  # ties: who waited first
        line = self.waiting[client]
        ticket = line.popleft()
        if not line:
            del self.waiting[client]
        self._give(ticket)

    def _give(self, ticket: Ticket) -> None:
        self.holder = ticket
        self.served[ticket.client] = next(self.turns)
        ticket.turn.set()
