"""The local engine reads a prompt a batch at a time, so a client that leaves during a long prompt ends it
between two batches, and what the context already holds of the previous prompt is not read again."""

from __future__ import annotations

from app.sandbox.engines.local_generate import read_prompt


class FakeContext:
    def __init__(self, removable: bool) -> None:
        self.removable = removable

    def kv_cache_seq_rm(self, seq: int, start: int, end: int) -> bool:
        return self.removable or start == 0


class FakeLlama:
    """What read_prompt uses of llama-cpp-python's `Llama`: the tokens read so far, and `eval`."""

    def __init__(self, held: list[int], removable: bool = True) -> None:
        self.n_batch = 4
        self.input_ids = [*held, *[0] * 100]
        self.n_tokens = len(held)
        self._ctx = FakeContext(removable)
        self.batches: list[list[int]] = []

    def eval(self, tokens: list[int]) -> None:
        self.batches.append(list(tokens))
        self.input_ids[self.n_tokens : self.n_tokens + len(tokens)] = tokens
        self.n_tokens += len(tokens)


def test_a_cancel_ends_the_reading_between_two_batches() -> None:
    llama = FakeLlama([])

    def cancelled() -> bool:
        return len(llama.batches) == 2

    assert not read_prompt(llama, list(range(1, 30)), cancelled)
    assert len(llama.batches) == 2  # of 7: the other five were never read


def test_all_but_the_last_token_is_read_and_the_kept_prefix_is_not_read_again() -> None:
    llama = FakeLlama([1, 2, 3, 4, 5, 99, 98])  # the previous prompt, then its answer
    assert read_prompt(llama, [1, 2, 3, 4, 5, 6, 7, 8], lambda: False)
    assert llama.batches == [[6, 7]] and llama.n_tokens == 7  # generate reads the last token itself


def test_a_cache_that_cannot_drop_its_end_is_read_whole() -> None:
    llama = FakeLlama([1, 2, 3, 9], removable=False)
    assert read_prompt(llama, [1, 2, 3, 4, 5, 6], lambda: False)
    assert llama.batches == [[1, 2, 3, 4], [5]]
