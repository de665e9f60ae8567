"""The `local` engine: GGUF weights run in-process by llama-cpp-python, on a worker thread per answer.

The worker produces tokens into an asyncio queue through `call_soon_threadsafe`, so the server's loop never
waits on a token; a cancel flag checked at every token makes Stop end the generation at the next one. One
llama.cpp context per weights file, taken in turn under a lock: on a 2-core machine a second context would
share the same cores (each answer at half speed) and double the cache's memory, so requests queue instead.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ServiceError
from ..request import ResponseRequest
from ..tools import ToolPlan
from . import search as web
from .base import Conversation, FunctionCallDelta, Search, SearchResult, Step, TextDelta, Usage
from .gguf import BackgroundModel, ModelStatus, ModelUnavailable
from .local_tools import CALL_END, CALL_START, call_grammar, is_call, parse_call, still_deciding
from .prompt import build_prompt

DEFAULT_CONTEXT = 4096


@dataclass(frozen=True)
class _End:
    """The worker is done: nothing follows in the queue."""


_Item = str | Usage | FunctionCallDelta | BaseException | _End


class _Job:
    """One answer's channel between its worker thread and the request's coroutine."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[_Item] = asyncio.Queue()
        self.cancelled = threading.Event()

    def put(self, item: _Item) -> None:
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)
        except RuntimeError:  # the loop closed (server stopping): nobody is listening any more
            self.cancelled.set()


@dataclass(frozen=True)
class _Sampling:
    prompt: str
    stop: list[str]
    max_tokens: int | None
    temperature: float | None
    top_p: float | None
    grammar: Callable[[], Any] | None
    tools: ToolPlan | None = None  # the functions the model may call this turn (None: it answers in text)


class LocalEngine:
    name = "local"
    counts_tokens = True  # usage and max_output_tokens come from the model's own tokenizer

    def __init__(
        self,
        model_file: Path | None,
        model_map: dict[str, str] | None = None,
        threads: int | None = None,
        context: int = DEFAULT_CONTEXT,
    ) -> None:
        threads = threads or os.cpu_count() or 1
        self.default = BackgroundModel(model_file, threads, context)
        self.models = {
            name: BackgroundModel(Path(path).expanduser(), threads, context)
            for name, path in (model_map or {}).items()
        }

    def start_loading(self) -> None:
        """Loads every weights file on a background thread; requests wait only for theirs."""
        for model in (self.default, *self.models.values()):
            model.start()

    def model_for(self, name: str) -> BackgroundModel:
        return self.models.get(name, self.default)

    def status(self, name: str) -> ModelStatus:
        return self.model_for(name).status()

    @staticmethod
    def calls_functions(name: str) -> bool:
        """Every GGUF calls functions here: the call's format is the sandbox's own (local_tools.py), its
        arguments held to the schemas by a llama.cpp grammar, whatever chat template the weights carry."""
        return True

    def describe(self, name: str) -> str:
        return self.status(name).describe()

    async def prepare(self, request: ResponseRequest) -> None:
        """Refusals that must be a plain HTTP error, before a stream starts: images, weights that cannot load."""
        model = self.model_for(request.model)
        if any(message.images for message in request.messages):
            raise ServiceError(
                400,
                f"The model {request.model} runs {model.status().file_name} locally, which is text-only: "
                "it cannot read images.",
                "unsupported_input",
                "input",
            )
        try:
            await asyncio.to_thread(model.wait)
        except ModelUnavailable as error:
            raise _unavailable(error) from None

    async def count_input_tokens(self, conversation: Conversation) -> int:
        """The prompt's length in the model's own tokens, as a response's usage counts it (before the web
        search results, which only a run fetches)."""
        model = self.model_for(conversation.request.model)
        try:
            llama = await asyncio.to_thread(model.wait)
        except ModelUnavailable as error:
            raise _unavailable(error) from None

        def count() -> int:  # llama.cpp's tokenizer reads the vocabulary only: no need for the context lock
            template = llama.metadata.get("tokenizer.chat_template")
            prompt, _ = build_prompt(conversation, [], template, llama)
            return len(llama.tokenize(prompt.encode(), add_bos=True, special=True))

        return await asyncio.to_thread(count)

    async def run(self, conversation: Conversation) -> AsyncGenerator[Step, None]:
        request = conversation.request
        model = self.model_for(request.model)
        results: list[SearchResult] = []
        if request.web_search and conversation.last_user_text():
            query = web.make_query(conversation.last_user_text())
            results = web.search(query)
            yield Search(query, tuple(results))
        job = _Job(asyncio.get_running_loop())
        sampling = self._sampling(conversation, model, results)
        threading.Thread(
            target=_generate, args=(model, sampling, job), name="gguf-generate", daemon=True
        ).start()
        try:
            while not isinstance(item := await job.queue.get(), _End):
                if isinstance(item, str):
                    yield TextDelta(item)
                elif isinstance(item, Usage | FunctionCallDelta):
                    yield item
                elif isinstance(item, ModelUnavailable):
                    raise _unavailable(item)
                else:
                    raise item
        finally:
            job.cancelled.set()  # Stop, a dropped connection, or the end: the worker quits at its next token

    def _sampling(
        self, conversation: Conversation, model: BackgroundModel, results: list[SearchResult]
    ) -> _Sampling:
        request = conversation.request
        template = model.llama.metadata.get("tokenizer.chat_template") if model.llama is not None else None
        prompt, stop = build_prompt(conversation, results, template, model.llama)
        tools = request.tools if request.tools.active else None
        return _Sampling(
            prompt,
            stop,
            request.max_output_tokens,
            request.temperature,
            request.top_p,
            _grammar(request),
            tools,
        )


