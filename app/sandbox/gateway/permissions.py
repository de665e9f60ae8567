"""What a key's permissions allow (docs/contract.md, "Keys"): every endpoint, reading only, or a set of
endpoint groups (the path's first segment after /v1: models, responses, conversations, organizations)."""

from __future__ import annotations

from app.sandbox.errors import error_bytes

READ_METHODS = frozenset({"GET", "HEAD"})
ENDPOINT_GROUPS = ("models", "responses", "conversations", "organizations")


def refusal(permissions: str | tuple[str, ...], method: str, path: str) -> bytes | None:
    """The 403 body refusing this request to a key with these permissions, or None when they allow it.
    Only asked for keys whose permissions are not "all"."""
    if permissions == "read_only":
        if method in READ_METHODS:
            return None
        message = f"This API key is read-only: it cannot {method} {path}."
    else:
        group = path.split("/", 3)[2] if path.count("/") >= 2 else ""
        if group in permissions:
            return None
        allowed = ", ".join(permissions) or "none"
        message = f"This API key may call only these endpoints: {allowed}; not /v1/{group}."
    return error_bytes(403, message, "insufficient_permissions")
