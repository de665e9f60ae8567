"""The price table the costs endpoint uses: US dollars per million tokens of input, cached input and output,
per model. The defaults (app/common/prices.py, one table with the console's) hold until the data folder has
`prices.toml` (docs/contract.md, "Usage and costs"), which is read again whenever it changes:

    [models."service-pro"]
    input = 1.25
    cached_input = 0.125
    output = 10.0

A model the table does not name costs nothing (a price is never guessed).
"""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path

from app.common.prices import DEFAULT_PRICES, Price, default_prices
from app.sandbox.config import DEFAULT_MODELS

log = logging.getLogger(__name__)

FILE_NAME = "prices.toml"
__all__ = ["DEFAULT_PRICES", "FILE_NAME", "Price", "PriceTable"]

assert set(DEFAULT_PRICES) == set(DEFAULT_MODELS)


class PriceTable:
    """The prices in force: the data folder's `prices.toml` when it has one, else the defaults."""

    def __init__(self, data_dir: Path, brand: str) -> None:
        self.path = data_dir / FILE_NAME
        self._defaults = default_prices(brand)
        self._read: tuple[float, dict[str, Price]] | None = None

    def prices(self) -> dict[str, Price]:
        try:
            changed = self.path.stat().st_mtime
        except OSError:
            return self._defaults
        if self._read is None or self._read[0] != changed:
            self._read = (changed, self._parse())
        return self._read[1]

    def _parse(self) -> dict[str, Price]:
        """The file's table; one it cannot read leaves the defaults in force (and says so in the log)."""
        try:
            models = tomllib.loads(self.path.read_text(encoding="utf-8")).get("models", {})
            return {
                str(name): Price(
                    float(entry.get("input", 0)),
                    float(entry.get("cached_input", entry.get("input", 0))),
                    float(entry.get("output", 0)),
                )
                for name, entry in models.items()
            }
        except (OSError, ValueError, TypeError, AttributeError) as error:
            log.warning("the price table %s cannot be read (%s): the default prices hold", self.path, error)
            return self._defaults
