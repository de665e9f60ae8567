"""The default engine: offline, deterministic, and open about being a simulation.

It answers from what it was given (the prompt, the images' format and size, the search results, the
schema), so a person can see every feature of the API at work with no model and no network.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator

from . import search as web
from .base import Citation, Citations, Conversation, Reasoning, Search, SearchResult, Step, TextDelta
from .schema_instance import instance_for

_WORDS_ASKED = re.compile(r"\b(\d{1,6})\s+words\b", re.IGNORECASE)
_FILLER = [
    "the",
    "sandbox",
    "writes",
    "these",
    "words",
    "so",
    "that",
    "long",
    "answers",
    "can",
    "be",
    "tried",
    "offline",
    "and",
    "measured",
    "end",
    "to",
    "end",
    "while",
    "every",
    "part",
    "of",
    "the",
    "stream",
    "behaves",
    "as",
    "it",
    "would",
    "with",
    "a",
    "real",
    "model",
]
MAX_WORDS = 200_000


def chunk_words(text: str) -> list[str]:
    """Deltas of about one token each, as a real model streams them."""
    return re.findall(r"\s*\S+", text) or ([text] if text else [])


class SimulatedEngine:
    name = "simulated"

    def __init__(self, delay_ms: float = 0.0) -> None:
        self.delay = delay_ms / 1000

    async def run(self, conversation: Conversation) -> AsyncIterator[Step]:
        request = conversation.request
        prompt = conversation.last_user_text()
        if request.model.endswith(("-think", "-think-mini")):
            summary = (
                f"The request asks: “{_excerpt(prompt, 120)}”. I consider what was given "
                f"({len(conversation.messages)} message(s), {sum(len(m.images) for m in conversation.messages)} image(s)) "
                "and plan a short, direct answer."
            )
            yield Reasoning(summary, tokens=len(summary.split()) * 4)

        results: list[SearchResult] = []
        if request.web_search and prompt:
            query = web.make_query(prompt)
            results = web.search(query)
            yield Search(query, tuple(results))

        text_format = request.text_format
        if text_format["type"] == "json_schema":
            text = json.dumps(instance_for(text_format["schema"], prompt), indent=2, ensure_ascii=False)
            citations: list[Citation] = []
        elif text_format["type"] == "json_object":
            text = json.dumps({"model": request.model, "simulated": True, "answer": _excerpt(prompt, 200)})
            citations = []
        else:
            text, citations = self._compose(conversation, prompt, results)

        for piece in chunk_words(text):
            if self.delay:
                await asyncio.sleep(self.delay)
            yield TextDelta(piece)
        if citations:
            yield Citations(tuple(citations))

    def _compose(
        self, conversation: Conversation, prompt: str, results: list[SearchResult]
    ) -> tuple[str, list[Citation]]:
        request = conversation.request
        parts = [f"This is the sandbox's simulated model ({request.model}), answering offline."]
        if prompt:
            parts.append(f"You wrote: “{_excerpt(prompt, 300)}”.")
        turns = sum(1 for message in conversation.messages if message.role == "user")
        if turns > 1:
            parts.append(
                f"This is turn {turns} of our conversation; earlier you wrote: “{_excerpt(_first_user(conversation), 80)}”."
            )
        if request.instructions:
            parts.append(f"I follow your instructions: “{_excerpt(request.instructions, 120)}”.")
        images = [image for message in request.messages for image in message.images]
        for number, image in enumerate(images, 1):
            parts.append(f"Image {number} is {image.describe()}.")
        text = " ".join(parts)
        citations: list[Citation] = []
        if request.web_search:
            if results:
                text += "\n\nFrom the web:"
                for result in results:
                    sentence = result.snippet.split(". ")[0].rstrip(".") + "."
                    text += "\n- "
                    start = len(text)
                    text += sentence
                    citations.append(Citation(result.url, result.title, start, len(text)))
            else:
                text += "\n\nThe search found nothing on that."
        asked = _WORDS_ASKED.search(prompt)
        if asked:
            count = min(int(asked.group(1)), MAX_WORDS)
            text += "\n\n" + " ".join(_FILLER[i % len(_FILLER)] for i in range(count))
        return text, citations


def _excerpt(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_user(conversation: Conversation) -> str:
    return next((m.text() for m in conversation.messages if m.role == "user" and m.text()), "")
