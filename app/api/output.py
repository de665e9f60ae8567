"""Reading a response object: output_text, citations, search calls, reasoning (as the official libraries do)."""

from __future__ import annotations

from typing import Any


def message_parts(response: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        part
        for item in response.get("output") or []
        if isinstance(item, dict) and item.get("type") == "message"
        for part in item.get("content") or []
        if isinstance(part, dict) and part.get("type") == "output_text"
    ]


def output_text(response: dict[str, Any]) -> str:
    return "".join(str(part.get("text", "")) for part in message_parts(response))


def citations(response: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        annotation
        for part in message_parts(response)
        for annotation in part.get("annotations") or []
        if isinstance(annotation, dict) and annotation.get("type") == "url_citation"
    ]


def search_queries(response: dict[str, Any]) -> list[str]:
    return [
        str((item.get("action") or {}).get("query", ""))
        for item in response.get("output") or []
        if isinstance(item, dict) and item.get("type") == "web_search_call"
    ]


def reasoning_summary(response: dict[str, Any]) -> str:
    return "\n\n".join(
        str(part.get("text", ""))
        for item in response.get("output") or []
        if isinstance(item, dict) and item.get("type") == "reasoning"
        for part in item.get("summary") or []
        if isinstance(part, dict)
    )
