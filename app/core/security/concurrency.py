"""Two admins at once: what changed in a list between the version shown here and the one the service holds
(its answer to a change sent with an older version, a 412). Qt-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.api.admin import Allowlist, Entry


@dataclass(frozen=True)
class ListDiff:
    """The entries someone else added, removed or changed (expiry, description), and the switch."""

    added: tuple[Entry, ...] = ()
    removed: tuple[Entry, ...] = ()
    changed: tuple[Entry, ...] = ()
    enabled_before: bool = False
    enabled_after: bool = False

    @classmethod
    def between(cls, shown: Allowlist | None, current: Allowlist) -> ListDiff:
        before = {e.id: e for e in shown.entries} if shown is not None else {}
        after = {e.id: e for e in current.entries}
        return cls(
            tuple(e for e in current.entries if e.id not in before),
            tuple(e for e in before.values() if e.id not in after),
            tuple(
                e
                for e in current.entries
                if e.id in before
                and (before[e.id].expires_at, before[e.id].description) != (e.expires_at, e.description)
            ),
            shown.enabled if shown is not None else current.enabled,
            current.enabled,
        )

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed) and self.enabled_before == self.enabled_after

    def lines(self, limit: int = 12) -> list[str]:
        """What a person reads: one line per change, the first `limit` of each kind."""

        def some(prefix: str, entries: tuple[Entry, ...]) -> list[str]:
            said = [f"{prefix} {e.cidr}" + (f" “{e.description}”" if e.description else "") for e in entries]
            more = len(said) - limit
            return said[:limit] + ([f"{prefix} … and {more:,} more"] if more > 0 else [])

        lines = (
            some("+ added", self.added) + some("− removed", self.removed) + some("~ changed", self.changed)
        )
        if self.enabled_before != self.enabled_after:
            lines.append(f"switched {'on' if self.enabled_after else 'off'}")
        return lines or ["(only the list's version changed)"]
