"""Where the files under resources/ are: beside the `app` package, from source and in the frozen app alike."""

from __future__ import annotations

from pathlib import Path

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
ICON = RESOURCES / "icon.png"
SEARCH_CORPUS = RESOURCES / "search_corpus.json"
