"""The words and the typed confirmation of the changes that can lock people out or open the API to all."""

from __future__ import annotations

from PySide6.QtWidgets import QInputDialog, QWidget

LOCKED_OUT_HELP = (
    "Locked out? The allowlist covers the Admin API too; only the web dashboard escapes it. Switch the list off "
    "there (Settings > Security), or for the local sandbox run: python -m app.sandbox allowlist disable --data DIR"
)
GUIDANCE = (
    LOCKED_OUT_HELP
    + "\n\nCI runners draw changing addresses from large pools: list a fixed egress (a proxy or "
    "self-hosted runners) instead. A restrictive organization list also blocks the hosted web Playground, whose "
    "requests come from the service's own servers; a project-level list on another project avoids that."
)


def confirm_typed(parent: QWidget, title: str, explanation: str, word: str) -> bool:
    """A typed confirmation for the changes that can lock people out or open the API to all."""
    text, ok = QInputDialog.getText(parent, title, f"{explanation}\n\nType {word} to go ahead:")
    return ok and text.strip() == word
