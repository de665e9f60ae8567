"""The prices the Playground costs its answers at: the organization's price table, read through the Admin API
once per connection when the profile has an admin key (at the first answer that needs it), else the
documented default table (app/core/price_book.py chooses, for the command line too). The Usage tab hands over the
table each time it reads it, so both tabs price at the same table.

One per session (`price_source`), a child of it: the Playground, Compare and the Usage tab share it without
importing each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal

from app.common.prices import Price
from app.core.playground.cost import ORGANIZATION, PriceBook
from app.core.price_book import default_book, read_price_book
from app.services.session.session import ConsoleSession

if TYPE_CHECKING:
    from app.api.client import ServiceClient

READ_TASK = "prices.read"


class PriceSource(QObject):
    changed = Signal()  # `book()` has other prices: the costs shown are computed again

    def __init__(self, session: ConsoleSession) -> None:
        super().__init__(session)
        self.session = session
        self._book: PriceBook | None = None
        session.client_changed.connect(self._forget)

    def _forget(self) -> None:
        """Another connection (a switch of profile): its organization's prices are read when next needed."""
        self.session.tasks.cancel(READ_TASK)
        if self._book is not None:
            self._book = None
            self.changed.emit()

    def book(self) -> PriceBook | None:
        """The prices in force; None while the organization's are being read (`changed` follows)."""
        if self._book is not None:
            return self._book
        client = self.session.client
        if client is None or not client.has_key("admin"):
            self._book = default_book(self._brand())
        elif not self.session.tasks.running(READ_TASK):
            self.session.tasks.start(READ_TASK, self._read(client))
        return self._book

    def take(self, prices: Mapping[str, Price]) -> None:
        """The organization's table as another reader (the Usage tab) just read it."""
        self._book = PriceBook(dict(prices), ORGANIZATION)
        self.changed.emit()

    async def read(self) -> PriceBook:
        """The prices in force, the organization's read now if they are not yet (the Evals window prices
        each cell as it is answered, so it waits for them where the Playground shows them later)."""
        if self._book is not None:
            return self._book
        client = self.session.client
        if client is None or not client.has_key("admin"):
            return self.book() or default_book(self._brand())
        self.session.tasks.cancel(READ_TASK)  # this read stands for it
        return await self._read(client)

    def _brand(self) -> str:
        profile = self.session.profile
        return profile.brand if profile is not None else "service"

    async def _read(self, client: ServiceClient) -> PriceBook:
        book = await read_price_book(client, self._brand())
        if self.session.client is client:
            self._book = book
            self.changed.emit()
        return book


def price_source(session: ConsoleSession) -> PriceSource:
    """The session's one price source, made at the first call."""
    found = session.findChild(PriceSource, "", Qt.FindChildOption.FindDirectChildrenOnly)
    return found if found is not None else PriceSource(session)
