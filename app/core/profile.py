"""A profile (where to connect and how) and the connection settings it gives; Qt-free, so the window and the
command line make their clients the same way. Both keep profiles in the one settings file
(app.core.settings), the window through app/services/session/profiles.py. Also what Get code says of a
profile's network."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from app.common.engine_kind import EngineKind
from app.common.options import described, option

if TYPE_CHECKING:  # httpx-backed: imported when the first client is made, after the window shows
    from app.api.transport import ConnectionSettings
    from app.common.secrets import SecretStore
    from app.core.playground.snippets import SnippetNetwork

SANDBOX_ID = "local-sandbox"
DEFAULT_MODELS = ("pro", "ultra", "think", "think-mini")
SNIPPET_SECRETS = ("proxy_password", "client_key_password")


@dataclass
class Profile:
    """Where the console connects and as whom: the embedded sandbox or a service's base URL, with its ids.

    A new profile field is declared here, once (README: "Settings"): the settings file keeps it, the window
    and the command line read it. Secrets are never fields: the keychain keeps them (app.common.secrets)."""

    id: str = field(metadata=described("The profile's own id; the keychain's entries are named after it"))
    name: str = field(metadata=described("What File > Profiles and `--profile` call it"))
    kind: str = option("remote", "sandbox: the embedded local service; remote: any base URL")
    base_url: str = option("", "The service's base URL, as https://host/v1")
    org_id: str = option("", "The organization whose allowlists the Security tab shows")
    project_id: str = option("", "The project the Playground's requests name")
    brand: str = option("service", "Prefix of the model names and of the key variables ($SERVICE_API_KEY)")
    models: list[str] = option(factory=list, description="The models offered; none: the brand's four")
    simulated_ip: str = option(
        "",
        "Sandbox only: the Playground's requests send it as X-Forwarded-For, which the embedded sandbox trusts",
    )
    engine: EngineKind = option(EngineKind.SIMULATED, "Sandbox only: simulated, or local (GGUF, llama.cpp)")
    model_file: str = option("", "Sandbox only, local engine: a GGUF file (none: the local extra's Gemma)")
    ca_bundle: str = option("", "A PEM file of the CAs to trust besides the system's")
    client_cert: str = option("", "A client certificate (PEM) for services that ask for one")
    client_key: str = option("", "The client certificate's key (PEM); its passphrase is in the keychain")
    proxy: str = option("", "The proxy URL without its password, which the keychain keeps")
    # A buffering proxy sends nothing until the whole answer is there, so this is longer than the
    # whole-request deadline of other calls.
    first_byte_wait: int = option(
        300, "Seconds to wait for a streamed answer's first byte", minimum=1, maximum=3600
    )
    websocket_mode: bool = option(
        False,
        "The Playground sends its responses over one WebSocket per conversation (`response.create` "
        "messages on /v1/responses) instead of one HTTP request each",
    )

    @property
    def is_sandbox(self) -> bool:
        return self.kind == "sandbox"

    @property
    def model_names(self) -> list[str]:
        return self.models or [f"{self.brand}-{name}" for name in DEFAULT_MODELS]

    @property
    def api_key_env(self) -> str:
        return f"{self.env_prefix}_API_KEY"

    @property
    def admin_key_env(self) -> str:
        return f"{self.env_prefix}_ADMIN_KEY"

    @property
    def env_prefix(self) -> str:
        return re.sub(r"[^A-Z0-9]", "_", self.brand.upper()) or "SERVICE"


def new_profile_id() -> str:
    import uuid  # here: uuid imports `platform`, which the first frame does not need

    return f"profile-{uuid.uuid4().hex[:8]}"


def proxy_for(profile: Profile, secrets: SecretStore, password: str | None = None) -> str | None:
    """The profile's proxy URL with its password from the keychain, as httpx takes it; None for no proxy.
    Raises BadProxyUrl for a URL that cannot be one (an old console.ini, or one edited by hand)."""
    from app.common.proxy_url import parse_proxy_url

    if not profile.proxy.strip():
        return None
    proxy = parse_proxy_url(profile.proxy)
    stored = password or secrets.get(profile.id, "proxy_password")
    return proxy.with_password(stored or proxy.password)


def connection_settings(
    profile: Profile, secrets: SecretStore, proxy_password: str | None = None
) -> ConnectionSettings:
    """How to reach the profile's service, its keys from the keychain (or the profile's environment
    variables); the same for the window and the command line. `proxy_password` (typed, not yet saved)
    comes before the stored one."""
    from app.api.transport import ConnectionSettings

    def path(text: str) -> Path | None:
        return Path(text).expanduser() if text else None

    return ConnectionSettings(
        base_url=profile.base_url,
        first_byte_deadline=float(profile.first_byte_wait),
        api_key=secrets.get(profile.id, "api_key", profile.api_key_env),
        admin_key=secrets.get(profile.id, "admin_key", profile.admin_key_env),
        ca_bundle=path(profile.ca_bundle),
        client_cert=path(profile.client_cert),
        client_key=path(profile.client_key),
        client_key_password=secrets.get(profile.id, "client_key_password"),
        proxy=proxy_for(profile, secrets, proxy_password),
        # The embedded sandbox trusts loopback as a proxy (a request without the header is judged by its
        # loopback peer): name loopback itself. The Play IP is the window's, for the Playground's requests
        # (ConsoleSession sets it): never the command line's.
        forwarded_for="127.0.0.1" if profile.is_sandbox else None,
    )


def snippet_network(profile: Profile | None, secrets: SecretStore) -> SnippetNetwork:
    """The profile's proxy and TLS files for Get code: paths and the URL without its password; the secrets
    are named by the environment variables the snippet reads them from."""
    from app.common.proxy_url import BadProxyUrl, parse_proxy_url
    from app.core.playground.snippets import DIRECT, SnippetNetwork

    if profile is None or profile.is_sandbox:
        return DIRECT
    try:
        proxy = parse_proxy_url(profile.proxy) if profile.proxy.strip() else None
    except BadProxyUrl:
        proxy = None
    has = {name: secrets.source(profile.id, name) != "none" for name in SNIPPET_SECRETS}
    return SnippetNetwork(
        proxy=proxy.public if proxy else "",
        proxy_password_env=f"{profile.env_prefix}_PROXY_PASSWORD"
        if proxy and proxy.username and (has["proxy_password"] or proxy.password)
        else "",
        ca_bundle=profile.ca_bundle,
        client_cert=profile.client_cert,
        client_key=profile.client_key,
        passphrase_env=f"{profile.env_prefix}_CLIENT_KEY_PASSPHRASE" if has["client_key_password"] else "",
    )
