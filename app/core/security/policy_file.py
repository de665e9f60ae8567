"""The allowlists as a policy file (TOML) under review: the organization's list and each project's, each
with its switch and its entries (address, description, expiry).

```toml
[organization]
enabled = true

[[organization.entries]]
cidr = "203.0.113.0/24"
description = "office"
expires = 2027-01-31T00:00:00Z   # optional: a TOML date-time (UTC when it names no offset)

[projects."ci"]                  # by the project's name or id
enabled = true
entries = []
```

A list the file does not name is left alone; `enabled` left out leaves the switch as it is. Reading for a
plan uses the standard library's parser (fast: a plan of 1,000 entries stays well under a second); writing
(`export`) edits the file with tomlkit, so its comments and order survive, an entry kept keeping its own.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import tomlkit
from tomlkit.items import AoT, Table

from app.netrules import EntryError, canonical_entry

ORGANIZATION = "organization"
PROJECTS = "projects"


class PolicyError(ValueError):
    """A policy file that cannot be read: the message names where."""


@dataclass(frozen=True)
class PolicyEntry:
    cidr: str  # canonical
    description: str = ""
    expires_at: int | None = None  # Unix seconds; None: never


@dataclass(frozen=True)
class ListPolicy:
    project: str | None  # None: the organization's list; otherwise a project's name or id as written
    enabled: bool | None  # None: the switch is left as it is
    entries: tuple[PolicyEntry, ...]

    @property
    def label(self) -> str:
        return "organization" if self.project is None else f"project {self.project}"


@dataclass(frozen=True)
class Policy:
    lists: tuple[ListPolicy, ...]


def _expiry(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return int(moment.timestamp())
    if isinstance(value, dt.date):
        return int(dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC).timestamp())
    raise PolicyError(f"{where}: 'expires' must be a TOML date-time such as 2027-01-31T00:00:00Z.")


def _entries(raw: Any, where: str) -> tuple[PolicyEntry, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise PolicyError(f"{where}: 'entries' must be an array of tables ([[...entries]]).")
    entries: dict[str, PolicyEntry] = {}
    for number, item in enumerate(raw, 1):
        here = f"{where}, entry {number}"
        if not isinstance(item, dict) or not isinstance(item.get("cidr"), str):
            raise PolicyError(f"{here}: each entry needs a 'cidr' string.")
        unknown = set(item) - {"cidr", "description", "expires"}
        if unknown:
            raise PolicyError(f"{here}: unknown field {sorted(unknown)[0]!r} (cidr, description, expires).")
        try:
            cidr = canonical_entry(item["cidr"].strip())
        except EntryError as error:
            raise PolicyError(f"{here}: {item['cidr']}: {error.message}") from None
        if cidr in entries:
            raise PolicyError(f"{here}: {cidr} is listed twice.")
        description = item.get("description", "")
        if not isinstance(description, str):
            raise PolicyError(f"{here}: 'description' must be a string.")
        entries[cidr] = PolicyEntry(cidr, description, _expiry(item.get("expires"), here))
    return tuple(entries.values())


def _list(project: str | None, raw: Any, where: str) -> ListPolicy:
    if not isinstance(raw, dict):
        raise PolicyError(f"{where} must be a table.")
    unknown = set(raw) - {"enabled", "entries"}
    if unknown:
        raise PolicyError(f"{where}: unknown field {sorted(unknown)[0]!r} (enabled, entries).")
    enabled = raw.get("enabled")
    if enabled is not None and not isinstance(enabled, bool):
        raise PolicyError(f"{where}: 'enabled' must be true or false.")
    return ListPolicy(project, enabled, _entries(raw.get("entries"), where))


def load_policy(text: str) -> Policy:
    """The lists a policy file describes; PolicyError naming the place of the first mistake."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PolicyError(f"Not TOML: {error}.") from None
    unknown = set(data) - {ORGANIZATION, PROJECTS}
    if unknown:
        raise PolicyError(f"Unknown table [{sorted(unknown)[0]}] (organization, projects).")
    lists = []
    if ORGANIZATION in data:
        lists.append(_list(None, data[ORGANIZATION], "[organization]"))
    projects = data.get(PROJECTS, {})
    if not isinstance(projects, dict):
        raise PolicyError("[projects] must be a table of projects.")
    lists += [_list(name, raw, f"[projects.{name}]") for name, raw in projects.items()]
    return Policy(tuple(lists))


# -- writing -----------------------------------------------------------------------------------------

HEADER = (
    "The IP allowlists as code: `service-console allowlist plan FILE` shows what applying this file "
    "would change, `apply FILE` makes exactly that. A list not named here is left alone."
)


def _stamp(expires_at: int | None) -> dt.datetime | None:
    return None if expires_at is None else dt.datetime.fromtimestamp(expires_at, dt.UTC)


def _fill(entry_table: Table, entry: PolicyEntry) -> None:
    """Set an entry's values in place (its comments stay), dropping what it no longer has."""
    entry_table["cidr"] = entry.cidr
    if entry.description:
        entry_table["description"] = entry.description
    elif "description" in entry_table:
        del entry_table["description"]
    stamp = _stamp(entry.expires_at)
    if stamp is not None:
        entry_table["expires"] = stamp
    elif "expires" in entry_table:
        del entry_table["expires"]


def _write_list(table: Table, listed: ListPolicy) -> None:
    if listed.enabled is not None:
        table["enabled"] = listed.enabled
    old = table.get("entries")
    kept: dict[str, Table] = {}
    if isinstance(old, AoT):
        for item in old:
            cidr = item.get("cidr")
            if isinstance(cidr, str):
                try:
                    kept.setdefault(canonical_entry(cidr.strip()), item)
                except EntryError:
                    pass  # a line that was no address goes: the list as it stands replaces it
    entries = AoT([])
    for entry in listed.entries:
        item = kept.get(entry.cidr) or tomlkit.table()
        _fill(item, entry)
        entries.append(item)
    if "entries" in table:
        del table["entries"]
    table["entries"] = entries


def export_policy(lists: Sequence[ListPolicy], existing: str | None = None) -> str:
    """`lists` as a policy file; written into `existing` (a policy file's text) when given, so its comments,
    its order and the lists it names that are not in `lists` stay as they are."""
    document = tomlkit.parse(existing) if existing else tomlkit.document()
    if not existing:
        document.add(tomlkit.comment(HEADER))
    for listed in lists:
        if listed.project is None:
            if ORGANIZATION not in document:
                document[ORGANIZATION] = tomlkit.table()
            table = document[ORGANIZATION]
        else:
            if PROJECTS not in document:
                document[PROJECTS] = tomlkit.table(is_super_table=True)
            projects = document[PROJECTS]
            assert isinstance(projects, Table)
            if listed.project not in projects:
                projects[listed.project] = tomlkit.table()
            table = projects[listed.project]
        assert isinstance(table, Table)
        _write_list(table, listed)
    return tomlkit.dumps(document)
