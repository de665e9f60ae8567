"""The console's settings, one typed model for the window and the command line (napari's settings are the
pattern: nested sections, a `schema_version`, migrations from one version to the next).

A new setting is declared here, once, in the section it belongs to, with `option(default, description,
bounds)`; a new profile field in app/core/profile.py's `Profile`. Nothing else reads the file by key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.common.options import option
from app.core.profile import Profile

SCHEMA_VERSION = 1
# version n -> the function that turns a file of version n into version n + 1 (on its JSON, before reading)
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}

DEFAULT_IPV4 = ["https://api.ipify.org", "https://ipv4.icanhazip.com"]
DEFAULT_IPV6 = ["https://api6.ipify.org", "https://ipv6.icanhazip.com"]


@dataclass
class SandboxSettings:
    """The embedded local sandbox the window runs."""

    port: int = option(
        0,
        "Its port, kept across launches so that copied snippets keep working (0: not chosen yet)",
        minimum=0,
        maximum=65535,
    )


@dataclass
class SecuritySettings:
    """The Security tab."""

    refresh_seconds: int = option(
        30, "How often the shown allowlist is read again while the tab is visible", minimum=5, maximum=86_400
    )
    entry_limit: int = option(
        1000,
        "Entries per list, which the service does not report (its default)",
        minimum=1,
        maximum=1_000_000,
    )
    transfer_folder: str = option("", "The folder the import or export dialog used last")


@dataclass
class EchoSettings:
    """The third-party echo services that tell the admin's public IP; off until the admin switches them on."""

    enabled: bool = option(False, "Look up the public IP with the services below (they learn the address)")
    ipv4: list[str] = option(factory=lambda: list(DEFAULT_IPV4), description="IPv4 echo URLs, tried in turn")
    ipv6: list[str] = option(factory=lambda: list(DEFAULT_IPV6), description="IPv6 echo URLs, tried in turn")


@dataclass
class UiSettings:
    """What the window looked like when the console quit, restored on the next launch."""

    window_geometry: str = option(
        "", "The main window's geometry (Qt's saveGeometry, base64)", max_length=10_000
    )
    window_scale: float = option(
        1.0, "The screen's scale (device pixels per point) the geometry was saved at", minimum=0.1, maximum=16
    )
    tab: int = option(0, "The tab shown (0: Playground)", minimum=0, maximum=100)
    playground: dict[str, Any] = option(
        factory=dict, description="The Playground's model, switches and options (read by PlaygroundState)"
    )
    conversation: str = option("", "The conversation open at the last quit", max_length=256)
    security_scope: str = option(
        "", "The Security tab's list: empty for the organization's, else a project id"
    )


@dataclass
class ConsoleSettings:
    """Everything the console keeps between launches except secrets (the keychain keeps those) and data
    (conversations and the sandbox's store, in the data folder)."""

    schema_version: int = option(SCHEMA_VERSION, "The version of this layout; older files are migrated")
    current_profile: str = option("", "The id of the profile the console connects with")
    profiles: list[Profile] = option(factory=list, description="Where to connect and how (File > Profiles)")
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    security: SecuritySettings = field(default_factory=SecuritySettings)
    echo: EchoSettings = field(default_factory=EchoSettings)
    ui: UiSettings = field(default_factory=UiSettings)

    def find(self, name_or_id: str) -> Profile | None:
        """A profile by its id or its name (as File > Profiles shows it, case ignored)."""
        wanted = name_or_id.strip().casefold()
        return next((p for p in self.profiles if p.id == name_or_id or p.name.casefold() == wanted), None)
