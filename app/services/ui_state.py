"""What the window looked like when the console quit, restored on the next launch: its geometry, the tab,
the Playground's model, parameters and conversation, the Security tab's scope. Kept in console.ini."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QByteArray, QSettings


class UiState:
    def __init__(self, settings: QSettings) -> None:
        self._settings = settings

    def _text(self, key: str) -> str:
        return str(self._settings.value(key, "") or "")

    @property
    def window_geometry(self) -> QByteArray | None:
        value = self._settings.value("ui/window_geometry")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    @window_geometry.setter
    def window_geometry(self, value: QByteArray) -> None:
        self._settings.setValue("ui/window_geometry", value)

    @property
    def tab(self) -> int:
        try:
            return int(str(self._settings.value("ui/tab", 0)))
        except ValueError:
            return 0

    @tab.setter
    def tab(self, index: int) -> None:
        self._settings.setValue("ui/tab", index)

    @property
    def playground(self) -> dict[str, Any]:
        """The Playground's model and parameters as saved (an empty dict when none or unreadable)."""
        try:
            value = json.loads(self._text("ui/playground") or "{}")
        except json.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}

    @playground.setter
    def playground(self, value: dict[str, Any]) -> None:
        self._settings.setValue("ui/playground", json.dumps(value))

    @property
    def conversation(self) -> str:
        return self._text("ui/conversation")

    @conversation.setter
    def conversation(self, conversation_id: str) -> None:
        self._settings.setValue("ui/conversation", conversation_id)

    @property
    def security_scope(self) -> str:
        """ "" for the organization's list, otherwise a project id."""
        return self._text("ui/security_scope")

    @security_scope.setter
    def security_scope(self, scope: str) -> None:
        self._settings.setValue("ui/security_scope", scope)
