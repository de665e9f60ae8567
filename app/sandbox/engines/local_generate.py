"""The local engine's token loop over llama-cpp-python's `Llama.generate`, and the log probabilities of the
tokens it samples.

Why not `create_completion`: it gives text, not tokens, so a token's log probability could not be matched
to its text; and it asks for logprobs only with `logits_all=True`, which keeps the logits of every position
(Gemma's 262,144-token vocabulary over the context: gigabytes). Here a logits processor sees the scores of
each step just before that step's token is sampled, computes the log-softmax with numpy and keeps them
until the sampled token arrives; nothing is kept for earlier steps. The loop turns tokens into text itself
(an incremental UTF-8 decoder: a character split across tokens comes out whole), and holds back text that
might be the start of a stop string, as `create_completion` does.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .base import TokenLogprob

# llama-cpp-python's `create_completion` defaults, which the engine used before and keeps.
_DEFAULTS = {"temp": 0.8, "top_p": 0.95, "top_k": 40, "min_p": 0.05, "repeat_penalty": 1.0}

Emit = Callable[[str, tuple[TokenLogprob, ...]], bool]  # a piece of text and its tokens; False: stop now


@dataclass(frozen=True)
class Settings:
    temperature: float | None
    top_p: float | None
    max_tokens: int
    stop: tuple[str, ...] = ()
    grammar: str | None = None  # GBNF
    top_logprobs: int | None = None  # None: no logprobs


@dataclass(frozen=True)
class Generated:
    tokens: int  # sampled by the model, stop strings included
    finish: str  # "stop" (end of text, a stop string or the caller), "length"


class LogprobRecorder:
    """A llama-cpp-python logits processor: the log-softmax of the step about to be sampled (unchanged)."""

    def __init__(self) -> None:
        # numpy comes with llama-cpp-python (the `local` extra), so it is imported only when a recorder is made:
        # this module is imported by the local engine's set-up and by tests that run without that extra.
        import numpy

        self._np = numpy
        self.steps = 0
        self.logprobs: Any = None  # numpy's float32 array of the step's log-softmax

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        np = self._np
        logits = np.asarray(scores, dtype=np.float32)  # a contiguous copy of the sampler's strided view
        peak = float(logits.max())
        total = float(np.exp(logits - peak).sum(dtype=np.float64))
        self.logprobs = logits - np.float32(peak + np.log(total))
        self.steps += 1
        return scores

    def token(self, llama: Any, token: int, top: int) -> TokenLogprob:
        """The sampled token's log probability and the `top` most likely tokens of its step (best first)."""
        np = self._np
        logprobs = self.logprobs
        assert logprobs is not None
        best: list[int] = []
        if top:
            part = np.argpartition(logprobs, -top)[-top:]
            best = [int(i) for i in part[np.argsort(-logprobs[part], kind="stable")]]
        return TokenLogprob(
            _text(llama, token),
            _rounded(logprobs[token]),
            tuple((_text(llama, other), _rounded(logprobs[other])) for other in best),
            _bytes(llama, token),
            tuple(_bytes(llama, other) for other in best),
        )


def _rounded(value: Any) -> float:
    return min(0.0, round(float(value), 6))  # a float32 rounding must not make a probability above 1


def _bytes(llama: Any, token: int) -> bytes:
    return bytes(llama.detokenize([token], special=False))


def _text(llama: Any, token: int) -> str:
    return _bytes(llama, token).decode("utf-8", errors="replace")


def read_prompt(llama: Any, tokens: list[int], cancelled: Callable[[], bool]) -> bool:
    """Reads all of the prompt but its last token into the context, a batch at a time, and asks `cancelled`
    before each batch (False: it was): llama.cpp cannot stop inside `Llama.generate`'s own reading, and a
    long prompt takes seconds per thousand tokens on a CPU. What the context holds of the previous prompt
    is kept, as `generate` would keep it; `generate` then finds everything but the last token read."""
    body = tokens[:-1]
    kept = 0
    for old, new in zip(llama.input_ids[: llama.n_tokens], body, strict=False):
        if old != new:
            break
        kept += 1
    if kept < llama.n_tokens and not llama._ctx.kv_cache_seq_rm(-1, kept, -1):
        kept = 0  # the cache cannot drop just its end: read the whole prompt again
    llama.n_tokens = kept
    for start in range(kept, len(body), llama.n_batch):
        if cancelled():
            return False
        llama.eval(body[start : start + llama.n_batch])
    return not cancelled()


