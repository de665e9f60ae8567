"""What the Profiles dialog's fields hold and the checks they pass before a profile is kept: Qt-free, so the
rules are tested without widgets and the dialog only shows fields, errors and results
(app/services/session/profile_editing.py sequences the saving)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from app.common.engine_kind import EngineKind
from app.common.proxy_url import BadProxyUrl, parse_proxy_url
from app.common.wording import in_sentence
from app.core.profile import Profile

# The secrets a profile can hold, each kept in the keychain under its name, never in a file.
SECRET_FIELDS = (
    ("api_key", "API key"),
    ("admin_key", "Admin key"),
    ("client_key_password", "Client key passphrase"),
    ("proxy_password", "Proxy password"),
)
TEXT_FIELDS = (
    ("name", "Name"),
    ("base_url", "Base URL"),
    ("org_id", "Organization id"),
    ("project_id", "Project id"),
    ("brand", "Brand word"),
    ("models", "Models (comma-separated)"),
    ("ca_bundle", "CA bundle file"),
    ("client_cert", "Client certificate"),
    ("client_key", "Client key file"),
    ("proxy", "Proxy URL"),
)
# Fields naming a file, which must exist when set: a missing one would fail only at the first request.
PATH_FIELDS = ("ca_bundle", "client_cert", "client_key", "model_file")
# The embedded sandbox sets these itself at each start; its profile shows them read-only and keeps none typed.
SANDBOX_OWNED = ("base_url", "org_id", "project_id")


@dataclass
class ProfileForm:
    """What the person typed: each text field as typed (`model_file` included), the engine chosen, the first
    byte wait, WebSocket mode, and the secrets (an empty one keeps what is stored)."""

    texts: dict[str, str]
    engine: object = None  # the engine box's data: EngineKind.read decides what it names
    first_byte_wait: int = 300
    websocket_mode: bool = False
    secrets: dict[str, str] = field(default_factory=dict)


def apply_form(profile: Profile, form: ProfileForm) -> Profile:
    """The profile with the form's values in it (changed in place, and returned)."""
    for name, _ in TEXT_FIELDS:
        if profile.is_sandbox and name in SANDBOX_OWNED:
            continue
        text = form.texts.get(name, "").strip()
        if name == "models":
            profile.models = [model.strip() for model in text.split(",") if model.strip()]
        else:
            setattr(profile, name, text)
    if profile.is_sandbox:
        profile.engine = EngineKind.read(form.engine)
        profile.model_file = form.texts.get("model_file", "").strip()
    profile.first_byte_wait = form.first_byte_wait
    profile.websocket_mode = form.websocket_mode
    return profile


def secret_env(profile: Profile, name: str) -> str | None:
    """The environment variable a secret may come from instead of the keychain (the two keys have one)."""
    return {"api_key": profile.api_key_env, "admin_key": profile.admin_key_env}.get(name)


def secret_label(name: str) -> str:
    return dict(SECRET_FIELDS)[name]


def missing_file(profile: Profile) -> str | None:
    """The first path field naming something that is not a file, as typed; None when all are files."""
    for name in PATH_FIELDS:
        value: str = getattr(profile, name)
        if value and not Path(value).expanduser().is_file():
            return value
    return None


def form_problem(profile: Profile) -> str | None:
    """Why the profile cannot be kept as it is (its proxy and files apart), as the dialog says it."""
    return None if profile.name else "✗ A profile needs a name."


@dataclass(frozen=True)
class ProxyHint:
    """The one short line under the Proxy URL field, and the whole sentence behind it."""

    text: str
    tooltip: str = ""


def proxy_hint(text: str) -> ProxyHint:
    """What a Proxy URL being typed will be used as, or why it cannot be one."""
    if not text.strip():
        return ProxyHint("")
    try:
        proxy = parse_proxy_url(text)
    except BadProxyUrl as error:
        return ProxyHint(f"✗ {error.short}", str(error))
    moved = " (password to the keychain)" if proxy.password else ""
    return ProxyHint(f"→ {proxy.public}{moved}")


@dataclass(frozen=True)
class SplitProxy:
    """A proxy URL taken apart for keeping: the URL without its password, and the password it carried."""

    public: str
    password: str


def split_proxy(text: str) -> SplitProxy | None:
    """The URL and its password when the URL carries one (to be masked and kept apart); None when it carries
    none or cannot be a proxy URL."""
    try:
        proxy = parse_proxy_url(text)
    except BadProxyUrl:
        return None
    return SplitProxy(proxy.public, proxy.password) if proxy.password else None


def keep_proxy(profile: Profile, typed_password: str) -> str:
    """The profile's Proxy URL as it is kept (scheme added, password out): set on the profile. Returns the
    password to put in the Proxy password field: the URL's, when none was typed there ("" for none).
    Raises BadProxyUrl when the text cannot be a proxy URL."""
    if not profile.proxy:
        return ""
    proxy = parse_proxy_url(profile.proxy)
    profile.proxy = proxy.public
    return proxy.password if proxy.password and not typed_password else ""


def secret_placeholder(source: str, sandbox: bool, env: str | None) -> str:
    """What an empty secret field says about the value kept for it (`source` as SecretStore.source says)."""
    return {
        "keychain": "stored in the keychain",
        "session": "minted by the console for this session" if sandbox else "kept for this session",
        "environment": f"from ${env}",
        "none": "not set",
    }[source]


def secrets_sentence(sources: list[tuple[str, str]], problem: str | None) -> str:
    """Where each secret comes from (label, source), after what is wrong with the keychain if anything is."""
    said = "; ".join(f"{label}: {source}" for label, source in sources)
    warning = f"⚠ {problem} " if problem else ""
    return f"{warning}Secrets: {said}. Leave a secret field empty to keep what is stored."


def stored_sentence(kept: list[tuple[str, str]]) -> str:
    """What Save says of the secrets it stored, each named (label, where: "keychain" or "session")."""
    if not kept:
        return "✓ Saved."
    places = {"keychain": "kept in the keychain", "session": "kept for this session only"}
    said = []
    for where in dict.fromkeys(place for _label, place in kept):
        names = [in_sentence(label) for label, place in kept if place == where]
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        said.append(f"{listed} {places.get(where, f'kept in the {where}')}")
    return f"✓ Saved; {'; '.join(said)}."


def keychain_refusal(label: str, error: object, env: str | None) -> str:
    """The profile is kept but a secret is not: why, and the ways to keep it."""
    instead = f" Set ${env} in the environment instead, or" if env else ""
    return (
        f"✓ Profile saved. ✗ {label} not saved: {error}{instead} unlock or install a keychain"
        " and save again (the field keeps what you typed)."
    )
