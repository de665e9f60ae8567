"""`POST /v1/responses/input_tokens`: how many tokens a response's input would take, without answering.

Counted as the response itself counts them (its `usage.input_tokens`): by the engine's own tokenizer where
it has one (the local engine: llama.cpp's, over the prompt its chat template makes), otherwise by the
sandbox's estimate (the simulated and upstream engines). History comes from `previous_response_id` or
`conversation`, as for a response.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.sandbox.answer.tool_loop import check_outputs
from app.sandbox.answer.truncation import input_tokens
from app.sandbox.contract.stateful_routes import InputTokensRequest
from app.sandbox.contract.validate import parse_json_body, validate
from app.sandbox.engines.base import Conversation
from app.sandbox.request.engine_request import parse_request
from app.sandbox.routes.project import project_of
from app.sandbox.routes.responses import ResponsesRoutes


class TokenCounting:
    def __init__(self, routes: ResponsesRoutes) -> None:
        self.routes = routes

    async def count(self, request: Request) -> Response:
        project_id = project_of(request)
        raw = parse_json_body(await request.body())
        validate(InputTokensRequest, raw)
        config = self.routes.state.config
        body: dict[str, Any] = {name: value for name, value in raw.items() if name != "personality"}
        body["model"] = raw.get("model") or config.models[0]
        no_input = raw.get("input") is None
        if no_input:  # the history alone: a placeholder input, dropped once parsed
            body["input"] = " "
        parsed = parse_request(body, config.models, config.max_image_bytes, self.routes.unseal)
        if no_input:
            parsed.messages, parsed.input_items = [], []
        self.routes.check_sealed(parsed)
        history = self.routes.history(project_id, parsed)
        check_outputs(parsed.output_refs, [*history, *parsed.messages])  # as a response would refuse them
        conversation = Conversation(parsed, history)
        engine = self.routes.state.engine
        count = getattr(engine, "count_input_tokens", None)
        tokens = await count(conversation) if count is not None else input_tokens(conversation)
        return JSONResponse({"object": "response.input_tokens", "input_tokens": tokens})
