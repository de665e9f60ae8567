"""'Get code' for a profile in WebSocket mode: Python in the socket's form where the official client has one
(`client.responses.connect()`), and a plain first line saying HTTP everywhere else, so that no snippet passes
for what the Playground sends when it is not."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from app.core.playground.functions import DEFAULT_MAX_ROUNDS, FunctionDefinition
from app.core.playground.snippets import DIRECT, SnippetNetwork, all_snippets, python_literal

HTTP_NOTE = (
    "{mark} Sent over HTTP (POST /responses). The Playground sends this profile's requests over a WebSocket\n"
    "{mark} (WebSocket mode){why}; the answer is the same.\n"
)
WHY_NODE = ": the Node.js client has no WebSocket form for responses"
WHY_CURL = ": curl cannot hold the socket"
WHY_PYTHON = ": {what} go through the HTTP client here"


def http_note(mark: str, why: str) -> str:
    """The first lines of a snippet that goes over HTTP while the profile uses WebSocket mode."""
    return HTTP_NOTE.format(mark=mark, why=why)


def python_socket(base_url: str, body: Mapping[str, Any], env_var: str) -> str:
    """The request as one `response.create` event on `client.responses.connect()`, the text printed as it
    streams (over the socket `stream` is implicit, so it is not sent)."""
    event = {"type": "response.create", **{key: value for key, value in body.items() if key != "stream"}}
    client = f"client = OpenAI(base_url={json.dumps(base_url)}, api_key=os.environ[{json.dumps(env_var)}])"
    return (
        "import os\n\n"
        "from openai import OpenAI\n\n" + client + "\n\n"
        "# WebSocket mode, as the Playground sends: the socket carries the request and the answer's events.\n"
        "with client.responses.connect() as connection:\n"
        f"    connection.send({python_literal(event, 4, len('    connection.send('))})\n"
        "    for event in connection:\n"
        '        if event.type == "response.output_text.delta":\n'
        '            print(event.delta, end="", flush=True)\n'
        '        elif event.type in ("response.completed", "response.failed", "response.incomplete", "error"):\n'
        "            break\n"
        "print()\n"
    )


def snippets_for(
    base_url: str,
    body: Mapping[str, Any],
    env_var: str,
    network: SnippetNetwork = DIRECT,
    functions: Sequence[FunctionDefinition] = (),
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    websocket: bool = False,
) -> dict[str, str]:
    """Get code's snippets for a profile: over HTTP (snippets.all_snippets), or as `over_socket` writes them
    when the profile uses WebSocket mode."""
    snippets = all_snippets(base_url, body, env_var, network, functions, max_rounds)
    if not websocket:
        return snippets
    return over_socket(snippets, base_url, body, env_var, network == DIRECT, bool(functions))


def over_socket(
    snippets: dict[str, str],
    base_url: str,
    body: Mapping[str, Any],
    env_var: str,
    plain: bool,
    functions: bool,
) -> dict[str, str]:
    """`snippets` (curl, Python, Node.js over HTTP) for a profile in WebSocket mode. Python takes the socket's
    form when the profile reaches the service directly (`plain`: no proxy, CA bundle or client certificate,
    which the snippet sets on the HTTP client) and no functions are offered; each other says it uses HTTP."""
    if plain and not functions:
        python = python_socket(base_url, body, env_var)
    else:
        what = "the functions' loop" if functions else "the proxy and certificates"
        python = http_note("#", WHY_PYTHON.format(what=what)) + snippets["Python"]
    return {
        "curl": http_note("#", WHY_CURL) + snippets["curl"],
        "Python": python,
        "Node.js": http_note("//", WHY_NODE) + snippets["Node.js"],
    }
