"""The OpenAI Agents SDK runs an agent with a function tool on the simulated engine, plain and streamed:
its loop (call, the tool's output sent back, the answer) ends, through the SDK's own Responses model."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

import pytest
from openai import AsyncOpenAI

from tests.conftest import Sandbox

if find_spec("agents") is None:
    pytest.skip("the Agents SDK (openai-agents) is not installed", allow_module_level=True)
if TYPE_CHECKING:
    from agents import Agent, RunResultStreaming
    from agents.result import RunResult

# The SDK is imported by the fixture, not at collection: importing it takes ~2.5 CPU-s, which every xdist
# worker would pay while collecting; in one group, only the worker that runs these tests pays it.
pytestmark = pytest.mark.xdist_group("agents_sdk")
asked: list[str] = []
AgentFor = Callable[[AsyncOpenAI], "Agent[Any]"]


@pytest.fixture(scope="module")
def agent_for() -> AgentFor:
    from agents import Agent, OpenAIResponsesModel, function_tool, set_tracing_disabled

    set_tracing_disabled(True)

    @function_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        asked.append(city)
        return "Sunny, 21 °C"

    def made(api: AsyncOpenAI) -> Agent[Any]:
        model = OpenAIResponsesModel(model="service-pro", openai_client=api)
        return Agent(name="forecaster", instructions="Answer briefly.", tools=[get_weather], model=model)

    return made


def test_runner_run_calls_the_tool_and_answers_with_its_output(sandbox: Sandbox, agent_for: AgentFor) -> None:
    from agents import Runner

    async def main() -> RunResult:
        async with AsyncOpenAI(base_url=sandbox.url, api_key=sandbox.creds.api_key, max_retries=0) as api:
            return await Runner.run(agent_for(api), "What is the weather? Use get_weather.")

    asked.clear()
    result = asyncio.run(main())
    kinds = [type(item).__name__ for item in result.new_items]
    assert kinds == ["ToolCallItem", "ToolCallOutputItem", "MessageOutputItem"] and len(asked) == 1
    assert "get_weather returned: “Sunny, 21 °C”" in result.final_output


def test_runner_run_streamed_calls_the_tool_and_answers(sandbox: Sandbox, agent_for: AgentFor) -> None:
    from agents import Runner

    async def main() -> tuple[RunResultStreaming, list[str]]:
        async with AsyncOpenAI(base_url=sandbox.url, api_key=sandbox.creds.api_key, max_retries=0) as api:
            run = Runner.run_streamed(agent_for(api), "get weather in Oslo")
            names: list[str] = [
                event.name async for event in run.stream_events() if event.type == "run_item_stream_event"
            ]
            return run, names

    asked.clear()
    run, names = asyncio.run(main())
    assert names == ["tool_called", "tool_output", "message_output_created"] and len(asked) == 1
    assert "get_weather returned: “Sunny, 21 °C”" in run.final_output
