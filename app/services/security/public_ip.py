"""Your public IP as echo services see it (IPv4 and IPv6 apart), beside the IP the service sees.

The services are settings (QSettings `echo/…`), off until the admin switches them on: they are third-party
hosts that learn the admin's address. Once on, lookups run on their own only for profiles of a hosted
service, never for the local sandbox (whose view of you is loopback or the simulated IP), never while the
service itself is unreachable (offline), and never when SERVICE_CONSOLE_ECHO=off (the tests set it). They go
through the profile's proxy and trust its CA bundle, as the service's requests do.
"""

from __future__ import annotations

import asyncio
import html
import os
from dataclasses import dataclass

from PySide6.QtCore import QObject, QSettings, Signal

from app.services.session.session import ConnectionState, ConsoleSession

DEFAULT_IPV4 = ("https://api.ipify.org", "https://ipv4.icanhazip.com")
DEFAULT_IPV6 = ("https://api6.ipify.org", "https://ipv6.icanhazip.com")


@dataclass
class EchoSettings:
    enabled: bool
    ipv4: list[str]
    ipv6: list[str]

    @classmethod
    def load(cls, settings: QSettings) -> EchoSettings:
        def urls(key: str, default: tuple[str, ...]) -> list[str]:
            value = settings.value(key)
            if value is None:
                return list(default)
            items = value if isinstance(value, list) else str(value).split()
            return [str(u).strip() for u in items if str(u).strip()]

        enabled = settings.value("echo/enabled", False)
        return cls(
            str(enabled).lower() not in ("false", "0", "no")
            and os.environ.get("SERVICE_CONSOLE_ECHO") != "off",
            urls("echo/ipv4", DEFAULT_IPV4),
            urls("echo/ipv6", DEFAULT_IPV6),
        )

    def save(self, settings: QSettings) -> None:
        settings.setValue("echo/enabled", self.enabled)
        settings.setValue("echo/ipv4", self.ipv4)
        settings.setValue("echo/ipv6", self.ipv6)
        settings.sync()


SANDBOX_NOTE = "Not asked for the local sandbox: it sees you as loopback or its simulated IP."


class PublicIpService(QObject):
    looked_up = Signal(str)  # a sentence for the Security tab, in rich text (network parts escaped)

    def __init__(self, session: ConsoleSession, settings: QSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.settings = settings
        self.text = ""
        self.answers: dict[int, str] = {}  # family -> address, from the last lookup
        self.details: list[str] = []  # why a family found none, a line each (the label's tooltip)

    @property
    def echo(self) -> EchoSettings:
        return EchoSettings.load(self.settings)

    def save_echo(self, echo: EchoSettings) -> None:
        """Keep the echo services the person chose, then look up with them when that is due."""
        echo.save(self.settings)
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
        proxy, ca_bundle = None, None
        if profile is not None and not profile.is_sandbox:
            try:
                settings = self.session.settings_for(profile)
            except BadProxyUrl as error:
                self._say(f"Public IP lookup skipped: {html.escape(str(error))}")
                return
            proxy, ca_bundle = settings.proxy, settings.ca_bundle
        results = await asyncio.gather(
            lookup(echo.ipv4, 4, proxy, ca_bundle),
            lookup(echo.ipv6, 6, proxy, ca_bundle),
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
