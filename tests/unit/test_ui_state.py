"""The window's state survives a restart, and a damaged value falls back to the default."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QByteArray

from app.core.settings import SettingsFile
from app.services.session.ui_state import PlaygroundState, UiState


def settings(path: Path) -> SettingsFile:
    return SettingsFile(path)


def test_values_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    state = UiState(settings(path))
    assert state.window_geometry is None and state.tab == 0 and state.playground == {}
    state.window_geometry = QByteArray(b"\x01\x02geometry")
    state.tab = 1
    state.playground = {"model": "service-think", "temperature": 0.3, "effort": "high"}
    state.conversation = "conv_1"
    state.security_scope = "proj_abc"
    del state

    again = UiState(settings(path))
    assert again.window_geometry == QByteArray(b"\x01\x02geometry")
    assert again.tab == 1
    assert again.playground == {"model": "service-think", "temperature": 0.3, "effort": "high"}
    assert again.conversation == "conv_1" and again.security_scope == "proj_abc"


def test_damaged_values_fall_back(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"ui": {"tab": "second", "playground": "{not json", "window_geometry": 3}}))
    state = UiState(settings(path))
    assert state.tab == 0 and state.playground == {} and state.window_geometry is None
    path.write_text(json.dumps({"ui": {"playground": [1, 2], "window_geometry": "not base64 at all!"}}))
    assert state.playground == {} and state.window_geometry is None


def test_playground_options_round_trip_and_damaged_ones_are_defaults() -> None:
    state = PlaygroundState(
        "service-think", True, False, "Be brief", 0.3, 0.9, 640, "low", True, '{"type": "object"}'
    )
    assert PlaygroundState.from_saved(json.loads(json.dumps(state.to_saved()))) == state
    assert PlaygroundState.from_saved({}) == PlaygroundState()
    damaged = {
        "model": 3,
        "web_search": "yes",
        "chain": None,
        "temperature": float("nan"),
        "top_p": True,
        "max_output_tokens": 15,
        "reasoning_effort": ["high"],
        "structured": "true",
        "schema": "x" * 200_000,
    }
    assert PlaygroundState.from_saved(damaged) == PlaygroundState()
    assert PlaygroundState.from_saved({"temperature": 2.5, "max_output_tokens": 64.0}).temperature is None
    assert PlaygroundState.from_saved({"max_output_tokens": 64.0}).max_output_tokens == 64