def generate(llama: Any, tokens: list[int], settings: Settings, emit: Emit) -> Generated:
    """Samples up to `settings.max_tokens` tokens after `tokens`, handing `emit` the text as it is known."""
    from llama_cpp import LogitsProcessorList, llama_vocab_is_control, llama_vocab_is_eog
    from llama_cpp.llama_grammar import LlamaGrammar

    options: dict[str, Any] = dict(_DEFAULTS)
    if settings.temperature is not None:
        options["temp"] = settings.temperature
    if settings.top_p is not None:
        options["top_p"] = settings.top_p
    if settings.grammar is not None:
        options["grammar"] = LlamaGrammar.from_string(settings.grammar, verbose=False)
    recorder = LogprobRecorder() if settings.top_logprobs is not None else None
    if recorder is not None:
        options["logits_processor"] = LogitsProcessorList([recorder])
    vocab = llama._model.vocab  # the end-of-generation test needs the vocabulary handle
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    held = HeldText(settings.stop)
    count = 0
    tokens_out = llama.generate(tokens, **options)
    try:
        for token in tokens_out:
            # A control token past the prompt's own (Gemma's `<start_of_image>` from a text-only prompt) is no
            # text: a model that emits one has left the answer, and would go on emitting it to the cap.
            if llama_vocab_is_eog(vocab, token) or llama_vocab_is_control(vocab, token):
                return _finish(held, decoder, emit, count, "stop")
            count += 1
            logprob: tuple[TokenLogprob, ...] = ()
            if recorder is not None:
                if recorder.steps != count:  # the processor must have seen exactly this token's step
                    raise RuntimeError("llama.cpp sampled a token without showing its scores")
                logprob = (recorder.token(llama, token, settings.top_logprobs or 0),)
            text, stopped = held.add(decoder.decode(_bytes(llama, token)), logprob)
            # A token that is part of a character (or of a possible stop string) goes out with the text.
            if (text and not emit(text, held.take())) or stopped:
                return Generated(count, "stop")
            if count >= settings.max_tokens:
                return _finish(held, decoder, emit, count, "length")
    finally:
        tokens_out.close()
    return _finish(held, decoder, emit, count, "stop")


def _finish(
    held: HeldText, decoder: codecs.IncrementalDecoder, emit: Emit, count: int, finish: str
) -> Generated:
    rest = held.flush(decoder.decode(b"", final=True))
    if rest:
        emit(rest, held.take())
    return Generated(count, finish)


class HeldText:
    """Text not yet handed out because it might begin a stop string, with its tokens' log probabilities."""

    def __init__(self, stop: tuple[str, ...]) -> None:
        self.stop = stop
        self.text = ""
        self.pending: list[tuple[int, TokenLogprob]] = []  # (end of the token's text in `text`, logprob)
        self.ready: list[TokenLogprob] = []

    def add(self, text: str, logprobs: tuple[TokenLogprob, ...]) -> tuple[str, bool]:
        """(the text that can go out now, whether a stop string was reached)."""
        self.text += text
        self.pending += [(len(self.text), logprob) for logprob in logprobs]
        cut = min((i for i in (self.text.find(s) for s in self.stop if s) if i >= 0), default=-1)
        if cut >= 0:
            return self._release(cut, drop_rest=True), True
        keep = max((n for s in self.stop for n in range(1, len(s)) if self.text.endswith(s[:n])), default=0)
        return self._release(len(self.text) - keep), False

    def flush(self, text: str) -> str:
        self.text += text
        return self._release(len(self.text))

    def take(self) -> tuple[TokenLogprob, ...]:
        ready, self.ready = tuple(self.ready), []
        return ready

    def _release(self, end: int, drop_rest: bool = False) -> str:
        out, self.text = self.text[:end], "" if drop_rest else self.text[end:]
        self.ready += [logprob for stop, logprob in self.pending if stop <= end]
        self.pending = [] if drop_rest else [(stop - end, lp) for stop, lp in self.pending if stop > end]
        return out
