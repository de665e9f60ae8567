"""Saved conversations: a search keystroke over 1,000 conversations through the store's FTS5 index, against a
plain Python scan of the same texts (the baseline), and reading back a 200-turn, ~100k-token conversation.
Run: python -m tests.perf.bench_conversations
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path

from app.core.playground.conversation_store import ConversationStore, StoredTurn
from tests.perf.tiny import size

CONVERSATIONS = size(1_000, 20)
TURNS_EACH = size(8, 2)
LONG_TURNS = size(200, 5)  # of ~500 tokens each: ~100k tokens
READS = size(5, 1)  # of the long conversation from the store
REOPENS = size(3, 1)  # of the long conversation in a new Playground tab
WORDS = [
    "allowlist",
    "network",
    "office",
    "rotation",
    "prompt",
    "answer",
    "model",
    "schema",
    "search",
    "token",
    "stream",
    "image",
    "key",
    "project",
    "organization",
    "gateway",
    "latency",
    "python",
    "json",
    "table",
    "policy",
    "address",
    "range",
    "public",
    "private",
    "cloud",
]


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) + str(rng.randrange(50)) for _ in range(words))


def fill(store: ConversationStore, rng: random.Random) -> list[str]:
    texts = []
    for number in range(CONVERSATIONS):
        conversation_id = store.create(f"Conversation {number} {rng.choice(WORDS)}", "service-pro")
        for position in range(TURNS_EACH):
            prompt, answer = sentence(rng, 12), sentence(rng, 120)
            store.save_turn(conversation_id, position, StoredTurn(prompt, answer, "service-pro", "completed"))
            texts.append(f"{prompt}\n{answer}".lower())
    return texts


def keystrokes(query: str) -> list[str]:
    return [query[:n] for n in range(1, len(query) + 1)]


def main() -> None:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as folder:
        store = ConversationStore(Path(folder) / "conversations.sqlite3")  # the service's file name
        started = time.perf_counter()
        texts = fill(store, rng)
        print(
            f"filled {CONVERSATIONS:,} conversations × {TURNS_EACH} turns in {time.perf_counter() - started:.1f} s"
        )
        indexed, scanned = [], []
        for query in ("rotation17 office3", "gateway", "policy4", "zzz"):
            for typed in keystrokes(query):
                began = time.perf_counter()
                store.summaries(typed)
                indexed.append(time.perf_counter() - began)
                began = time.perf_counter()
                words = typed.lower().split()
                sum(1 for text in texts if all(word in text for word in words))
                scanned.append(time.perf_counter() - began)
        print(
            f"search keystroke, {CONVERSATIONS:,} conversations: median {statistics.median(indexed) * 1e3:.2f} ms,"
            f" worst {max(indexed) * 1e3:.2f} ms (goal < 50 ms)"
        )
        print(
            f"plain Python scan of the same texts:    median {statistics.median(scanned) * 1e3:.2f} ms,"
            f" worst {max(scanned) * 1e3:.2f} ms"
        )

        long_id = store.create("Long", "service-pro")
        for position in range(LONG_TURNS):
            store.save_turn(
                long_id,
                position,
                StoredTurn(sentence(rng, 20), sentence(rng, 380), "service-pro", "completed"),
            )
        reads, conversation = [], None
        for _ in range(READS):
            began = time.perf_counter()
            conversation = store.load(long_id)
            reads.append(time.perf_counter() - began)
        assert conversation is not None and len(conversation.turns) == LONG_TURNS
        print(
            f"read back {LONG_TURNS} turns / ~{LONG_TURNS // 2}k tokens: median {statistics.median(reads) * 1e3:.1f} ms"
        )
        store.close()
        reopen_in_the_playground(Path(folder), long_id)
        search_in_the_sidebar(Path(folder))


def search_in_the_sidebar(folder: Path) -> None:
    """A keystroke as a person sees it: the sidebar's field, the store's search, the list shown again."""
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from app.services.playground.conversations import ConversationsService
    from app.services.session.messages import MessageBus
    from app.ui.playground.conversations import ConversationSidebar

    app = QApplication.instance() or QApplication([])
    service = ConversationsService(folder, MessageBus())
    sidebar = ConversationSidebar(service)
    sidebar.resize(260, 700)
    sidebar.show()
    app.processEvents()
    times = []
    for query in ("rotation17 office3", "gateway", "policy4", "zzz"):
        for letter in query:
            began = time.perf_counter()
            QTest.keyClicks(sidebar.search, letter)
            app.processEvents()  # the list repainted
            times.append(time.perf_counter() - began)
        sidebar.search.clear()
        app.processEvents()
    print(
        f"search keystroke in the sidebar, {CONVERSATIONS:,} conversations, list shown: median"
        f" {statistics.median(times) * 1e3:.2f} ms, worst {max(times) * 1e3:.2f} ms (goal < 50 ms)"
    )
    sidebar.close()
    service.close()


def reopen_in_the_playground(folder: Path, conversation_id: str) -> None:
    """The whole path a person waits for: click, read, build the 200 turn views, the last one shown."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from app.bootstrap import Paths, make_session
    from app.services.playground.conversations import ConversationsService
    from app.ui.playground.tab import PlaygroundTab

    app = QApplication.instance() or QApplication([])
    session = make_session(Paths.under(folder / "home"), interactive=False)
    shown = []
    for _ in range(REOPENS):
        conversations = ConversationsService(folder, session.bus)  # the store the benchmark filled
        tab = PlaygroundTab(session, conversations=conversations)
        tab.resize(1100, 800)
        tab.show()
        app.processEvents()
        began = time.perf_counter()
        tab.keeper.open(conversation_id)
        tab.transcript.verticalScrollBar().setValue(tab.transcript.verticalScrollBar().maximum())
        app.processEvents()
        last = tab.views[-1]
        assert last.isVisible() and len(tab.views) == LONG_TURNS
        shown.append(time.perf_counter() - began)
        tab.close()
        tab.deleteLater()
        conversations.close()
        app.processEvents()
    print(
        f"reopen {LONG_TURNS} turns / ~{LONG_TURNS // 2}k tokens in the Playground, last turn shown: median"
        f" {statistics.median(shown) * 1e3:.0f} ms (goal <= 300 ms)"
    )


if __name__ == "__main__":
    main()
