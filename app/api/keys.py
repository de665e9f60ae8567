"""The Admin API's keys: the organization's admin keys, each project's API keys, and the service accounts
that own project keys (docs/contract.md, "Keys"). A created key's value is held in `CreatedKey.value` only,
never in a repr; the lists carry the redacted form the service shows."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field, field_validator

from .admin import Deleted, parse
from .errors import InvalidResponse
from .transport import Transport
from .wire import WireModel

Permissions = str | list[str]  # "all", "read_only", or endpoint groups ("models", "responses", ...)
KeyKind = Literal["admin", "project"]


def key_id_of(value: str) -> str:
    """The id the sandbox gives the key `value` (computed here, so the key itself never needs to be sent)."""
    return f"key_{hashlib.sha256(value.encode()).hexdigest()[:16]}"


class ApiKey(WireModel):
    """One key as a list shows it: never its value."""

    id: str
    object: str = "organization.project.api_key"
    name: str = ""
    redacted_value: str = ""
    created_at: int | None = None
    last_used_at: int | None = None  # Unix seconds; None: never used
    owner: dict[str, Any] = Field(default_factory=dict)
    permissions: str | tuple[str, ...] = "all"
    request_count: int | None = None  # requests the service counted for it (the sandbox says; others may not)
    project_id: str | None = None

    @field_validator("owner", mode="before")
    @classmethod
    def _no_null_owner(cls, value: Any) -> Any:
        return {} if value is None else value

    @property
    def kind(self) -> KeyKind:
        return "admin" if self.object == "organization.admin_api_key" else "project"

    @property
    def owner_name(self) -> str:
        """Who holds it: a user's name, or a service account's ("service account: CI")."""
        kind = str(self.owner.get("type") or "")
        inner = self.owner.get(kind) if isinstance(self.owner.get(kind), dict) else self.owner
        name = str(inner.get("name") or inner.get("id") or "") if isinstance(inner, dict) else ""
        return f"service account: {name}" if kind == "service_account" else name

    @property
    def service_account_id(self) -> str | None:
        account = self.owner.get("service_account")
        return str(account["id"]) if isinstance(account, dict) and "id" in account else None

    def is_value(self, value: str | None) -> bool:
        """Whether `value` is this key: by the sandbox's id, else by the redacted form's two ends."""
        if not value:
            return False
        if self.id == key_id_of(value):
            return True
        head, _, tail = self.redacted_value.partition("...")
        return bool(head and tail) and value.startswith(head) and value.endswith(tail) and len(tail) >= 4


@dataclass(frozen=True)
class CreatedKey:
    """A key just made: `value` is shown once and then goes only where the person puts it."""

    key: ApiKey
    value: str = field(repr=False)
    service_account_id: str | None = None


def _keys(data: Any) -> tuple[ApiKey, ...]:
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise InvalidResponse("The server's key list is not a list ({'data': [...]} was expected).")
    return tuple(parse(ApiKey, item, "a key") for item in items)


class Keys:
    """The key endpoints of one organization, called with the admin key."""

    def __init__(self, transport: Transport, org_id: str) -> None:
        self._transport = transport
        self.org_id = org_id

    def _path(self, project_id: str | None) -> str:
        base = f"/organizations/{self.org_id}"
        return f"{base}/admin_api_keys" if project_id is None else f"{base}/projects/{project_id}/api_keys"

    async def list(self, project_id: str | None = None) -> tuple[ApiKey, ...]:
        """The organization's admin keys (`project_id` None) or a project's keys, every page."""
        found: list[ApiKey] = []
        after: str | None = None
        while True:
            params = {"limit": "100", **({"after": after} if after else {})}
            body, _ = await self._transport.request("GET", self._path(project_id), key="admin", params=params)
            found += _keys(body)
            if not (isinstance(body, dict) and body.get("has_more")) or not found:
                return tuple(found)
            after = found[-1].id

    async def retrieve(self, key_id: str, project_id: str | None = None) -> ApiKey:
        body, _ = await self._transport.request("GET", f"{self._path(project_id)}/{key_id}", key="admin")
        return parse(ApiKey, body, "a key")

    async def create(
        self, name: str, project_id: str | None = None, permissions: Permissions = "all"
    ) -> CreatedKey:
        """An admin key (`project_id` None) or a project key, made as its own service account."""
        sent = {"name": name, "permissions": permissions}
        if project_id is None:
            body, _ = await self._transport.request("POST", self._path(None), key="admin", json_body=sent)
            value = body.get("value") if isinstance(body, dict) else None
            if not isinstance(value, str):
                raise InvalidResponse("The server made an admin key but did not send its value.")
            return CreatedKey(parse(ApiKey, body, "a new admin key"), value)
        path = f"/organizations/{self.org_id}/projects/{project_id}/service_accounts"
        body, _ = await self._transport.request("POST", path, key="admin", json_body=sent)
        api_key = body.get("api_key") if isinstance(body, dict) else None
        if not isinstance(api_key, dict) or not isinstance(api_key.get("value"), str):
            raise InvalidResponse("The server made a service account but did not send its key.")
        made = await self.retrieve(str(api_key.get("id")), project_id)
        return CreatedKey(made, api_key["value"], str(body.get("id")))

    async def revoke(self, key_id: str, project_id: str | None = None) -> Deleted:
        body, _ = await self._transport.request("DELETE", f"{self._path(project_id)}/{key_id}", key="admin")
        return parse(Deleted, body, "the answer to a key's deletion")
