"""Saved conversations: written as they happen, found by search, reopened with their chain ids."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.playground.conversation_store import (
    ConversationStore,
    StoredTurn,
    match_query,
    title_from,
)
from app.core.playground.export import as_json, as_markdown


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    yield store
    store.close()


def turn(
    prompt: str, answer: str, response_id: str | None = "resp_1", status: str = "completed"
) -> StoredTurn:
    return StoredTurn(
        prompt=prompt, answer=answer, model="service-pro", status=status, response_id=response_id
    )


def test_a_conversation_survives_reopening_the_file(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    store = ConversationStore(path)
    conversation_id = store.create("Haiku", "service-pro", {"temperature": 0.2})
    store.save_turn(conversation_id, 0, turn("Write a haiku", "Autumn moonlight", "resp_a"))
    store.save_turn(conversation_id, 1, turn("Another", "", None, status="stopped"))
    store.close()

    reopened = ConversationStore(path)
    conversation = reopened.load(conversation_id)
    reopened.close()
    assert conversation is not None
    assert [t.prompt for t in conversation.turns] == ["Write a haiku", "Another"]
    assert conversation.settings == {"temperature": 0.2}
    assert conversation.last_response_id == "resp_a"  # the stopped turn has no id: chain from the one before
    assert conversation.summary.turn_count == 2


def test_a_turn_saved_again_replaces_itself(store: ConversationStore) -> None:
    conversation_id = store.create("t", "service-pro")
    store.save_turn(conversation_id, 0, turn("q", "partial", None, status="streaming"))
    store.save_turn(conversation_id, 0, turn("q", "whole answer", "resp_2"))
    loaded = store.load(conversation_id)
    assert loaded is not None and [t.answer for t in loaded.turns] == ["whole answer"]
    assert [s.id for s in store.summaries("partial")] == []
    assert [s.id for s in store.summaries("whole")] == [conversation_id]


def test_search_finds_titles_prompts_and_answers_by_word_prefix(store: ConversationStore) -> None:
    first = store.create("Cooking ideas", "service-pro")
    second = store.create("Network planning", "service-pro")
    store.save_turn(second, 0, turn("Which CIDR for the office?", "Use 203.0.113.0/24 for the office."))
    assert [s.id for s in store.summaries("cook")] == [first]
    assert [s.id for s in store.summaries("offi")] == [second]
    assert [s.id for s in store.summaries("203.0.113")] == [second]
    assert {s.id for s in store.summaries("")} == {first, second}
    assert store.summaries("nothing-like-this") == []


@pytest.mark.parametrize("typed", ['"', "AND", "a OR", "*", "(", "NEAR(", "-", "é"])
def test_any_typed_text_is_a_valid_search(store: ConversationStore, typed: str) -> None:
    conversation_id = store.create("Café", "service-pro")
    found = store.summaries(typed)  # never an FTS5 syntax error: a list, of conversations that exist
    assert {summary.id for summary in found} <= {conversation_id}


def test_search_ignores_accents_and_case(store: ConversationStore) -> None:
    conversation_id = store.create("Café Über", "service-pro")
    assert [s.id for s in store.summaries("cafe uber")] == [conversation_id]


def test_rename_and_delete(store: ConversationStore) -> None:
    conversation_id = store.create("Old name", "service-pro")
    store.save_turn(conversation_id, 0, turn("hello", "world"))
    store.rename(conversation_id, "Fresh title")
    assert [s.title for s in store.summaries("fresh")] == ["Fresh title"]
    assert store.summaries("old") == []
    store.delete(conversation_id)
    assert store.load(conversation_id) is None
    assert store.summaries("hello") == []


def test_most_recent_first(store: ConversationStore) -> None:
    first = store.create("one", "service-pro")
    second = store.create("two", "service-pro")
    store.save_turn(first, 0, turn("later", "turn"))
    assert [s.id for s in store.summaries()] == [first, second]


def test_exports(store: ConversationStore) -> None:
    conversation_id = store.create("Export me", "service-pro")
    store.save_turn(conversation_id, 0, turn("Say hi", "Hi!"))
    store.save_turn(conversation_id, 1, StoredTurn("Empty?", "", "service-pro", "incomplete", error="cut"))
    conversation = store.load(conversation_id)
    assert conversation is not None
    markdown = as_markdown(conversation)
    assert markdown.startswith("# Export me")
    assert "Say hi" in markdown and "Hi!" in markdown and "_(no text; incomplete)_" in markdown
    document = json.loads(as_json(conversation))
    assert document["title"] == "Export me"
    assert [t["response_id"] for t in document["turns"]] == ["resp_1", None]


def test_titles_and_queries() -> None:
    assert title_from("\n  First line\nsecond") == "First line"
    assert title_from("") == "New conversation"
    long = title_from("word " * 40)
    assert len(long) <= 61 and long.endswith("…")
    assert match_query("  ") is None
    assert match_query('say "hi"') == '"say"* "hi"*'


def test_a_file_from_the_per_turn_index_is_searched_after_its_index_is_made_again(tmp_path: Path) -> None:
    """Version 1 kept one search row per turn in a table named `search`; opening it builds the new index."""
    import sqlite3

    path = tmp_path / "conversations.sqlite3"
    store = ConversationStore(path)
    first = store.create("Harbour plans", "service-pro")
    store.save_turn(first, 0, turn("Where do ferries dock?", "At the north pier."))
    store.close()
    old = sqlite3.connect(path)  # as version 1 left it: its own search table, no index of ours
    old.execute("DROP TABLE conversation_text")
    old.execute("CREATE VIRTUAL TABLE search USING fts5(conversation_id UNINDEXED, position UNINDEXED, text)")
    old.execute("PRAGMA user_version = 0")
    old.commit()
    old.close()

    again = ConversationStore(path)
    assert [s.title for s in again.summaries("ferr")] == ["Harbour plans"]
    assert [s.title for s in again.summaries("nort pie")] == ["Harbour plans"]
    tables = {name for (name,) in again._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "search" not in tables
    again.close()


def test_a_conversation_is_one_hit_whatever_matches_in_it(store: ConversationStore) -> None:
    conversation = store.create("Tides", "service-pro")
    for position in range(5):
        store.save_turn(conversation, position, turn(f"tide question {position}", "tide answer"))
    assert [s.id for s in store.summaries("tide")] == [conversation]
    store.save_turn(conversation, 2, turn("moon", "orbit"), newest=True)  # edited from turn 3: 3 and 4 go
    assert store.summaries("question 4") == [] and len(store.summaries("orbit")) == 1
    loaded = store.load(conversation)
    assert loaded is not None and loaded.summary.turn_count == 3


def test_a_turn_saved_again_unchanged_keeps_its_conversation_found(store: ConversationStore) -> None:
    """An edit replays the turns before it; saved again as they were, the search still finds them all."""
    conversation = store.create("Tides", "service-pro")
    for position in range(3):
        store.save_turn(conversation, position, turn(f"moon{position}", f"orbit{position}"), newest=True)
    for position in range(2):
        replayed = turn(f"moon{position}", f"orbit{position}")
        store.save_turn(conversation, position, replayed, newest=position == 1)
    assert store.summaries("orbit2") == [] and len(store.summaries("orbit1")) == 1
    store.save_turn(conversation, 1, turn("moon1", "chart"), newest=True)  # changed: found by its new text
    assert store.summaries("orbit1") == [] and len(store.summaries("chart")) == 1


def test_a_new_conversation_and_its_first_turn_are_one_write(store: ConversationStore) -> None:
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)  # SQLite's own record of what ran
    conversation_id = store.create("Haiku", "service-pro", {"temperature": 0.2}, (0, turn("Write", "Moon")))
    store._db.set_trace_callback(None)
    assert sum(s.upper().startswith("BEGIN") for s in statements) == 1
    summary = store.summary(conversation_id)
    assert summary is not None and summary.turn_count == 1 and summary.title == "Haiku"
    loaded = store.load(conversation_id)
    assert loaded is not None and [t.answer for t in loaded.turns] == ["Moon"]
    assert loaded.settings == {"temperature": 0.2}
    assert [s.id for s in store.summaries("moon")] == [conversation_id]  # its search document has the turn
    assert store.summary("conv_missing") is None


def test_pages_after_a_summary_list_every_conversation_once_in_order(store: ConversationStore) -> None:
    made = [store.create(f"Tide table {n}", "service-pro") for n in range(23)]
    with store._db:  # five saved at the same moment: the order is by id among them, and the pages still split
        store._db.execute(
            f"UPDATE conversations SET updated_at = 1000 WHERE id IN ({', '.join('?' * 5)})", made[5:10]
        )
    for query in ("", "tide"):
        whole = store.summaries(query, limit=1000)
        assert len(whole) == 23
        pages = [store.summaries(query, limit=4)]
        while pages[-1]:
            pages.append(store.summaries(query, limit=4, after=pages[-1][-1]))
        assert [s.id for page in pages for s in page] == [s.id for s in whole]
