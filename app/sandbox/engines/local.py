"""The `local` engine: GGUF weights run in-process by llama-cpp-python, on a worker thread per answer.

The worker produces tokens into an asyncio queue through `call_soon_threadsafe`, so the server's loop never
waits on a token; a cancel flag checked at every token makes Stop end the generation at the next one. One
llama.cpp context per weights file, taken in turn under a lock: on a 2-core machine a second context would
share the same cores (each answer at half speed) and double the cache's memory, so requests queue instead:
the route takes a turn in the model's line (`line_for`, turns.py) before it runs, and the lock only guards
the context against a cancelled worker that has not yet left it. A long prompt is read a batch at a time
with the same cancel flag checked between batches (local_generate.read_prompt).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.sandbox.config import SandboxConfig
from app.sandbox.errors import ServiceError
from app.sandbox.request.engine_request import EngineRequest
from app.sandbox.request.tools import ToolPlan

from . import search as web
from .base import (
    Conversation,
    FunctionCallDelta,
    Search,
    SearchResult,
    Step,
    TextDelta,
    TokenizerUsage,
    TokenLogprob,
)
from .gguf import BackgroundModel, ModelStatus, ModelUnavailable
from .local_calls import CallStream
from .local_generate import Generated, Settings, generate, read_prompt
from .local_grammar import AnswerShape, answer_shape, calls_shape
from .local_tools import is_call, still_deciding
from .logprobs import top_logprobs_wanted
from .prompt import build_prompt
from .turns import TurnLine


@dataclass(frozen=True)
class _End:
    """The worker is done: nothing follows in the queue."""


_Item = TextDelta | TokenizerUsage | FunctionCallDelta | BaseException | _End


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
    max_tokens: int  # at most the engine's max_output
    temperature: float | None
    top_p: float | None
    shape: AnswerShape
    tools: ToolPlan | None = None  # the functions the model may call this turn (None: it answers in text)
    top_logprobs: int | None = None  # alternatives per token when logprobs were asked for


class LocalEngine:
    name = "local"
    counts_tokens = True  # usage and max_output_tokens come from the model's own tokenizer

    def __init__(
        self,
        model_file: Path | None,
        model_map: dict[str, str] | None = None,
        threads: int | None = None,
        context: int | None = None,  # tokens (None: as long as each model was trained for)
        max_output: int = SandboxConfig.model_max_output,  # tokens per answer, whatever max_output_tokens asks
    ) -> None:
        self.max_output = max_output
        threads = threads or os.cpu_count() or 1
        self.default = BackgroundModel(model_file, threads, context)
        self.models = {
            name: BackgroundModel(Path(path).expanduser(), threads, context)
            for name, path in (model_map or {}).items()
        }
        self.lines = {model: TurnLine() for model in (self.default, *self.models.values())}

    def start_loading(self) -> None:
        """Loads every weights file on a background thread; requests wait only for theirs."""
        for model in (self.default, *self.models.values()):
            model.start()

    def model_for(self, name: str) -> BackgroundModel:
        return self.models.get(name, self.default)

    def line_for(self, name: str) -> TurnLine:
        """The requests waiting for the weights behind `name`: one context answers one at a time."""
        return self.lines[self.model_for(name)]

    def context_window(self, name: str) -> int | None:
        """The loaded model's context in tokens (None before it is loaded: `prepare` waits for it)."""
        model = self.model_for(name)
        return model.context if model.llama is not None else None

    async def excess_tokens(self, conversation: Conversation) -> int:
        """By how many tokens the prompt and the answer's first token overflow the context (<= 0: they fit)."""
        window = self.context_window(conversation.request.model) or 0
        return await self.count_input_tokens(conversation) + 1 - window

    def status(self, name: str) -> ModelStatus:
        return self.model_for(name).status()

    @staticmethod
    def calls_functions(name: str) -> bool:
        """Every GGUF calls functions here: the call's format is the sandbox's own (local_tools.py), its
        arguments held to the schemas by a llama.cpp grammar, whatever chat template the weights carry."""
        return True

    def describe(self, name: str) -> str:
        return self.status(name).describe()

    async def prepare(self, request: EngineRequest) -> None:
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
                if isinstance(item, TextDelta | TokenizerUsage | FunctionCallDelta):
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
            min(request.max_output_tokens or self.max_output, self.max_output),
            request.temperature,
            request.top_p,
            answer_shape(tools, request.text_format),
            tools,
            top_logprobs_wanted(request),
        )


