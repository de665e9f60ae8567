"""A CI job's own entry: `add --for-this-job` marks the entry it adds with the job's id, and
`remove --added-by-this-job` removes the entries so marked, the lockout guard waived for them alone.

The guard keeps a person from locking themselves out; a job's last step removing the entry that let its
runner in is meant to do exactly that, and the entry is known to be the job's own (its mark names this job,
so another job's entry, or a person's, is never taken). The job's id comes from `$SERVICE_JOB_ID`, or from
the CI's own variables (GitHub Actions, GitLab CI, Jenkins).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from app.netrules.transfer import DESCRIPTION_LIMIT

from .outcome import CommandFailed, Exit, Outcome

if TYPE_CHECKING:
    from .allowlist import AllowlistCommands


def job_id(environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    if env.get("SERVICE_JOB_ID"):
        return env["SERVICE_JOB_ID"]
    if env.get("GITHUB_RUN_ID"):
        parts = [env["GITHUB_RUN_ID"], env.get("GITHUB_RUN_ATTEMPT", "1"), env.get("GITHUB_JOB", "")]
        return "gh-" + "-".join(part for part in parts if part)
    if env.get("CI_JOB_ID"):
        return "gl-" + env["CI_JOB_ID"]
    if env.get("BUILD_TAG"):
        return env["BUILD_TAG"]
    raise CommandFailed(
        Exit.USAGE,
        "No CI job id: set $SERVICE_JOB_ID (GitHub Actions, GitLab CI and Jenkins set one of their own).",
    )


def mark(job: str) -> str:
    return f"[job {job}]"


def marked(description: str, job: str) -> str:
    """The description with this job's mark at its end (the text before it shortened to fit)."""
    tag = mark(job)
    room = DESCRIPTION_LIMIT - len(tag) - 1
    text = description.strip()[: max(room, 0)]
    return f"{text} {tag}" if text else tag


async def remove_job_entries(commands: AllowlistCommands) -> Outcome:
    """Remove every entry this job's `add --for-this-job` made; none is not an error."""
    from app.api.errors import NotFound

    from .allowlist import entry_json

    tag = mark(job_id())
    data = await commands.read()
    mine = [entry for entry in data.entries if entry.description.endswith(tag)]
    for entry in mine:
        try:
            await commands.lists.remove(entry.id, commands.state.project_id, force=True, if_match=False)
        except NotFound:
            pass  # gone meanwhile (expired and swept, or removed by hand): what this step wanted
    now = time.time()
    lines = [f"Removed {entry.cidr} ({entry.id}), added by this job." for entry in mine]
    return Outcome(
        lines or [f"No entry marked {tag}: nothing to remove."],
        {**commands.scope, "removed": [entry_json(e, now) for e in mine], "not_listed": []},
    )
