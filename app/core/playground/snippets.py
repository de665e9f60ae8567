"""'Get code': the current request as curl, Python and Node.js; the key is read from the environment, never written."""

from __future__ import annotations

import json
import keyword
import shlex
from collections.abc import Mapping
from typing import Any

WIDTH = 100  # a Python line as a formatter would keep it


def curl(base_url: str, body: Mapping[str, Any], env_var: str) -> str:
    payload = json.dumps(body, indent=2, ensure_ascii=False)
    return (
        f"curl {shlex.quote(base_url + '/responses')} \\\n"
        f'  -H "Authorization: Bearer ${env_var}" \\\n'
        '  -H "Content-Type: application/json" \\\n'
        f"  -d {shlex.quote(payload)}"
    )


def python_literal(value: Any, indent: int = 0, start: int | None = None) -> str:
    """A JSON value as Python source, the way a person lays it out: on one line when it fits (from column
    `start`, with its comma), else one element a line, indented by four more than `indent`. Strings are
    JSON's, which are valid Python literals in double quotes."""
    flat = _flat(value)
    column = indent if start is None else start
    if column + len(flat) + 1 <= WIDTH or not isinstance(value, dict | list) or not value:
        return flat
    inner = indent + 4
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            head = f"{' ' * inner}{json.dumps(key, ensure_ascii=False)}: "
            lines.append(head + python_literal(item, inner, len(head)) + ",")
        return "{\n" + "\n".join(lines) + "\n" + " " * indent + "}"
    lines = [" " * inner + python_literal(item, inner) + "," for item in value]
    return "[\n" + "\n".join(lines) + "\n" + " " * indent + "]"


def _flat(value: Any) -> str:
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {_flat(v)}" for k, v in value.items())
            + "}"
        )
    if isinstance(value, list):
        return "[" + ", ".join(_flat(item) for item in value) + "]"
    if value is None or isinstance(value, bool):
        return repr(value)  # None, True, False: not JSON's null, true, false
    return json.dumps(value, ensure_ascii=False)


def python(base_url: str, body: Mapping[str, Any], env_var: str) -> str:
    """`client.responses.create(model=..., input=..., ...)`; a field that cannot be a keyword argument (none
    of the API's can, but a body is data) goes in `extra_body`, as the official client takes it."""
    named = {key: value for key, value in body.items() if key.isidentifier() and not keyword.iskeyword(key)}
    extra = {key: value for key, value in body.items() if key not in named}
    if extra:
        named["extra_body"] = extra
    arguments = [f"    {key}={python_literal(value, 4, 5 + len(key))}," for key, value in named.items()]
    return (
        "import os\n\nfrom openai import OpenAI\n\n"
        f"client = OpenAI(base_url={json.dumps(base_url)}, api_key=os.environ[{json.dumps(env_var)}])\n"
        "response = client.responses.create(\n" + "\n".join(arguments) + "\n)\n"
        "print(response.output_text)\n"
    )


def node(base_url: str, body: Mapping[str, Any], env_var: str) -> str:
    arguments = json.dumps(body, indent=2, ensure_ascii=False)
    return (
        'import OpenAI from "openai";\n\n'
        f'const client = new OpenAI({{ baseURL: "{base_url}", apiKey: process.env.{env_var} }});\n'
        f"const response = await client.responses.create({arguments});\n"
        "console.log(response.output_text);\n"
    )


def all_snippets(base_url: str, body: Mapping[str, Any], env_var: str) -> dict[str, str]:
    body = {key: value for key, value in body.items() if key != "stream"}  # the snippet's call decides
    return {
        "curl": curl(base_url, body, env_var),
        "Python": python(base_url, body, env_var),
        "Node.js": node(base_url, body, env_var),
    }
