"""The dry run's evidence: for each entry a plan removes, what it admitted lately (its hits, when it last
matched, and the source addresses it admitted, busiest first) and which of those the list as planned would
refuse, so a reviewer sees who a removal cuts off before it is made."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from app.core.security.policy_plan import ListPlan
from app.core.security.sources import refused_after, within

if TYPE_CHECKING:
    from app.api.client import ServiceClient

SHOWN_SOURCES = 5  # per entry in the plan's text; --json gives them all
DAY = 86_400


def _last(seconds: int | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds)) if seconds else "never"


async def add_evidence(client: ServiceClient, plan: ListPlan, days: int) -> ListPlan:
    """The plan with what each entry it removes admitted in the last `days` days."""
    if not plan.remove:
        return plan
    from app.api.allowlist_changes import admitted_sources

    now = time.time()
    sources = await admitted_sources(client.allowlists, plan.project_id, int(now) - days * DAY)
    after = [(e.cidr, e.expires_at) for e in plan.policy.entries]
    refused = refused_after([s.source_ip for s in sources or ()], plan.enabled_after, after, now)
    evidence: dict[str, Any] = {}
    for entry in plan.remove:
        data: dict[str, Any] = {
            "days": days,
            "hit_count": entry.hit_count,
            "last_matched_at": entry.last_matched_at,
        }
        lines = [f"{entry.hit_count:,} hits in all, last matched {_last(entry.last_matched_at)}"]
        if sources is not None:  # a service that keeps no sources per list: hits and last match only
            inside = set(within([s.source_ip for s in sources], entry.cidr))
            admitted = [s for s in sources if s.source_ip in inside]  # busiest first, as the service sends
            data["sources"] = [
                {
                    "source_ip": s.source_ip,
                    "hits": s.hits,
                    "last_seen": s.last_seen,
                    "refused_after": s.source_ip in refused,
                }
                for s in admitted
            ]
            cut = sum(s.source_ip in refused for s in admitted)
            lines.append(
                f"last {days} days: {sum(s.hits for s in admitted):,} requests from {len(admitted):,} "
                f"addresses, {cut:,} of them refused after this change"
            )
            for source in admitted[:SHOWN_SOURCES]:
                verdict = "refused after" if source.source_ip in refused else "still admitted"
                lines.append(f"  {source.source_ip:<39} {source.hits:>8,}  {verdict}")
            if len(admitted) > SHOWN_SOURCES:
                lines.append(f"  … and {len(admitted) - SHOWN_SOURCES:,} more (--json lists them)")
        evidence[entry.id] = {"data": data, "lines": lines}
    return replace(plan, evidence=evidence)
