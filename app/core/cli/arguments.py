"""The arguments of `service-console allowlist ...`: argparse, with what a script and a key need of it.

argparse prints its own errors and exits; here they end as every other failure does (one sentence, exit 2,
and the JSON error under `--json`). A key typed as an argument is refused before anything reads it, and is
never printed: an argument shows in `ps` and the shell's history, and a message would copy it into a log.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NoReturn

from .outcome import CommandFailed, Exit

COMMANDS = ("list", "add", "remove", "check", "enable", "disable", "whoami")
POLICY_COMMANDS = ("plan", "apply", "export")  # on a policy file (app.core.cli.policy)
KEY_PREFIX = "sk-"  # how the service's keys start, admin and project keys alike
KEY_VARIABLES = ("_ADMIN_KEY", "_API_KEY")  # environment variables whose values are keys
KEY_REFUSED = (
    "An argument is a key (it is not shown here): keys come from the keychain or $SERVICE_ADMIN_KEY, never "
    "from an argument, which `ps` and the shell's history show. Remove it from the history, and replace the "
    "key if others can read either."
)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are CommandFailed(USAGE), printed as the other failures are."""

    def error(self, message: str) -> NoReturn:
        raise CommandFailed(Exit.USAGE, f"{message} (`{self.prog} --help` lists the arguments).")


def seconds(text: str) -> float:
    """A number of seconds: finite, 0 or more (argparse's type for --wait-timeout)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("give a number of seconds, as 120") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError("give a number of seconds, 0 or more, as 120")
    return value


def parser() -> Parser:
    made = Parser(
        prog="service-console allowlist",
        description="The IP allowlists of an organization and its projects, for scripts and CI. Keys come "
        "from the profile's keychain entry or from $SERVICE_ADMIN_KEY, never from an argument.",
        epilog="Exit codes: 0 done; 1 refused by the lockout guard (nothing changed); 2 usage; "
        "3 authentication or permission; 4 network (or not admitted within --wait-timeout); 5 plan: something "
        "would change, or apply: the list changed since the plan.",
        allow_abbrev=False,  # a script's option is the one it names, and --json is found before parsing
    )
    made.add_argument("command", choices=COMMANDS + POLICY_COMMANDS)
    made.add_argument(
        "targets",
        nargs="*",
        metavar="ENTRY",
        help="add: the address or range (default: this machine's, as the service sees it); remove: entries "
        "by address or id; check: the address (default: this machine's)",
    )
    made.add_argument(
        "--profile", help="a profile saved in the console (its name or id); the only one when there is one"
    )
    made.add_argument("--home", type=Path, help="the console's --home folder, if it was started with one")
    made.add_argument("--project", help="a project's list (its id or name) instead of the organization's")
    made.add_argument("--expires", help="add: the entry expires after 90s, 30m, 2h, 1d, 1w, or at a date")
    made.add_argument("--description", default="", help="add: what the entry is for")
    made.add_argument("--wait", action="store_true", help="add: wait until the service admits the address")
    made.add_argument(
        "--wait-timeout", type=seconds, default=120.0, help="add --wait: give up after (s; 0 or more)"
    )
    made.add_argument("--json", action="store_true", help="print one JSON object (README: its fields)")
    made.add_argument("--force", action="store_true", help="make a change the lockout guard refuses")
    made.add_argument(
        "--days", type=int, default=30, help="plan: the days of use shown for each entry it removes"
    )
    made.add_argument(
        "--plan", type=Path, help="apply: only if the plan is still the one `plan --json` saved to this file"
    )
    made.add_argument(
        "--for-this-job", action="store_true", help="add: mark the entry as this CI job's ($SERVICE_JOB_ID)"
    )
    made.add_argument(
        "--added-by-this-job",
        action="store_true",
        help="remove: the entries `add --for-this-job` made in this CI job, the lockout guard waived for them",
    )
    return made


def wants_json(argv: Sequence[str]) -> bool:
    """Whether `--json` is among the options (before any `--`), known before argparse has read them."""
    options = argv[: list(argv).index("--")] if "--" in argv else argv
    return "--json" in options


def refuse_keys(argv: Sequence[str], environ: Mapping[str, str]) -> None:
    """CommandFailed(USAGE) when an argument is a key: one that starts as the service's keys do, or the
    value of a key variable in the environment (pasted from it)."""
    known = {value for name, value in environ.items() if name.endswith(KEY_VARIABLES) and len(value) >= 8}
    for token in argv:
        value = token.partition("=")[2] if token.startswith("--") else token
        if value.strip().lower().startswith(KEY_PREFIX) or value in known or token in known:
            raise CommandFailed(Exit.USAGE, KEY_REFUSED)
