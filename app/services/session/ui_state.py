"""What the window looked like when the console quit, restored on the next launch: its geometry, the tab,
the Playground's model, parameters and conversation, the Security tab's scope. Kept in the settings file's
`ui` section (app.core.settings)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from PySide6.QtCore import QByteArray

from app.core.playground.reasoning import REASONING_EFFORTS
from app.core.saved_values import saved_number
from app.core.settings import ConsoleSettings, SettingsFile, UiSettings

SCHEMA_TEXT_LIMIT = 100_000  # a schema typed by a person; anything longer in the file is not theirs


def _flag(value: Any, default: bool) -> bool:
    return value if isinstance(value, bool) else default


def _text(value: Any, limit: int = 2_000) -> str:
    return value if isinstance(value, str) and len(value) <= limit else ""


@dataclass
class PlaygroundState:
    """The Playground's model, switches and options as the next launch restores them. Read from the file
    tolerantly: a missing or damaged value is the control's default, never an error."""

    model: str = ""
    web_search: bool = False
    chain: bool = True
    instructions: str = ""
    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = None
    reasoning_effort: str | None = None
    structured: bool = False
    schema: str = ""  # the schema editor's text; "" keeps the example

    @classmethod
    def from_saved(cls, saved: Mapping[str, Any]) -> PlaygroundState:
        tokens = saved_number(saved.get("max_output_tokens"), 16, 1_000_000)
        effort = saved.get("reasoning_effort")
        return cls(
            model=_text(saved.get("model"), 256),
            web_search=_flag(saved.get("web_search"), False),
            chain=_flag(saved.get("chain"), True),
            instructions=_text(saved.get("instructions"), 20_000),
            temperature=saved_number(saved.get("temperature"), 0.0, 2.0),
            top_p=saved_number(saved.get("top_p"), 0.0, 1.0),
            max_output_tokens=int(tokens) if tokens is not None and tokens.is_integer() else None,
            reasoning_effort=effort if effort in REASONING_EFFORTS else None,
            structured=_flag(saved.get("structured"), False),
            schema=_text(saved.get("schema"), SCHEMA_TEXT_LIMIT),
        )

    def to_saved(self) -> dict[str, Any]:
        return asdict(self)


class UiState:
    """The `ui` section of the settings file, in the types the window uses."""

    def __init__(self, settings: SettingsFile) -> None:
        self._settings = settings

    def _saved(self) -> UiSettings:
        return self._settings.load().ui

    def _change(self, name: str, value: object) -> None:
        self._settings.update(lambda settings: setattr(settings.ui, name, value))

    def save_window(
        self,
        geometry: QByteArray,
        scale: float,
        tab: int,
        security_scope: str | None = None,
        playground: dict[str, Any] | None = None,
    ) -> None:
        """The window as it is when it closes, in one write of the settings file (one each was a read and a
        write synced to disk, five at every quit). None: that tab was never built, its saved state stays."""

        def change(settings: ConsoleSettings) -> None:
            ui = settings.ui
            ui.window_geometry = bytes(geometry.toBase64().data()).decode("ascii")
            ui.window_scale, ui.tab = scale, tab
            if security_scope is not None:
                ui.security_scope = security_scope
            if playground is not None:
                ui.playground = playground

        self._settings.update(change)

    @property
    def window_geometry(self) -> QByteArray | None:
        text = QByteArray(self._saved().window_geometry.encode("ascii", "replace"))
        result = QByteArray.fromBase64Encoding(text, QByteArray.Base64Option.AbortOnBase64DecodingErrors)
        decoded = QByteArray(result.decoded)  # a copy: `result` owns what `decoded` gives
        ok = result.decodingStatus == QByteArray.Base64DecodingStatus.Ok
        return decoded if ok and not decoded.isEmpty() else None

    @window_geometry.setter
    def window_geometry(self, value: QByteArray) -> None:
        self._change("window_geometry", bytes(value.toBase64().data()).decode("ascii"))

    @property
    def window_scale(self) -> float:
        """The screen's scale the geometry was saved at: a geometry of another scale is not restored."""
        return self._saved().window_scale

    @window_scale.setter
    def window_scale(self, value: float) -> None:
        self._change("window_scale", value)

    @property
    def tab(self) -> int:
        return self._saved().tab

    @tab.setter
    def tab(self, index: int) -> None:
        self._change("tab", index)

    @property
    def playground(self) -> dict[str, Any]:
        """The Playground's model and parameters as saved (an empty dict when none)."""
        return self._saved().playground

    @playground.setter
    def playground(self, value: dict[str, Any]) -> None:
        self._change("playground", value)

    @property
    def conversation(self) -> str:
        return self._saved().conversation

    @conversation.setter
    def conversation(self, conversation_id: str) -> None:
        self._change("conversation", conversation_id)

    @property
    def security_scope(self) -> str:
        """ "" for the organization's list, otherwise a project id."""
        return self._saved().security_scope

    @security_scope.setter
    def security_scope(self, scope: str) -> None:
        self._change("security_scope", scope)
