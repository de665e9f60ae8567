"""Your public IP as echo services see it (IPv4 and IPv6 apart), beside the IP the service sees.

The services are settings (the settings file's `echo` section), off until the admin switches them on: they are third-party
hosts that learn the admin's address. Once on, lookups run on their own only for profiles of a hosted
service, never for the local sandbox (whose view of you is loopback or the simulated IP), never while the
service itself is unreachable (offline), and never when SERVICE_CONSOLE_ECHO=off (the tests set it). They go
through the profile's proxy (else the environment's, $HTTPS_PROXY) and trust its CA bundle, as the
service's requests do.
"""

from __future__ import annotations

import asyncio
import html
import os

from PySide6.QtCore import QObject, Signal

from app.core.settings import EchoSettings, SettingsFile
from app.services.session.session import ConnectionState, ConsoleSession

__all__ = ["EchoSettings", "PublicIpService"]


SANDBOX_NOTE = "Not asked for the local sandbox: it sees you as loopback or its simulated IP."


class PublicIpService(QObject):
    looked_up = Signal(str)  # a sentence for the Security tab, in rich text (network parts escaped)

    def __init__(
        self, session: ConsoleSession, settings: SettingsFile, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.settings = settings
        self.text = ""
        self.answers: dict[int, str] = {}  # family -> address, from the last lookup
        self.details: list[str] = []  # why a family found none, a line each (the label's tooltip)

    @property
    def echo(self) -> EchoSettings:
        """The echo services as saved; off, whatever is saved, when SERVICE_CONSOLE_ECHO=off."""
        echo = self.settings.load().echo
        echo.enabled = echo.enabled and os.environ.get("SERVICE_CONSOLE_ECHO") != "off"
        return echo

    def save_echo(self, echo: EchoSettings) -> None:
        """Keep the echo services the person chose, then look up with them when that is due."""
        self.settings.update(lambda settings: setattr(settings, "echo", echo))
        self.maybe_lookup()

    def maybe_lookup(self) -> None:
        """The automatic lookup: hosted profiles only, when enabled and the service is reachable."""
        profile = self.session.profile
        echo = self.echo
        if profile is None or profile.is_sandbox:
            self._say("")
        elif not echo.enabled:
            self._say("Public IP lookup is off (Echo services…).")
        elif self.session.state == ConnectionState.DOWN:
            self._say("Offline: public IP lookup skipped.")
        else:
            self.lookup()

    @property
    def allowed(self) -> bool:
        """Echo services are asked for hosted profiles only: the local sandbox sees loopback or the
        simulated IP, which no public service can tell, and asking would tell them you run the console."""
        return self.session.profile is not None and not self.session.profile.is_sandbox

    def lookup(self) -> None:
        """Look up now, as asked (the button): both families at once."""
        if not self.allowed:
            self._say(SANDBOX_NOTE)
            return
        echo = self.echo
        if not (echo.ipv4 or echo.ipv6):
            self._say("No echo service is set (Echo services…).")
            return
        self._say("Looking up your public IP…")
        self.session.tasks.start("public_ip", self._lookup(echo))

    async def _lookup(self, echo: EchoSettings) -> None:
        from app.api.echo import lookup
        from app.common.proxy_url import BadProxyUrl

        profile = self.session.profile
        proxy, ca_bundle, trust_env = None, None, True
        if profile is not None and not profile.is_sandbox:
            try:
                settings = self.session.settings_for(profile)
            except BadProxyUrl as error:
                self._say(f"Public IP lookup skipped: {html.escape(str(error))}")
                return
            proxy, ca_bundle, trust_env = settings.proxy, settings.ca_bundle, settings.trust_env
        results = await asyncio.gather(
            lookup(echo.ipv4, 4, proxy, ca_bundle, trust_env),
            lookup(echo.ipv6, 6, proxy, ca_bundle, trust_env),
            return_exceptions=True,
        )
        parts = []
        self.answers = {}
        self.details = []
        for family, result in zip((4, 6), results, strict=True):
            if isinstance(result, BaseException):
                asked = (echo.ipv4, echo.ipv6)[family == 6]
                if asked:  # the label says it short; the tooltip says what each service answered
                    parts.append(f"IPv{family}: none")
                    self.details.append(f"IPv{family}: {result}")
            else:
                self.answers[family] = result.address
                address, service = html.escape(result.address), html.escape(result.service)
                parts.append(f"IPv{family} <b>{address}</b> (by {service})")
        self._say("Public echo services see: " + " · ".join(p for p in parts if p) + ".")

    def _say(self, text: str) -> None:
        if not text.startswith("Public echo services see"):
            self.details = []
        self.text = text
        self.looked_up.emit(text)
