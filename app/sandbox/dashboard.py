"""The dashboard: `allowlist` and `keys` of the sandbox's command line, working on the store directly.

The dashboard is how a locked-out admin recovers, as the hosted web dashboard (which the allowlist does
not cover) allows: it never goes through the API, so no allowlist stands in its way. The store's writes
are coroutines; each command runs them to their end with `asyncio.run`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from app.netrules import EntryError, parse_entry
from app.sandbox.store.aggregates import Store


def _owner(store: Store, org: str | None, project: str | None) -> tuple[str, str]:
    if project:
        if store.organizations.project_org(project) is None:
            raise SystemExit(f"error: no project {project}")
        return "project", project
    orgs = [row["id"] for row in store.organizations.orgs()]
    if org:
        if org not in orgs:
            raise SystemExit(f"error: no organization {org}")
        return "organization", org
    if len(orgs) != 1:
        raise SystemExit("error: name the organization with --org")
    return "organization", orgs[0]


STORE_FILE = "sandbox.sqlite3"


def open_existing_store(data: Path) -> Store:
    """The dashboard works on a store that exists: a wrong --data must not quietly create an empty one."""
    path = data.expanduser() / STORE_FILE
    if path.is_file():
        return Store(path)
    nested = data.expanduser() / "sandbox" / STORE_FILE
    hint = (
        f" The console's embedded sandbox keeps its store one level down: use --data {nested.parent}"
        if nested.is_file()
        else " --data is the directory given to `serve --data` (the console's embedded sandbox uses the"
        " `sandbox` folder inside the console's data directory)."
    )
    raise SystemExit(f"error: no sandbox store in {data}.{hint}")


def dashboard_allowlist(args: argparse.Namespace) -> int:
    store = open_existing_store(args.data)
    scope, owner = _owner(store, args.org, args.project)
    if args.action in ("enable", "disable"):
        asyncio.run(store.allowlists.set_enabled(scope, owner, args.action == "enable"))
    elif args.action == "remove":
        for wanted in args.entries:
            key = wanted
            try:
                key = parse_entry(wanted).with_prefixlen
            except EntryError:
                pass
            entry = store.allowlists.find_entry(scope, owner, key)
            if entry is None:
                print(f"no entry {wanted} on the {scope} list", file=sys.stderr)
                return 1
            asyncio.run(store.allowlists.remove_entry(scope, owner, entry.id))
            print(f"removed {entry.id} {entry.cidr}")
    allowlist = store.allowlists.get(scope, owner)
    print(
        f"{scope} {owner}: {'enabled' if allowlist.enabled else 'disabled'}, {len(allowlist.entries)} entries"
    )
    now = store.clock()
    for entry in allowlist.entries:
        expiry = "" if entry.expires_at is None else f" expires_at={entry.expires_at}"
        expiry += " (expired)" if entry.expired(now) else ""
        print(f"  {entry.id}  {entry.cidr:<43} {entry.description}{expiry}")
    return 0


def dashboard_keys(args: argparse.Namespace) -> int:
    store = open_existing_store(args.data)
    _, org = _owner(store, None, None)
    if args.kind == "admin":
        print(asyncio.run(store.keys.create("admin", org, name=args.name)))
        return 0
    project = args.project or store.organizations.projects(org)[0]["id"]
    print(asyncio.run(store.keys.create("project", org, project, args.name)))
    return 0


def dashboard_certificates(args: argparse.Namespace) -> int:
    """Show the certificates and where each is active; `deactivate` switches mutual TLS off (for the given
    ids, or every one everywhere): how an admin locked out by a certificate recovers. A running server
    reads the change within its flush interval (`--usage-flush`, 5 s by default)."""
    from app.sandbox.store.audit import DASHBOARD_ORIGIN

    store = open_existing_store(args.data)
    certificates = store.certificates
    _, org = _owner(store, args.org, None)
    known = {c.id for c in certificates.listed(org)}
    missing = [wanted for wanted in args.ids if wanted not in known]
    if missing:
        print(f"no certificate {', '.join(missing)} in {org}", file=sys.stderr)
        return 1
    if args.action == "deactivate":
        for certificate_id in args.ids or sorted(known):
            for place in certificates.places(certificate_id):
                asyncio.run(certificates.set_active(org, place, [certificate_id], False, DASHBOARD_ORIGIN))
                print(f"deactivated {certificate_id} for {place[0]} {place[1]}")
    for certificate in certificates.listed(org):
        places = ", ".join(f"{scope} {owner}" for scope, owner in certificates.places(certificate.id))
        print(
            f"  {certificate.id}  {certificate.subject}  expires_at={certificate.expires_at}  active: {places or '-'}"
        )
    store.close()
    return 0
