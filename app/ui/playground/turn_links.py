"""The links a turn shows: the answer's sources, and the stored prompt version the turn was sent from."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from app.core.playground.turns import Turn


def sources_html(citations: Iterable[tuple[str, str]]) -> str:
    """A numbered list of the (url, title) cited, each url once; "" when none."""
    seen: dict[str, str] = {}
    for url, title in citations:
        seen.setdefault(url, title or url)
    if not seen:
        return ""
    # Titles and URLs come from the network: escaped, so only the console's own markup is rich text; and
    # only http(s) is a link (a `file:` or `javascript:` URL from a server is shown, never opened).
    links = "".join(
        f'<li><a href="{html.escape(url)}">{html.escape(title)}</a></li>'
        if url.lower().startswith(("https://", "http://"))
        else f"<li>{html.escape(title)} ({html.escape(url)})</li>"
        for url, title in seen.items()
    )
    return f"<b>Sources</b><ol>{links}</ol>"


def prompt_source_label(turn: Turn, open_version: Callable[[str, str], None]) -> QLabel:
    """ "from prompt NAME vN", a link that calls `open_version(prompt id, version)` (the Prompts tab)."""
    version = str(turn.prompt_version or "")
    name = html.escape(turn.prompt_name or turn.prompt_id)
    label = QLabel(f'<a href="prompt">from prompt {name} v{version}</a>')
    label.setObjectName("prompt_source")
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
    label.setToolTip("Open this version of the prompt in the Prompts tab")
    prompt_id = turn.prompt_id
    label.linkActivated.connect(lambda _link: open_version(prompt_id, version))
    return label
