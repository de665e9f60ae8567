"""A list's answer is parsed from its bytes; a long one on a worker thread, in slices that give the same list
as one parse (a cut that falls inside a string or a nested object falls back to one parse), and errors that
name the field as before."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import msgspec
import pytest

from app.api import ConnectionSettings, ServiceClient, answer_bytes
from app.api.admin import Allowlist, Entry
from app.api.answer_bytes import parse_bytes, parse_in_slices, parse_list_bytes
from app.api.errors import InvalidResponse
from tests.api.servers import ScriptedServer, reply


def listing(entries: list[dict[str, Any]], **fields: Any) -> bytes:
    body = {"scope": "organization", "enabled": True, "entries": entries, "version": "v3", **fields}
    return json.dumps(body).encode()


def entries(count: int, description: str | None = "office") -> list[dict[str, Any]]:
    return [
        {"id": f"ipal_{i}", "cidr": f"10.{i // 256 % 256}.{i % 256}.0/24", "description": description}
        for i in range(count)
    ]


@pytest.fixture
def small_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answer_bytes, "SLICE_BYTES", 300)  # a few entries a slice


@pytest.mark.usefixtures("small_slices")
@pytest.mark.parametrize(
    "description",
    ["office", 'a "},{" inside }, { a string', "}, {", None],
    ids=["plain", "cuts inside strings", "only a cut", "null"],
)
def test_a_list_parsed_in_slices_is_the_list_parsed_at_once(description: str | None) -> None:
    content = listing(entries(200, description))
    cuts = answer_bytes._item_cuts(content, "entries")
    assert cuts is not None and len(cuts[1]) > 10  # cut into slices
    sliced = parse_in_slices(Allowlist, "entries", content, "an allowlist", "u")
    assert sliced == Allowlist.model_validate_json(content)
    assert len(sliced.entries) == 200 and sliced.version == "v3" and sliced.enabled
    assert all(isinstance(entry, Entry) for entry in sliced.entries)


@pytest.mark.usefixtures("small_slices")
def test_items_with_nested_objects_or_a_nested_key_of_the_same_name_are_read_right() -> None:
    nested = [{**entry, "tags": [{"k": 1}, {"k": 2}]} for entry in entries(100)]
    content = listing(nested, meta={"entries": [{"id": "x", "cidr": "1.2.3.4/32"}]})
    assert parse_in_slices(
        Allowlist, "entries", content, "an allowlist", "u"
    ) == Allowlist.model_validate_json(content)
    first = json.dumps({"meta": {"entries": []}, "enabled": False, "entries": entries(100)}).encode()
    assert len(parse_in_slices(Allowlist, "entries", first, "an allowlist", "u").entries) == 100


def test_entries_are_read_by_msgspec_into_the_entry_dataclass_and_pydantic_judges_what_it_refuses() -> None:
    read = answer_bytes._readers(Entry)[0]
    assert read(b'[{"id": "a", "cidr": "10.0.0.0/8", "colour": "red", "created_at": 1}]') == [
        Entry(id="a", cidr="10.0.0.0/8", created_at=1.0)
    ]
    for lax in ('{"description": null}', '{"expired": 1}', '{"expires_at": 5.0}', '{"hit_count": "3"}'):
        with pytest.raises(msgspec.ValidationError):  # stricter than pydantic's lax mode, never more tolerant
            read(b'[{"id": "a", "cidr": "10.0.0.0/8", ' + lax[1:].encode() + b"]")


@pytest.mark.usefixtures("small_slices")
def test_slices_msgspec_refuses_are_read_as_pydantic_reads_them() -> None:
    lax: list[dict[str, Any]] = [
        {"expired": 1},
        {"expires_at": 5.0},
        {"hit_count": "3"},
        {"description": None},
        {"created_at": "7"},
    ]
    mixed = [{**entry, **lax[i // 17 % 5]} if i % 17 == 0 else entry for i, entry in enumerate(entries(300))]
    content = listing(mixed)
    sliced = parse_in_slices(Allowlist, "entries", content, "an allowlist", "u")
    assert sliced == Allowlist.model_validate_json(content)
    assert sliced.entries[0].expired is True and sliced.entries[17].expires_at == 5
    assert sliced.entries[34].hit_count == 3 and sliced.entries[51].description == ""
    assert sliced.entries[68].created_at == 7.0


@pytest.mark.usefixtures("small_slices")
@pytest.mark.parametrize(
    ("content", "said"),
    [
        (listing([*entries(100), {"id": "a", "cidr": 5}]), r"entries\.100\.cidr"),
        (
            listing([*entries(100), {"id": "a", "cidr": "10.0.0.0/8", "expired": "maybe"}]),
            r"entries\.100\.expired",
        ),
        (listing([*entries(100), {"id": "a"}, *entries(100)]), r"entries\.100\.cidr"),
        (b"[1, 2]", "not a JSON object"),
        (b"", "not a JSON object"),
        (listing(entries(100))[:-40], "not JSON"),
    ],
    ids=["a wrong field", "a wrong flag", "a field missing mid-list", "an array", "empty", "cut short"],
)
def test_a_wrong_answer_says_what_is_wrong_however_it_is_parsed(content: bytes, said: str) -> None:
    for parse in (parse_bytes, lambda *args: parse_in_slices(Allowlist, "entries", *args[1:])):
        with pytest.raises(InvalidResponse, match=said):
            parse(Allowlist, content, "an allowlist", "http://x/v1/ip_allowlist")


def test_a_long_list_is_parsed_off_the_event_loop_s_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop runs on the GUI thread in the console: a long list's parse (~0.2 s at 100,000 entries)
    must not hold it."""
    threads: list[str] = []
    parse = answer_bytes.parse_in_slices

    def recorded(model: type[Allowlist], items: str, content: bytes, what: str, url: str) -> Allowlist:
        threads.append(threading.current_thread().name)
        return parse(model, items, content, what, url)

    monkeypatch.setattr(answer_bytes, "parse_in_slices", recorded)
    content = listing(entries(3_000))
    assert len(content) > answer_bytes.LONG_ANSWER_BYTES
    allowlist = asyncio.run(parse_list_bytes(Allowlist, "entries", content, "an allowlist", "u"))
    assert len(allowlist.entries) == 3_000
    assert threads and threading.main_thread().name not in threads


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_allowlists_read_a_long_list_off_the_loop_s_thread_and_a_short_one_on_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threads: list[str] = []
    parse = answer_bytes.parse_in_slices

    def recorded(model: type[Allowlist], items: str, content: bytes, what: str, url: str) -> Allowlist:
        threads.append(threading.current_thread().name)
        return parse(model, items, content, what, url)

    monkeypatch.setattr(answer_bytes, "parse_in_slices", recorded)
    long, short = listing(entries(3_000)), listing(entries(3))
    json_type = {"content-type": "application/json", "etag": '"v3"'}
    with ScriptedServer([reply("200 OK", long, json_type), reply("200 OK", short, json_type)]) as server:
        api = ServiceClient(ConnectionSettings(base_url=server.url, admin_key="k", max_retries=0), "org_1")
        assert len((await api.allowlists.get()).entries) == 3_000
        assert threads and threading.current_thread().name not in threads
        assert len((await api.allowlists.get()).entries) == 3 and len(threads) == 1
        assert api.allowlists.version() == "v3"
        await api.aclose()
