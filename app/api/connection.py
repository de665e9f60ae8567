"""How to reach one service (ConnectionSettings), and the checks made before any connection: the base URL,
and the TLS files loaded into an SSL context, each failure said of the file that failed."""

from __future__ import annotations

import os
import ssl
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from . import defaults
from .errors import ApiError, ClientCertificateProblem, TlsFailed


@dataclass
class ConnectionSettings:
    """How to reach one service. Keys live here only in memory; they come from the keychain."""

    base_url: str
    api_key: str | None = None
    admin_key: str | None = None
    ca_bundle: Path | None = None
    client_cert: Path | None = None
    client_key: Path | None = None
    client_key_password: str | None = field(default=None, repr=False)
    proxy: str | None = None
    trust_env: bool = True  # HTTP(S)_PROXY / NO_PROXY from the environment when no proxy is set
    # Sent as X-Forwarded-For (the embedded sandbox trusts loopback as a proxy): `forwarded_for` on every
    # request, the console's own address; `played_ip`, the sandbox profile's Play IP, instead on the API
    # key's requests (the Playground's), so the console's own Admin API calls never play it.
    forwarded_for: str | None = None
    played_ip: str | None = None
    max_retries: int = defaults.MAX_RETRIES
    # The first retry's wait in seconds, doubled per attempt up to BACKOFF_MAX, with jitter; a Retry-After the
    # server sends is waited instead. Small for a peer on this machine (and in tests), where waiting helps little.
    backoff_base: float = defaults.BACKOFF_BASE
    request_deadline: float = defaults.REQUEST_DEADLINE
    # A stream's wait for the answer's head: a buffering proxy sends nothing until the whole answer is there.
    first_byte_deadline: float = defaults.FIRST_BYTE_DEADLINE

    def __repr__(self) -> str:  # never show keys, even in a debugger or a log line
        return (
            f"ConnectionSettings(base_url={self.base_url!r}, api_key={'***' if self.api_key else None}, "
            f"admin_key={'***' if self.admin_key else None})"
        )


def validate_base_url(url: str) -> str:
    """A clear error for a base URL that cannot be one; returns it without a trailing slash."""
    url = url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ApiError(f"'{url}' is not a URL: it should look like https://api.example.com/v1.")
    try:
        _ = parts.port
    except ValueError:
        raise ApiError(f"'{url}' has an invalid port.") from None
    return url


# The default context, per trust_env and the variables that choose its CAs when it is honoured.
_default_contexts: dict[tuple[bool | str, ...], ssl.SSLContext] = {}


def default_ssl_context(trust_env: bool = True) -> ssl.SSLContext:
    """httpx's default context (certifi's CAs, or SSL_CERT_FILE / SSL_CERT_DIR where the environment is
    trusted), made once per process for each environment: every client the console and the command line
    make shares it instead of parsing ~150 CA certificates (~20 ms of CPU) each. What a connection sets on
    it (httpcore's ALPN list) is the same for every client here, all HTTP/1.1; a profile with its own CA
    bundle or client certificate gets a context of its own."""
    import httpx  # when a client is first made: importing this module for ConnectionSettings stays light

    chosen_by = ("SSL_CERT_FILE", "SSL_CERT_DIR") if trust_env else ()
    key: tuple[bool | str, ...] = (trust_env, *(os.environ.get(name, "") for name in chosen_by))
    context = _default_contexts.get(key)
    if context is None:  # two threads at once make two, and one is kept: no harm
        context = _default_contexts[key] = httpx.create_ssl_context(trust_env=trust_env)
    return context


def ssl_context(settings: ConnectionSettings) -> ssl.SSLContext:
    if not (settings.ca_bundle or settings.client_cert):
        return default_ssl_context(settings.trust_env)
    try:
        context = ssl.create_default_context(cafile=str(settings.ca_bundle) if settings.ca_bundle else None)
    except FileNotFoundError:  # OpenSSL's error names no file
        raise TlsFailed(f"The CA bundle {settings.ca_bundle} is missing: no such file.") from None
    except ssl.SSLError:
        raise TlsFailed(f"The CA bundle {settings.ca_bundle} holds no PEM certificate.") from None
    if settings.client_cert:
        # A callable, even for no passphrase: with None, OpenSSL would ask for one on the terminal.
        password = settings.client_key_password or ""
        try:
            context.load_cert_chain(
                str(settings.client_cert),
                str(settings.client_key) if settings.client_key else None,
                lambda: password,
            )
        except FileNotFoundError as error:
            raise TlsFailed(f"A TLS file is missing: {error.filename}.") from None
        except ssl.SSLError:
            from .certificates import key_problem  # cryptography: only once loading failed

            why = key_problem(settings.client_cert, settings.client_key, settings.client_key_password)
            raise ClientCertificateProblem(f"The client certificate could not be loaded: {why}.") from None
    return context
