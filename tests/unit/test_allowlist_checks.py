"""What the Security tab shows, computed without Qt: the typed entry's verdict, Check an IP, and the lockout
reasons (never-admitted entries are tested with the policy)."""

from __future__ import annotations

from collections.abc import Callable

from app.core.security.checks import ListToCheck, Tone, candidate, check_ip, enable_lockout, remove_lockout
from app.netrules.index import EntryIndex
from app.netrules.policy import Verdict


def index(*cidrs: str) -> EntryIndex:
    return EntryIndex.of_cidrs(list(cidrs), [f"e{i}" for i in range(len(cidrs))])


def test_a_typed_entry_is_refused_with_fixes_flagged_or_accepted() -> None:
    office = index("198.51.100.0/24")
    assert candidate("  ", office, True) is None
    wrong = candidate("192.168.1.5/24", office, True)
    assert wrong is not None and wrong.tone is Tone.BAD and "192.168.1.0/24" in wrong.suggestions
    assert not wrong.addable
    duplicate = candidate("198.51.100.0/24", office, True)
    assert duplicate is not None and duplicate.text.startswith("✗ Duplicate") and not duplicate.addable
    covered = candidate("198.51.100.8/29", office, True)
    assert covered is not None and covered.tone is Tone.CAUTION and covered.addable
    fine = candidate("203.0.113.7", office, True)
    assert fine is not None and fine.tone is Tone.GOOD and fine.text == "✓ 203.0.113.7/32"
    unloaded = candidate("203.0.113.7", office, loaded=False)
    assert unloaded is not None and unloaded.addable is False
    everyone = candidate("0.0.0.0/0", office, True)
    assert everyone is not None and everyone.admits_everyone


def test_check_an_ip_gives_each_list_and_the_verdict() -> None:
    organization, project = index("198.51.100.0/24"), index("203.0.113.0/24")
    assert check_ip("", [ListToCheck("Organization", True, organization)]) is None
    typo = check_ip("010.0.0.1", [ListToCheck("Organization", True, organization)])
    assert typo is not None and "leading zero" in typo.error
    both = check_ip(
        "198.51.100.9",
        [ListToCheck("Organization", True, organization), ListToCheck("Project", True, project)],
    )
    assert both is not None and both.verdict is Verdict.PROJECT
    assert str(both.lists[0].answer.admitted_by) == "198.51.100.0/24"
    assert str(both.lists[1].answer.nearest) == "203.0.113.0/24"
    off = check_ip("192.0.2.1", [ListToCheck("Organization", False, organization)])
    assert off is not None and off.verdict is Verdict.ADMITTED


def test_lockout_reasons_name_the_address() -> None:
    office = index("198.51.100.0/24")
    assert enable_lockout(office, 1, "198.51.100.7") == ""
    assert "empty" in enable_lockout(index(), 0, "198.51.100.7")
    assert "(203.0.113.1)" in enable_lockout(office, 1, "203.0.113.1")
    assert "unknown" in enable_lockout(office, 1, None)
    assert "(198.51.100.7)" in remove_lockout(office, {"e0"}, "198.51.100.7")
    assert remove_lockout(office, {"e0"}, None) == ""


def test_check_an_ip_skips_an_entry_expired_at_the_moment_asked() -> None:
    """Issue 38: the gateway admits by an entry until its expiry's second; Check an IP asks the same."""
    organization = index("198.51.100.23/32", "203.0.113.0/24")
    expiries = {0: 1_800_000_090}  # serial -> expires_at

    def in_force_at(now: int) -> Callable[[int], bool]:
        return lambda serial: serial not in expiries or now < expiries[serial]

    before = check_ip(
        "198.51.100.23", [ListToCheck("Organization", True, organization, in_force_at(1_800_000_089))]
    )
    assert before is not None and before.verdict is Verdict.ADMITTED
    after = check_ip(
        "198.51.100.23", [ListToCheck("Organization", True, organization, in_force_at(1_800_000_090))]
    )
    assert after is not None and after.verdict is Verdict.ORGANIZATION
    assert (
        after.lists[0].answer.admitted_by is None and str(after.lists[0].answer.expired) == "198.51.100.23/32"
    )
