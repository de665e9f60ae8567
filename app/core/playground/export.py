"""A saved conversation as a file a person keeps or pastes: Markdown (each prompt, what was searched, the
function calls, the answer and its sources) or JSON (everything kept, times in ISO 8601)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from .conversation_store import Conversation


def as_markdown(conversation: Conversation) -> str:
    """A conversation as a person would paste it: a heading, then each prompt and answer."""
    lines = [f"# {conversation.summary.title}", ""]
    for number, turn in enumerate(conversation.turns, 1):
        lines += [f"## Turn {number} · {turn.model}", "", "**You**", "", turn.prompt, ""]
        lines += _calls_markdown(turn.details.get("calls"))
        lines += _searches_markdown(turn.details.get("items"))
        lines += ["**Answer**", ""]
        lines += [turn.answer or f"_(no text; {turn.status})_", ""]
        lines += _sources_markdown(turn.details.get("citations"))
        if turn.error:
            lines += [f"> {turn.error}", ""]
    return "\n".join(lines)


def _calls_markdown(calls: Any) -> list[str]:
    """Each function call of a turn with its arguments and the output sent back, as fenced JSON."""
    lines: list[str] = []
    for call in calls if isinstance(calls, list) else []:
        if not isinstance(call, dict):
            continue
        lines += [f"**Function call** `{call.get('name', '?')}` ({call.get('call_id', '')})", ""]
        lines += ["```json", str(call.get("arguments", "")), "```", ""]
        output = call.get("output")
        lines += (
            ["**Output**", "", "```", str(output), "```", ""] if output is not None else ["_(no output)_", ""]
        )
    return lines


def _searches_markdown(items: Any) -> list[str]:
    """The web searches a turn made, as the turn shows them: "Searched: …"."""
    found = [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []
    searches = [item for item in found if item.get("type") == "web_search_call"]
    queries = [
        str(item["action"].get("query") or "") for item in searches if isinstance(item.get("action"), dict)
    ]
    return [" · ".join(f"Searched: {query}" for query in queries), ""] if queries else []


def _sources_markdown(citations: Any) -> list[str]:
    """The answer's sources, once each, as a numbered list of links."""
    seen: dict[str, str] = {}
    for citation in citations if isinstance(citations, list) else []:
        if isinstance(citation, dict) and isinstance(citation.get("url"), str):
            seen.setdefault(citation["url"], str(citation.get("title") or citation["url"]))
    if not seen:
        return []
    # A server's title and URL are text, not Markdown: brackets escaped, the URL in <…> (no space ends it).
    links = [
        f"{number}. [{_escaped(title)}](<{url.replace('<', '%3C').replace('>', '%3E')}>)"
        for number, (url, title) in enumerate(seen.items(), 1)
    ]
    return ["**Sources**", "", *links, ""]


def _escaped(text: str) -> str:
    return "".join("\\" + char if char in "\\[]*_`<>" else char for char in text)


def iso_time(epoch: float) -> str | None:
    """A stored time as ISO 8601 in UTC (what a person and any JSON tool read), None when unknown."""
    if not epoch:
        return None
    from datetime import UTC, datetime

    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def as_json(conversation: Conversation) -> str:
    """The conversation as a JSON document: times in ISO 8601 (UTC), and the settings it was sent with
    (the conversation's; when it has none, as in a file whose conversations keep no settings, those of its
    newest turn)."""
    settings = conversation.settings
    if not settings:
        newest = next((turn for turn in reversed(conversation.turns) if turn.details.get("options")), None)
        settings = dict(newest.details["options"]) if newest is not None else {}
    document = {
        "object": "conversation",
        "id": conversation.summary.id,
        "title": conversation.summary.title,
        "model": conversation.summary.model,
        "updated_at": iso_time(conversation.summary.updated_at),
        "settings": settings,
        "turns": [{**asdict(turn), "created_at": iso_time(turn.created_at)} for turn in conversation.turns],
    }
    return json.dumps(document, indent=2, ensure_ascii=False)
