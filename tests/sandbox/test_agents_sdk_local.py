"""The OpenAI Agents SDK runs an agent with a function tool on the local engine (real Gemma 3 270M weights),
plain and streamed: the model's call goes through the SDK's Responses model, the SDK runs the tool, and the
run ends with the tool's output (`stop_on_first_tool`).

Why it stops there: given the tool's output back with tool_choice "auto", Gemma 3 270M calls the same function
again at temperature 0, turn after turn, whatever the instructions say, so a run that waits for its own
answer ends in MaxTurnsExceeded. That is the model's size, not the loop's: the same loop answers on the
simulated engine (test_agents_sdk.py) and through the Playground on these weights."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

import pytest
from openai import AsyncOpenAI

from app.sandbox import SandboxServer
from tests.local_support import local_sandbox

if find_spec("agents") is None:
    pytest.skip("the Agents SDK (openai-agents) is not installed", allow_module_level=True)
if TYPE_CHECKING:
    from agents import Agent
    from agents.result import RunResult

# The SDK is imported when a test runs, not at collection (~2.5 CPU-s in every pytest process otherwise,
# and these tests are skipped in the default run).
pytestmark = pytest.mark.local
asked: list[str] = []


def get_weather(city: str) -> str:
    """The weather in a city."""
    asked.append(city)
    return "Sunny, 21 °C"


@pytest.fixture(scope="module")
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SandboxServer]:
    yield from local_sandbox(request, tmp_path_factory)


def agent_for(api: AsyncOpenAI) -> Agent[Any]:
    from agents import Agent, ModelSettings, OpenAIResponsesModel, function_tool, set_tracing_disabled

    set_tracing_disabled(True)
    model = OpenAIResponsesModel(model="service-pro", openai_client=api)
    # The turn must call the tool (a 270M model may not choose to), with arguments held to its schema.
    settings = ModelSettings(
        tool_choice="get_weather", temperature=0, max_tokens=48, parallel_tool_calls=False
    )
    return Agent(
        name="forecaster",
        instructions="Answer briefly.",
        tools=[function_tool(get_weather)],
        model=model,
        model_settings=settings,
        tool_use_behavior="stop_on_first_tool",
    )


def client_for(server: SandboxServer) -> AsyncOpenAI:
    assert server.credentials is not None
    return AsyncOpenAI(
        base_url=server.base_url, api_key=server.credentials.api_key, max_retries=0, timeout=600
    )


def test_runner_run_on_the_local_engine(server: SandboxServer) -> None:
    from agents import Runner

    async def main() -> RunResult:
        async with client_for(server) as api:
            return await Runner.run(agent_for(api), "What is the weather in Oslo?", max_turns=4)

    asked.clear()
    result = asyncio.run(main())
    kinds = [type(item).__name__ for item in result.new_items]
    assert kinds == ["ToolCallItem", "ToolCallOutputItem"] and len(asked) == 1 and asked[0], kinds
    assert result.final_output == "Sunny, 21 °C"


def test_runner_run_streamed_on_the_local_engine(server: SandboxServer) -> None:
    from agents import Runner

    async def main() -> tuple[list[str], str]:
        async with client_for(server) as api:
            run = Runner.run_streamed(agent_for(api), "What is the weather in Oslo?", max_turns=4)
            names: list[str] = [
                event.name async for event in run.stream_events() if event.type == "run_item_stream_event"
            ]
            return names, str(run.final_output)

    asked.clear()
    names, final = asyncio.run(main())
    assert names == ["tool_called", "tool_output"] and len(asked) == 1 and asked[0], names
    assert final == "Sunny, 21 °C"
