"""The clients people build agents with, each in its own default way, against the sandbox (simulated
engine, loopback): the official Node client, the Vercel AI SDK, LangChain (Python) and the Codex CLI.

Each runs a tool round trip and a multi-turn conversation. The Node packages come from
packaging/node_peers.sh (folder NODE_PEERS, default .node-peers); a script is fed to `node` on standard
input from that folder, so its imports resolve there. LangChain is installed by packaging/peers.sh.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Sandbox

pytestmark = pytest.mark.peers
ROOT = Path(__file__).resolve().parents[2]
RUN_WITH = "bash packaging/dev.sh test-peers"
WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


@pytest.fixture(scope="session")
def node_peers() -> Path:
    folder = Path(os.environ.get("NODE_PEERS", ROOT / ".node-peers"))
    if not (folder / "node_modules" / "openai").is_dir():
        pytest.skip(f"the Node peers are not installed: {RUN_WITH}")
    return folder


def run_node(folder: Path, sandbox: Sandbox, script: str) -> Any:
    env = {**os.environ, "SANDBOX_URL": sandbox.url, "SANDBOX_KEY": sandbox.creds.api_key}
    done = subprocess.run(
        ["node", "--input-type=module"],
        input=script,
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


NODE_TURNS = """
import OpenAI from 'openai';
const api = new OpenAI({ baseURL: process.env.SANDBOX_URL, apiKey: process.env.SANDBOX_KEY, maxRetries: 0 });
// Multi-turn, chained by previous_response_id (the client's own way), then on a conversation.
const first = await api.responses.create({ model: 'service-pro', input: 'Remember: pelicans' });
const second = await api.responses.create({ model: 'service-pro', input: 'What did I say?',
  previous_response_id: first.id });
const conversation = await api.conversations.create({ metadata: { who: 'node' } });
await api.responses.create({ model: 'service-pro', input: 'Remember: herons', conversation: conversation.id });
const third = await api.responses.create({ model: 'service-pro', input: 'And now?', conversation: conversation.id });
const items = [];
for await (const item of api.conversations.items.list(conversation.id, { order: 'asc' })) items.push(item.type);
console.log(JSON.stringify({ second: second.output_text, third: third.output_text, items }));
"""

NODE_TOOLS = """
import OpenAI from 'openai';
const api = new OpenAI({ baseURL: process.env.SANDBOX_URL, apiKey: process.env.SANDBOX_KEY, maxRetries: 0 });
const tools = [{ type: 'function', name: 'get_weather', description: 'The weather in a city',
  parameters: SCHEMA, strict: true }];
const call = await api.responses.create({ model: 'service-pro', tools,
  input: 'Use get_weather to tell me the weather in Paris' });
const fc = call.output.find((item) => item.type === 'function_call');
const answer = await api.responses.create({ model: 'service-pro', tools, previous_response_id: call.id,
  input: [{ type: 'function_call_output', call_id: fc.call_id, output: 'sunny, 21 C' }] });
console.log(JSON.stringify({ call: fc.name, args: JSON.parse(fc.arguments), answer: answer.output_text }));
""".replace("SCHEMA", json.dumps(WEATHER))


def test_node_client_multi_turn(node_peers: Path, sandbox: Sandbox) -> None:
    result = run_node(node_peers, sandbox, NODE_TURNS)
    assert "pelicans" in result["second"] and "herons" in result["third"]
    assert result["items"] == ["message"] * 4


def test_node_client_tool_round_trip(node_peers: Path, sandbox: Sandbox) -> None:
    result = run_node(node_peers, sandbox, NODE_TOOLS)
    assert result["call"] == "get_weather" and "city" in result["args"]
    assert "21" in result["answer"]


VERCEL_TURNS = """
import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';
const provider = createOpenAI({ baseURL: process.env.SANDBOX_URL, apiKey: process.env.SANDBOX_KEY });
const model = provider.responses('service-pro');
// Multi-turn as the SDK's docs show it: earlier turns go back as the response's messages (which the SDK
// sends as item_reference items, the sandbox having stored them).
const messages = [{ role: 'user', content: 'Remember: pelicans' }];
const first = await generateText({ model, messages });
messages.push(...first.response.messages, { role: 'user', content: 'What did I say?' });
const second = await generateText({ model, messages });
console.log(JSON.stringify({ second: second.text }));
"""

VERCEL_TOOLS = """
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
const provider = createOpenAI({ baseURL: process.env.SANDBOX_URL, apiKey: process.env.SANDBOX_KEY });
const model = provider.responses('service-pro');
// A tool round trip: the SDK runs the tool and sends its output back.
const calls = [];
const weather = tool({ description: 'The weather in a city', inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => { calls.push(city); return 'sunny, 21 C'; } });
const answer = await generateText({ model, tools: { get_weather: weather }, stopWhen: stepCountIs(3),
  prompt: 'Use get_weather to tell me the weather in Paris' });
