"""The person's own library of function definitions, reused across conversations (`functions.json` in the
data directory). A damaged file loses nothing else: unreadable entries are skipped and said in the log."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from app.common.fileio import write_atomically
from app.services.session.messages import MessageBus

if TYPE_CHECKING:  # the functions' module loads with the first function read or offered, not the launch
    from app.core.playground.functions import FunctionDefinition

log = logging.getLogger(__name__)
FILE_NAME = "functions.json"


class FunctionLibrary(QObject):
    changed = Signal()

    def __init__(self, data_dir: Path, bus: MessageBus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = data_dir / FILE_NAME
        self.bus = bus
        self._definitions: list[FunctionDefinition] | None = None

    @property
    def definitions(self) -> list[FunctionDefinition]:
        """Read on first use: the window's first frame does not wait for the file."""
        if self._definitions is None:
            self._definitions = self._read()
        return list(self._definitions)

    def _read(self) -> list[FunctionDefinition]:
        from app.core.playground.functions import definitions_from_saved

        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as error:
            log.warning("function library not read: %s", error)
            return []
        return definitions_from_saved(saved.get("functions") if isinstance(saved, dict) else saved)

    def keep(self, definition: FunctionDefinition, replacing: str = "") -> None:
        """Add a definition, or replace the one named `replacing` (or of the same name)."""
        kept = [item for item in self.definitions if item.name not in (definition.name, replacing)]
        self._write([*kept, definition])

    def remove(self, name: str) -> None:
        self._write([item for item in self.definitions if item.name != name])

    def _write(self, definitions: list[FunctionDefinition]) -> None:
        text = json.dumps({"functions": [item.as_saved() for item in definitions]}, indent=2)
        try:
            write_atomically(self.path, text)
        except OSError as error:
            self.bus.error(f"The function library could not be saved: {error.strerror or error}.")
            return
        self._definitions = definitions
        self.changed.emit()
