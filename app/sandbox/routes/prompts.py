"""Stored prompts: the Admin API that keeps an organization's prompts and their versions, and what the
Responses API's `prompt` parameter reads from them.

A prompt belongs to an organization; a project's response may use any prompt of its organization. A prompt
of another organization is answered as one that does not exist.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.sandbox.contract.admin import NoQuery
from app.sandbox.contract.prompts import PromptCreate, PromptListQuery, PromptVersionCreate
from app.sandbox.contract.validate import bad, parse_json_body, validate, validate_query
from app.sandbox.errors import ServiceError, quote
from app.sandbox.request.prompt_ref import filled_body
from app.sandbox.routes.admin import _context as admin_context
from app.sandbox.routes.admin import _origin
from app.sandbox.store.aggregates import Store
from app.sandbox.store.audit import Origin
from app.sandbox.store.prompts import PromptVersion


def _version_number(text: str) -> int | None:
    """A version as the service spells it ("1", "2", ...); None: no version of any prompt."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else None


def _list(records: list[PromptVersion]) -> dict[str, Any]:
    data = [record.json() for record in records]
    return {
        "object": "list",
        "data": data,
        "first_id": data[0]["id"] if data else None,
        "last_id": data[-1]["id"] if data else None,
        "has_more": False,
    }


class PromptRoutes:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.prompts = store.prompts

    # -- what /v1/responses asks ------------------------------------------------------------------

    def resolve(self, project_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """`body` with its `prompt` filled in; as it came when it has none (or one validation refuses)."""
        ref = body.get("prompt")
        if not isinstance(ref, dict) or not isinstance(ref.get("id"), str):
            return body
        version = ref.get("version")
        if version is not None and not isinstance(version, str):
            return body
        org_id = self.store.organizations.project_org(project_id) or ""
        prompt_id = ref["id"]
        number = None if version is None else _version_number(version)
        found = (
            None
            if version is not None and number is None
            else self.prompts.version(org_id, prompt_id, number)
        )
        if found is not None:
            return filled_body(body, found.json())
        if self.prompts.version(org_id, prompt_id) is None:
            raise bad(f"Prompt with id '{quote(prompt_id)}' not found.", "prompt.id", "prompt_not_found")
        raise bad(
            f"Prompt '{quote(prompt_id)}' has no version '{quote(version)}'.",
            "prompt.version",
            "prompt_version_not_found",
        )

    # -- the Admin API ----------------------------------------------------------------------------

    def _org(self, request: Request) -> str:
        org_id: str = request.path_params["org_id"]
        admin_context(request, org_id)
        return org_id

    def _saver(self, request: Request, org_id: str) -> Origin:
        """Who saves, for the audit log: the admin key by its id and name, and the address it came from."""
        return _origin(admin_context(request, org_id), False)

    def _latest(self, org_id: str, prompt_id: str) -> PromptVersion:
        found = self.prompts.version(org_id, prompt_id)
        if found is None:
            raise ServiceError(404, f"No prompt with id '{quote(prompt_id)}'.", "prompt_not_found")
        return found

    async def create(self, request: Request) -> Response:
        org_id = self._org(request)
        validate_query(NoQuery, request.query_params.multi_items())
        raw = parse_json_body(await request.body())
        body = validate(PromptCreate, raw)
        if body.instructions is None and body.input is None:
            raise bad(
                "A prompt needs 'instructions', 'input' or both.", "input", "missing_required_parameter"
            )
        record = await self.prompts.create(
            org_id, body.model_dump(mode="json", exclude_none=True), self._saver(request, org_id)
        )
        return JSONResponse(record.json())

    async def add_version(self, request: Request) -> Response:
        org_id = self._org(request)
        validate_query(NoQuery, request.query_params.multi_items())
        prompt_id = request.path_params["prompt_id"]
        body = validate(PromptVersionCreate, parse_json_body(await request.body()))
        if body.instructions is None and body.input is None:
            raise bad(
                "A version needs 'instructions', 'input' or both.", "input", "missing_required_parameter"
            )
        self._latest(org_id, prompt_id)
        record = await self.prompts.add_version(
            org_id, prompt_id, body.model_dump(mode="json", exclude_none=True), self._saver(request, org_id)
        )
        if record is None:
            raise ServiceError(404, f"No prompt with id '{quote(prompt_id)}'.", "prompt_not_found")
        return JSONResponse(record.json())

    async def list_prompts(self, request: Request) -> Response:
        org_id = self._org(request)
        query = validate_query(PromptListQuery, request.query_params.multi_items())
        return JSONResponse(_list(self.prompts.latest(org_id, query.search)))

    async def retrieve(self, request: Request) -> Response:
        org_id = self._org(request)
        validate_query(NoQuery, request.query_params.multi_items())
        return JSONResponse(self._latest(org_id, request.path_params["prompt_id"]).json())

    async def list_versions(self, request: Request) -> Response:
        org_id = self._org(request)
        validate_query(NoQuery, request.query_params.multi_items())
        prompt_id = request.path_params["prompt_id"]
        self._latest(org_id, prompt_id)
        return JSONResponse(_list(self.prompts.versions(org_id, prompt_id)))

    async def retrieve_version(self, request: Request) -> Response:
        org_id = self._org(request)
        validate_query(NoQuery, request.query_params.multi_items())
        prompt_id, version = request.path_params["prompt_id"], request.path_params["version"]
        self._latest(org_id, prompt_id)
        number = _version_number(version)
        found = None if number is None else self.prompts.version(org_id, prompt_id, number)
        if found is None:
            message = f"Prompt '{quote(prompt_id)}' has no version '{quote(version)}'."
            raise ServiceError(404, message, "prompt_version_not_found")
        return JSONResponse(found.json())
