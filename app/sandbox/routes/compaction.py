"""`POST /v1/responses/compact`: a conversation's turns compacted into one item (answer/compaction.py).

The conversation is read as a response reads its own: `previous_response_id`'s history, then `input`
(references resolved, reasoning and compaction items checked). No engine runs: the summary is the sandbox's.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.sandbox.answer.compaction import compacted
from app.sandbox.answer.tool_loop import check_outputs, resolve_references
from app.sandbox.contract.stateful_routes import CompactRequest
from app.sandbox.contract.validate import bad, parse_json_body, validate
from app.sandbox.engines.base import Conversation
from app.sandbox.ids import new_id
from app.sandbox.request.engine_request import parse_request
from app.sandbox.routes.project import project_of
from app.sandbox.routes.responses import ResponsesRoutes


class Compaction:
    def __init__(self, routes: ResponsesRoutes) -> None:
        self.routes = routes

    async def compact(self, request: Request) -> Response:
        project_id = project_of(request)
        raw = parse_json_body(await request.body())
        validate(CompactRequest, raw)
        if raw.get("input") is None and raw.get("previous_response_id") is None:
            raise bad(
                "Nothing to compact: give 'input', 'previous_response_id', or both.",
                "input",
                "missing_required_parameter",
            )
        names = ("model", "input", "instructions", "previous_response_id")
        body: dict[str, Any] = {name: raw[name] for name in names if raw.get(name) is not None}
        no_input = "input" not in body
        if no_input:  # the history alone: a placeholder input, dropped once parsed
            body["input"] = " "
        state = self.routes.state
        resolve_references(state.store, project_id, body)
        config = state.config
        parsed = parse_request(body, config.models, config.max_image_bytes, self.routes.unseal)
        if no_input:
            parsed.messages, parsed.input_items = [], []
        self.routes.check_sealed(parsed)
        history = self.routes.history(project_id, parsed)
        check_outputs(parsed.output_refs, [*history, *parsed.messages])
        answer = compacted(Conversation(parsed, history), self.routes.sealer)
        return JSONResponse(answer, headers={"x-request-id": new_id("req")})