console.log(JSON.stringify({ calls, answer: answer.text }));
"""


def test_vercel_ai_sdk_multi_turn(node_peers: Path, sandbox: Sandbox) -> None:
    assert "pelicans" in run_node(node_peers, sandbox, VERCEL_TURNS)["second"]


def test_vercel_ai_sdk_tool_round_trip(node_peers: Path, sandbox: Sandbox) -> None:
    result = run_node(node_peers, sandbox, VERCEL_TOOLS)
    assert len(result["calls"]) == 1 and "21" in result["answer"]


def langchain_chat(sandbox: Sandbox) -> Any:
    langchain_openai = pytest.importorskip(
        "langchain_openai", reason=f"langchain-openai is not installed: {RUN_WITH}"
    )
    return langchain_openai.ChatOpenAI(
        model="service-pro", base_url=sandbox.url, api_key=sandbox.creds.api_key, use_responses_api=True
    )


def test_langchain_multi_turn(sandbox: Sandbox) -> None:
    from langchain_core.messages import HumanMessage

    chat = langchain_chat(sandbox)
    # LangChain's default: the whole history is sent each time.
    history: list[Any] = [HumanMessage("Remember: pelicans")]
    history.append(chat.invoke(history))
    history.append(HumanMessage("What did I say?"))
    assert "pelicans" in chat.invoke(history).text


def test_langchain_tool_round_trip(sandbox: Sandbox) -> None:
    from langchain_core.messages import HumanMessage, ToolMessage

    chat = langchain_chat(sandbox)
    # A tool round trip with bind_tools.
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}}]
    bound = chat.bind_tools(tools)
    turn: list[Any] = [HumanMessage("Use get_weather to tell me the weather in Paris")]
    called = bound.invoke(turn)
    assert called.tool_calls and called.tool_calls[0]["name"] == "get_weather"
    turn += [called, ToolMessage("sunny, 21 C", tool_call_id=called.tool_calls[0]["id"])]
    assert "21" in bound.invoke(turn).text


def test_codex_exec(node_peers: Path, sandbox: Sandbox, tmp_path: Path) -> None:
    codex = node_peers / "node_modules" / ".bin" / "codex"
    if not codex.exists():
        pytest.skip(f"the Codex CLI is not installed: {RUN_WITH}")
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text(
        'model = "service-think"\n'  # Codex always sends `reasoning`: a model that reasons
        'model_provider = "sandbox"\n'
        "[model_providers.sandbox]\n"
        'name = "Service sandbox"\n'
        f'base_url = "{sandbox.url}"\n'
        'env_key = "SANDBOX_KEY"\n'
        'wire_api = "responses"\n'
    )
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "CODEX_HOME": str(home), "SANDBOX_KEY": sandbox.creds.api_key}
    done = subprocess.run(
        [str(codex), "exec", "--skip-git-repo-check", "Say hello to the pelicans"],
        stdin=subprocess.DEVNULL,
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "simulated model" in done.stdout and "pelicans" in done.stdout
