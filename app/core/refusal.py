"""Which IP allowlist refused a request: the console reads the organization's and the project's lists
through the Admin API and asks netrules' policy, the rule the service applies. The service's 403 does not
say which list refused, and must not (it answers before it knows who is asking).

Shared by both tabs, so it belongs to neither tab's package: the Playground service runs `find_refusal`
after a 403 and the turn view shows the words below; the Security tab's allow flow runs it too.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.api.errors import ApiError, IpNotAllowed
from app.netrules import Address, EntryError, EntryIndex, parse_address
from app.netrules.policy import ListAnswer, Verdict, answer, verdict

if TYPE_CHECKING:  # pydantic and httpx load with the client, after the window shows
    from app.api.admin import Allowlist
    from app.api.client import ServiceClient

ORGANIZATION: tuple[str | None, ...] = (None,)  # the organization's list, in a tuple of lists to fix


@dataclass(frozen=True)
class Refusal:
    """What the console found out about a 403 from the allowlist, for the address the service saw."""

    source_ip: str | None
    project_id: str | None  # the project of the profile's key, whose list applies with the organization's
    verdict: Verdict | None = None  # None: the lists could not be read
    problem: str = ""  # why they could not be, in words

    @property
    def lists_to_fix(self) -> tuple[str | None, ...]:
        """The lists the address must go into, in order: None is the organization's, else a project id.
        When the lists could not be read: each list that applies (one that admits the address is skipped)."""
        project = (self.project_id,) if self.project_id else ()
        if self.verdict is None:
            return ORGANIZATION + project
        return {
            Verdict.ORGANIZATION: ORGANIZATION,
            Verdict.PROJECT: project,
            Verdict.BOTH: ORGANIZATION + project,
        }.get(self.verdict, ())

    @property
    def text(self) -> str:
        """The turn's status line: the 403 and which list refused, or why that is not known."""
        seen = self.source_ip or "an unknown address"
        saw = f"the address the service saw: {seen}."
        if self.verdict == Verdict.ORGANIZATION:
            other = " The project's list admits it." if self.project_id else ""
            return (
                f"403: the organization's IP allowlist refused this request. It does not admit {saw}{other}"
            )
        if self.verdict == Verdict.PROJECT:
            return (
                "403: the project's IP allowlist refused this request. It does not admit "
                f"{saw} The organization's list admits it."
            )
        if self.verdict == Verdict.BOTH:
            return (
                "403: both the organization's and the project's IP allowlists refused this request. "
                f"Neither admits {saw}"
            )
        if self.verdict == Verdict.ADMITTED:
            return (
                f"403: the IP allowlist refused this request from {seen}, but both lists admit that address "
                "now: they changed since. Retry."
            )
        return (
            f"403: the IP allowlist refused this request. The service saw you at {seen}. The allowlists "
            f"could not be read to tell which one refused: {self.problem}"
        )

    @property
    def action(self) -> str:
        """The words of the button that allows the address where it was refused ("" when none is needed)."""
        if self.verdict is None:
            return "Allow this IP in Security…"
        return {
            Verdict.ORGANIZATION: "Allow this IP in the organization's list…",
            Verdict.PROJECT: "Allow this IP in the project's list…",
            Verdict.BOTH: "Allow this IP in both lists…",
        }.get(self.verdict, "")


def reading_text(source_ip: str | None) -> str:
    """The turn's status line while the lists are read."""
    return (
        "403: the IP allowlist refused this request. The service saw you at "
        f"{source_ip or 'an unknown address'}. Reading the allowlists to tell which one…"
    )


def list_answer(data: Allowlist, address: Address, now: float) -> ListAnswer:
    """What a list read says of `address` at `now`: an entry that expired admits nobody, as at the gateway."""
    entries = data.entries
    index = EntryIndex.of_cidrs([entry.cidr for entry in entries], [entry.id for entry in entries])
    return answer(index, data.enabled, address, lambda serial: not entries[serial].expired_at(now))


async def find_refusal(client: ServiceClient, project_id: str | None, source_ip: str | None) -> Refusal:
    """Read the lists that applied to a refused request and say which of them refuses `source_ip`."""
    project_id = project_id or None

    def unknown(problem: str) -> Refusal:
        return Refusal(source_ip, project_id, None, problem)

    try:
        address = parse_address(source_ip or "")
    except EntryError:
        return unknown(
            "the service named no address it saw (an unknown address is refused wherever a list is on)."
        )
    if not client.has_key("admin"):
        return unknown("this profile has no admin key to read them with (File > Profiles).")
    if not client.allowlists.org_id:
        return unknown("this profile names no organization (File > Profiles).")
    try:
        organization = await client.allowlists.get()
        project = await client.allowlists.get(project_id) if project_id else None
    except IpNotAllowed as error:
        if error.source_ip == source_ip:  # the Admin API answers to the organization's list alone
            return unknown(
                "the admin key was refused as well (403) from that address, so the organization's list refuses "
                "it; whether the project's list does too can be read once it admits it."
            )
        return unknown(f"the admin key was refused as well ({error}).")
    except ApiError as error:
        return unknown(f"{error}")
    now = time.time()
    org_answer = list_answer(organization, address, now)
    if project is None:
        if org_answer.admits:
            return unknown(
                f"the organization's list admits {address}, and this profile names no project, whose list "
                "may be the one (set its project id in File > Profiles)."
            )
        return Refusal(source_ip, None, Verdict.ORGANIZATION)
    return Refusal(source_ip, project_id, verdict(org_answer, list_answer(project, address, now)))
