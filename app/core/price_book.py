"""Which price table answers are costed at, chosen in one place for the Playground, Compare, the Evals window
and the command line: the organization's, read through the Admin API when the profile has an admin key, else
the documented default table (app/common/prices.py), saying which. Qt-free."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from app.common.prices import default_prices
from app.core.playground.cost import DEFAULTS, ORGANIZATION, UNREAD, PriceBook

if TYPE_CHECKING:
    from app.api.client import ServiceClient

log = logging.getLogger(__name__)


def default_book(brand: str) -> PriceBook:
    """The documented defaults under the brand's model names, for a profile without an admin key."""
    return PriceBook(default_prices(brand), DEFAULTS)


async def read_price_book(client: ServiceClient, brand: str) -> PriceBook:
    """The organization's prices where the key may read them; the documented defaults otherwise, and where
    the service publishes none or refuses the key."""
    from app.api.errors import ApiError

    if not client.has_key("admin"):
        return default_book(brand)
    try:
        return PriceBook(await client.usage.prices(), ORGANIZATION)
    except ApiError as error:  # a service without the sandbox's price list: the documented defaults
        log.info("the organization's prices could not be read (%s): the default prices hold", error)
        return PriceBook(default_prices(brand), UNREAD)
