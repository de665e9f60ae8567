"""The documented default prices (US dollars per million tokens of input, cached input and output) of the
brand's four models: the sandbox's price table until its data folder has `prices.toml`, and the console's
when a profile has no admin key to read the organization's (docs/contract.md, "Usage and costs")."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    cached_input: float
    output: float

    def cost(self, uncached_input: int, cached_input: int, output: int) -> float:
        """US dollars for these tokens (reasoning is part of `output`), as the costs endpoint prices them."""
        spent = uncached_input * self.input + cached_input * self.cached_input
        return (spent + output * self.output) / 1_000_000


# By the model's name after the brand ("pro" is "service-pro" under the default brand).
DEFAULT_PRICES = {
    "pro": Price(1.25, 0.125, 10.0),
    "ultra": Price(15.0, 1.5, 60.0),
    "think": Price(2.0, 0.5, 8.0),
    "think-mini": Price(0.25, 0.025, 2.0),
}


def default_prices(brand: str) -> dict[str, Price]:
    """The default table under the brand's model names."""
    return {f"{brand}-{name}": price for name, price in DEFAULT_PRICES.items()}
