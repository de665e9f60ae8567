"""Where a local model's answer ends: at a new speaker line of the transcript a base model is given, and at a
control token the model emits (a text-only prompt answered with Gemma's `<start_of_image>`, over and over),
never at the output cap for want of a stop. llama.cpp's vocabulary is faked: what `generate` asks of it is
which token ends generation and which is a control token."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.sandbox.engines.local_generate import Settings, generate
from app.sandbox.engines.prompt import TRANSCRIPT_STOP

END, CONTROL = 1, 2
WORDS = {10: b" Ahoy", 11: b" there", 12: b"\nAssistant", 13: b":"}


class FakeLlama:
    """What `generate` uses of llama-cpp-python's `Llama`: its sampler's tokens and their bytes."""

    def __init__(self, tokens: list[int]) -> None:
        self.tokens = tokens
        self._model = type("Model", (), {"vocab": object()})()

    def generate(self, _prompt: list[int], **_options: Any) -> Iterator[int]:
        yield from self.tokens

    def detokenize(self, tokens: list[int], special: bool = False) -> bytes:
        return b"<start_of_image>" if tokens == [CONTROL] else WORDS[tokens[0]]


@pytest.fixture(autouse=True)
def vocabulary(monkeypatch: pytest.MonkeyPatch) -> None:
    llama_cpp = pytest.importorskip("llama_cpp", reason="the local extra: bash packaging/dev.sh test-local")
    monkeypatch.setattr(llama_cpp, "llama_vocab_is_eog", lambda _vocab, token: token == END)
    monkeypatch.setattr(llama_cpp, "llama_vocab_is_control", lambda _vocab, token: token == CONTROL)


def answer(tokens: list[int], stop: tuple[str, ...] = ()) -> tuple[str, str, int]:
    said: list[str] = []

    def emit(text: str, _logprobs: object) -> bool:
        said.append(text)
        return True

    done = generate(FakeLlama(tokens), [0], Settings(None, None, max_tokens=100, stop=stop), emit)
    return "".join(said), done.finish, done.tokens


def test_a_control_token_ends_the_answer_with_what_came_before() -> None:
    assert answer([10, 11, CONTROL, CONTROL, CONTROL]) == (" Ahoy there", "stop", 2)


def test_a_new_speaker_line_ends_the_transcripts_turn() -> None:
    assert "\nAssistant:" in TRANSCRIPT_STOP and "\nUser:" in TRANSCRIPT_STOP
    text, finish, _tokens = answer([10, 12, 13, 10, 12, 13, 10], tuple(TRANSCRIPT_STOP))
    assert (text, finish) == (" Ahoy", "stop")
