"""The allowlist policy: lockout checks, the organization-AND-project verdict, nearest and never-admitted."""

from __future__ import annotations

import ipaddress

from app.netrules.index import EntryIndex
from app.netrules.policy import (
    ListAnswer,
    Verdict,
    answer,
    enabling_locks_out,
    nearest_entry,
    never_admitted,
    removal_locks_out,
    verdict,
)


def index(*cidrs: str) -> EntryIndex:
    return EntryIndex.of_cidrs(list(cidrs), [f"e{i}" for i in range(len(cidrs))])


def ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ipaddress.ip_address(text)


def test_enabling_locks_out_an_address_no_entry_holds_or_an_unknown_one() -> None:
    office = index("198.51.100.0/24")
    assert not enabling_locks_out(office, ip("198.51.100.7"))
    assert not enabling_locks_out(office, ip("::ffff:198.51.100.7"))  # the one IPv4-mapped rule
    assert enabling_locks_out(office, ip("203.0.113.1"))
    assert enabling_locks_out(office, None)
    assert enabling_locks_out(index(), ip("198.51.100.7"))  # an empty list admits nobody


def test_removal_locks_out_only_when_every_holder_goes() -> None:
    nested = index("198.51.100.0/24", "198.51.100.0/28", "203.0.113.0/24")
    me = ip("198.51.100.7")
    assert not removal_locks_out(nested, {"e0"}, me)  # e1 still holds it
    assert removal_locks_out(nested, {"e0", "e1"}, me)
    assert not removal_locks_out(nested, {"e2"}, me)
    assert not removal_locks_out(nested, {"e0", "e1"}, None)
    assert not removal_locks_out(nested, {"e2"}, ip("192.0.2.1"))  # nobody admits it now: nothing lost


def test_a_list_answers_off_admitted_or_refused_with_the_nearest() -> None:
    office = index("198.51.100.0/24", "2001:db8::/48")
    assert answer(office, False, ip("192.0.2.1")) == ListAnswer(False)
    admitted = answer(office, True, ip("198.51.100.9"))
    assert admitted.admits and str(admitted.admitted_by) == "198.51.100.0/24"
    refused = answer(office, True, ip("198.51.101.1"))
    assert not refused.admits and str(refused.nearest) == "198.51.100.0/24"
    assert str(nearest_entry(office, ip("2001:db9::1"))) == "2001:db8::/48"  # same family only
    assert nearest_entry(index("2001:db8::/48"), ip("192.0.2.1")) is None


def test_the_verdict_names_which_list_refuses() -> None:
    on, off = ListAnswer(True, nearest=None), ListAnswer(False)
    admits = ListAnswer(True, admitted_by=ipaddress.ip_network("192.0.2.0/24"))
    assert verdict(admits) is Verdict.ADMITTED
    assert verdict(off, admits) is Verdict.ADMITTED
    assert verdict(on) is Verdict.ORGANIZATION
    assert verdict(on, admits) is Verdict.ORGANIZATION
    assert verdict(admits, on) is Verdict.PROJECT
    assert verdict(on, on) is Verdict.BOTH


def test_never_admitted_are_the_project_entries_sharing_no_address() -> None:
    organization = index("198.51.100.0/24", "203.0.113.128/25")
    project = index("198.51.100.0/28", "203.0.113.0/24", "192.0.2.0/24", "10.0.0.0/8")
    assert [str(n) for n in never_admitted(organization, project)] == ["192.0.2.0/24", "10.0.0.0/8"]
