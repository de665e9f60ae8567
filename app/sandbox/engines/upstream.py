"""Forward requests to any server that speaks the Responses API (vLLM, Ollama, LM Studio, the hosted service).

The body goes on unchanged but for the model name (mapped); a streamed answer passes straight through,
byte for byte, with the delta event renamed only if this sandbox was told to emit the other name.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
from starlette.responses import JSONResponse, Response, StreamingResponse

from ..errors import ServiceError
from ..request import ResponseRequest
from .base import Conversation, Step

_FORWARDED_HEADERS = (
    "x-request-id",
    "retry-after",
    "x-ratelimit-limit-requests",
    "x-ratelimit-remaining-requests",
    "x-ratelimit-reset-requests",
)


class UpstreamEngine:
    name = "upstream"
    passthrough = True

    def __init__(self, url: str, key: str | None, model_map: dict[str, str], delta_event: str) -> None:
        self.url = url.rstrip("/")
        self.model_map = model_map
        self.delta_event = delta_event
        headers = {"authorization": f"Bearer {key}"} if key else {}
        self.client = httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(10, read=300))

    async def run(self, conversation: Conversation) -> AsyncIterator[Step]:  # pragma: no cover - not used
        raise NotImplementedError("the upstream engine forwards whole requests")
        yield

    async def forward(self, body: dict[str, Any], parsed: ResponseRequest) -> Response:
        body = {**body, "model": self.model_map.get(parsed.model, parsed.model)}
        request = self.client.build_request("POST", f"{self.url}/responses", json=body)
        try:
            upstream = await self.client.send(request, stream=True)
        except httpx.HTTPError as error:
            raise ServiceError(
                502,
                f"The upstream server at {self.url} could not be reached: {error}.",
                "upstream_unreachable",
            ) from None
        headers = {name: upstream.headers[name] for name in _FORWARDED_HEADERS if name in upstream.headers}
        if not parsed.stream or upstream.status_code >= 400:
            try:
                content = await upstream.aread()
            finally:
                await upstream.aclose()
            try:
                payload = self._restore_model(httpx.Response(200, content=content).json(), parsed.model)
            except ValueError:
                raise ServiceError(
                    400, "The upstream server did not answer with JSON.", "upstream_invalid"
                ) from None
            return JSONResponse(payload, status_code=upstream.status_code, headers=headers)
        return StreamingResponse(self._relay(upstream), media_type="text/event-stream", headers=headers)

    async def _relay(self, upstream: httpx.Response) -> AsyncIterator[bytes]:
        rename = self.delta_event != "response.output_text.delta"
        try:
            async for line in upstream.aiter_lines():
                if rename:
                    line = line.replace("response.output_text.delta", self.delta_event)
                yield (line + "\n").encode()
        finally:
            await upstream.aclose()

    @staticmethod
    def _restore_model(payload: Any, model: str) -> Any:
        if isinstance(payload, dict) and payload.get("object") == "response":
            payload["model"] = model
        return payload

    async def aclose(self) -> None:
        await self.client.aclose()