def _unavailable(error: ModelUnavailable) -> ServiceError:
    # 503: the weights are the server's configuration, not the client's input; the message says the fix.
    return ServiceError(503, error.message, "model_unavailable")


def _grammar(request: ResponseRequest) -> Callable[[], Any] | None:
    """A factory of the llama.cpp grammar that constrains the answer to the requested JSON (built on the worker)."""
    text_format = request.text_format
    if text_format["type"] == "json_schema":
        schema = json.dumps(text_format["schema"])

        def from_schema() -> Any:
            from llama_cpp.llama_grammar import LlamaGrammar

            return LlamaGrammar.from_json_schema(schema, verbose=False)

        return from_schema
    if text_format["type"] == "json_object":

        def any_json() -> Any:
            from llama_cpp.llama_grammar import JSON_GBNF, LlamaGrammar

            return LlamaGrammar.from_string(JSON_GBNF, verbose=False)

        return any_json
    return None


def _generate(model: BackgroundModel, sampling: _Sampling, job: _Job) -> None:
    """The worker thread: waits for the weights and the context, then samples token by token."""
    try:
        llama = model.wait()
        with model.lock:
            if not job.cancelled.is_set():
                _sample(llama, model.context, sampling, job)
    except BaseException as error:  # handed to the request's coroutine, which raises it there
        job.put(error)
    finally:
        job.put(_End())


def _options(sampling: _Sampling, max_tokens: int, grammar: Callable[[], Any] | None) -> dict[str, Any]:
    options: dict[str, Any] = {"stop": sampling.stop, "max_tokens": max_tokens, "stream": True}
    if sampling.temperature is not None:
        options["temperature"] = sampling.temperature
    if sampling.top_p is not None:
        options["top_p"] = sampling.top_p
    if grammar is not None:
        options["grammar"] = grammar()
    return options


def _sample(llama: Any, context: int, sampling: _Sampling, job: _Job) -> None:
    tokens: list[int] = llama.tokenize(sampling.prompt.encode(), add_bos=True, special=True)
    room = context - len(tokens)
    if room < 1:
        raise ServiceError(
            400,
            f"The conversation is {len(tokens)} tokens long; the local model's context holds {context}.",
            "context_length_exceeded",
            "input",
        )
    max_tokens = min(sampling.max_tokens or room, room)
    tools = sampling.tools
    if tools is not None and tools.mode == "required":
        _sample_call(llama, tokens, max_tokens, sampling, tools, job)
        return
    text, finish = "", None
    held: str | None = ""  # the answer's start while it might still become a call; None once it cannot
    chunks = llama.create_completion(tokens, **_options(sampling, max_tokens, sampling.grammar))
    try:
        for chunk in chunks:
            if job.cancelled.is_set():
                return
            choice = chunk["choices"][0]
            finish = choice["finish_reason"] or finish
            if not choice["text"]:
                continue
            text += choice["text"]
            if tools is not None and held is not None:  # the start might be a call: hold it until known
                held += choice["text"]
                if still_deciding(held):
                    continue
                if is_call(held):
                    break
                job.put(held)
                held = None
                continue
            job.put(choice["text"])
    finally:
        chunks.close()
    if tools is not None and held is not None and is_call(held):
        _sample_call(llama, tokens, max_tokens, sampling, tools, job)
        return
    if held:
        job.put(held)
    output_tokens = len(llama.tokenize(text.encode(), add_bos=False, special=True)) if text else 0
    if finish == "length":
        output_tokens = max(output_tokens, max_tokens)
    job.put(Usage(len(tokens), output_tokens, incomplete=finish == "length"))


def _sample_call(
    llama: Any, tokens: list[int], max_tokens: int, sampling: _Sampling, tools: ToolPlan, job: _Job
) -> None:
    """A call: the JSON after the call mark, under the grammar of the functions' schemas."""
    mark = llama.tokenize(CALL_START.encode(), add_bos=False, special=True)
    options = _options(sampling, max_tokens, call_grammar(tools))
    options["stop"] = [CALL_END]
    text, finish = "", None
    chunks = llama.create_completion(tokens + mark, **options)
    try:
        for chunk in chunks:
            if job.cancelled.is_set():
                return
            text += chunk["choices"][0]["text"]
            finish = chunk["choices"][0]["finish_reason"] or finish
    finally:
        chunks.close()
    call = parse_call(text, tools)
    if call is not None and finish != "length":
        name, arguments, namespace = call
        job.put(FunctionCallDelta(0, name, arguments, namespace))
    output_tokens = len(mark) + (
        len(llama.tokenize(text.encode(), add_bos=False, special=True)) if text else 0
    )
    job.put(Usage(len(tokens), output_tokens, incomplete=finish == "length" or call is None))