def _unavailable(error: ModelUnavailable) -> ServiceError:
    # 503: the weights are the server's configuration, not the client's input; the message says the fix.
    return ServiceError(503, error.message, "model_unavailable")


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
    max_tokens = min(sampling.max_tokens, room)
    if not read_prompt(llama, tokens, job.cancelled.is_set):
        return
    tools, shape = sampling.tools, sampling.shape
    if tools is not None and shape.calls_first:
        _sample_calls(llama, tokens, max_tokens, sampling, shape, tools, job)
        return
    held: str | None = "" if tools is not None else None  # the start while it might become a call
    held_logprobs: tuple[TokenLogprob, ...] = ()
    calls: CallStream | None = None

    def emit(text: str, logprobs: tuple[TokenLogprob, ...]) -> bool:
        nonlocal held, held_logprobs, calls
        if job.cancelled.is_set():
            return False
        if calls is not None:
            return _feed(calls, text, job)
        if held is not None:
            held, held_logprobs = held + text, held_logprobs + logprobs
            if still_deciding(held):
                return True
            if not is_call(held):
                job.put(TextDelta(held, held_logprobs))
                held = None
                return True
            if shape.grammar is None:
                return False  # free text began a call: it is written again under the call grammar
            assert tools is not None
            calls = CallStream(tools)  # the grammar's call alternative: the same generation goes on
            start, held = held, None
            return _feed(calls, start, job)
        job.put(TextDelta(text, logprobs))
        return True

    settings = Settings(
        sampling.temperature,
        sampling.top_p,
        max_tokens,
        tuple(sampling.stop),
        shape.grammar,
        sampling.top_logprobs,
    )
    result = generate(llama, tokens, settings, emit)
    if job.cancelled.is_set():
        return
    if tools is not None and calls is None and held is not None and is_call(held):
        _sample_calls(llama, tokens, max_tokens, sampling, calls_shape(tools), tools, job)
        return
    if held:
        job.put(TextDelta(held, held_logprobs))
    incomplete = (calls is None and result.finish == "length") or (calls is not None and _cut(calls, result))
    job.put(TokenizerUsage(len(tokens), result.tokens, incomplete=incomplete))


def _feed(calls: CallStream, text: str, job: _Job) -> bool:
    for delta in calls.feed(text):
        job.put(delta)
    return not calls.repeated


def _sample_calls(
    llama: Any,
    tokens: list[int],
    max_tokens: int,
    sampling: _Sampling,
    shape: AnswerShape,
    tools: ToolPlan,
    job: _Job,
) -> None:
    """Calls from the first token: the prompt gets the call's fixed start, the grammar holds the rest.
    The start counts as output (it is part of the call), so it comes out of `max_tokens`; when it alone
    does not fit, no call is made and the answer is incomplete."""
    given = llama.tokenize(shape.prefill.encode(), add_bos=False, special=True)
    if len(given) >= max_tokens:
        job.put(TokenizerUsage(len(tokens), 0, incomplete=True))
        return
    calls = CallStream(tools)
    _feed(calls, shape.prefill, job)

    def emit(text: str, logprobs: tuple[TokenLogprob, ...]) -> bool:
        return not job.cancelled.is_set() and _feed(calls, text, job)

    settings = Settings(sampling.temperature, sampling.top_p, max_tokens - len(given), (), shape.grammar)
    result = generate(llama, tokens + given, settings, emit)
    if job.cancelled.is_set():
        return
    job.put(TokenizerUsage(len(tokens), len(given) + result.tokens, incomplete=_cut(calls, result)))


def _cut(calls: CallStream, result: Generated) -> bool:
    """Whether max_output_tokens cut a call that went out (a later one held back as a possible repeat is
    simply not made), or the answer has no call at all."""
    return calls.count == 0 or (result.finish == "length" and calls.open)
