"""The request's parameters as the response object repeats them."""

from __future__ import annotations

from typing import Any

from app.sandbox.request.engine_request import EngineRequest


def echoed_fields(request: EngineRequest) -> dict[str, Any]:
    """The request's parameters as the response repeats them (defaults filled in as the hosted service does)."""
    body = request.body
    text: dict[str, Any] = {"format": request.text_format, "verbosity": request.verbosity}
    reasoning = body.reasoning
    choice = body.tool_choice
    return {
        "previous_response_id": body.previous_response_id,
        "instructions": body.instructions,
        "tools": [_tool_json(tool) for tool in body.tools],
        "tool_choice": choice if isinstance(choice, str) else choice.model_dump(),
        "client_metadata": body.client_metadata,
        "text": text,
        "temperature": request.temperature if request.temperature is not None else 1.0,
        "top_p": request.top_p if request.top_p is not None else 1.0,
        "max_output_tokens": body.max_output_tokens,
        "max_tool_calls": body.max_tool_calls,
        "top_logprobs": body.top_logprobs if body.top_logprobs is not None else 0,
        "presence_penalty": body.presence_penalty or 0.0,
        "frequency_penalty": body.frequency_penalty or 0.0,
        "store": request.store,
        "metadata": body.metadata or {},
        "parallel_tool_calls": body.parallel_tool_calls is not False,
        "reasoning": None
        if reasoning is None
        else {"effort": reasoning.effort, "summary": request.reasoning_summary},
        "truncation": body.truncation or "disabled",
        "service_tier": body.service_tier or "default",
        "background": bool(body.background),
        "user": body.user,
        "safety_identifier": body.safety_identifier,
        "prompt_cache_key": body.prompt_cache_key,
        "prompt_cache_retention": body.prompt_cache_retention,
        "prompt": None if body.prompt is None else body.prompt.model_dump(),
        "conversation": None
        if body.conversation is None
        else {"id": body.conversation if isinstance(body.conversation, str) else body.conversation.id},
    }


def _tool_json(tool: Any) -> dict[str, Any]:
    """A tool as the response repeats it: a function with its description and parameters (null when not
    given) and `strict` (true unless sent false, the service's default)."""
    data: dict[str, Any] = tool.model_dump(exclude_none=True, by_alias=True)
    functions = [data] if data["type"] == "function" else data.get("tools", [])
    for function in functions:
        function.setdefault("description", None)
        function.setdefault("parameters", None)
    if data["type"] == "function":
        data.setdefault("strict", True)
    return data
