"""The default engine: offline, deterministic, and open about being a simulation.

It answers from what it was given (the prompt, the images' format and size, the search results, the
schema), so a person can see every feature of the API at work with no model and no network.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncGenerator

from . import search as web
from .base import (
    Citation,
    Citations,
    Conversation,
    FunctionCallDelta,
    Incomplete,
    Reasoning,
    Search,
    SearchResult,
    Step,
    TextDelta,
)
from .logprobs import simulated_logprobs, top_logprobs_wanted
from .schema_instance import InstanceTooLarge, instance_for
from .simulated_tools import answer_with_outputs, calls_to_make, outputs_given

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
_EFFORT_FACTOR = {"minimal": 1, "low": 2, "medium": 4, "high": 8, "xhigh": 12, "max": 16}


def chunk_words(text: str) -> list[str]:
    """Deltas of about one token each, as a real model streams them."""
    return re.findall(r"\s*\S+", text) or ([text] if text else [])


class SimulatedEngine:
    name = "simulated"

    @staticmethod
    def calls_functions(name: str) -> bool:
        """Every simulated model calls functions, by the rules in simulated_tools.py."""
        return True

    def __init__(self, delay_ms: float = 0.0) -> None:
        self.delay = delay_ms / 1000

    async def run(self, conversation: Conversation) -> AsyncGenerator[Step, None]:
        request = conversation.request
        prompt = conversation.last_user_text()
        if request.model.endswith(("-think", "-think-mini")) and request.reasoning_effort != "none":
            yield self._reasoning(conversation, prompt)

        results: list[SearchResult] = []
        if request.web_search and (prompt or request.force_search):
            query = web.make_query(prompt or "the sandbox")
            results = web.search(query)
            yield Search(query, tuple(results))

        try:
            calls = calls_to_make(conversation, prompt)
            text, citations = self._answer(conversation, prompt, results) if not calls else ("", [])
        except InstanceTooLarge:  # the schema asks for more than an answer holds: out of output
            yield Incomplete()
            return
        for index, (spec, arguments) in enumerate(calls):
            yield FunctionCallDelta(index, spec.name, "", spec.namespace)
            for piece in chunk_words(arguments):
                if self.delay:
                    await asyncio.sleep(self.delay)
                yield FunctionCallDelta(index, spec.name, piece, spec.namespace)
        if calls:
            return
        top = top_logprobs_wanted(request)
        for piece in chunk_words(text):
            if self.delay:
                await asyncio.sleep(self.delay)
            yield TextDelta(piece, simulated_logprobs(piece, top) if top is not None else ())
        if citations:
            yield Citations(tuple(citations))

    def _answer(
        self, conversation: Conversation, prompt: str, results: list[SearchResult]
    ) -> tuple[str, list[Citation]]:
        """The text answer: quoting the functions' outputs, the schema's instance, JSON, or composed prose."""
        request = conversation.request
        text_format = request.text_format
        outputs = outputs_given(conversation)
        if outputs and text_format["type"] == "text":
            return answer_with_outputs(outputs), []
        if text_format["type"] == "json_schema":
            return json.dumps(instance_for(text_format["schema"], prompt), indent=2, ensure_ascii=False), []
        if text_format["type"] == "json_object":
            answer = {"model": request.model, "simulated": True, "answer": _excerpt(prompt, 200)}
            return json.dumps(answer), []
        return self._compose(conversation, prompt, results)

    @staticmethod
    def _reasoning(conversation: Conversation, prompt: str) -> Reasoning:
        """More effort, more reasoning tokens and a fuller summary; no summary when none was asked for."""
        request = conversation.request
        effort = request.reasoning_effort or "medium"
        images = sum(len(m.images) for m in conversation.messages)
        summary = (
            f"The request asks: “{_excerpt(prompt, 120)}”. I consider what was given "
            f"({len(conversation.messages)} message(s), {images} image(s)) and plan a short, direct answer."
        )
        if effort in ("high", "xhigh", "max") or request.reasoning_summary == "detailed":
            summary += (
                f" With {effort} effort I also check the answer against the instructions and the input."
            )
        if effort in ("minimal", "low") or request.reasoning_summary == "concise":
            summary = f"Asked: “{_excerpt(prompt, 60)}”; a short, direct answer."
        tokens = len(summary.split()) * _EFFORT_FACTOR.get(effort, 4)
        return Reasoning(summary if request.reasoning_summary else "", tokens=tokens, text=summary)

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
        if request.verbosity == "low":
            parts = parts[:2]
        elif request.verbosity == "high":
            parts.append(
                "You asked for a detailed answer, so here is more: the sandbox answers from what it was given "
                "(the prompt, the images, the search results and the schema), never from a model or the network."
            )
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
