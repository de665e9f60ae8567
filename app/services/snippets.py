"""'Get code': the current request as curl, Python and Node.js; the key is read from the environment, never written."""

from __future__ import annotations

import json
import pprint
import shlex
from typing import Any


def curl(base_url: str, body: dict[str, Any], env_var: str) -> str:
    payload = json.dumps(body, indent=2, ensure_ascii=False)
    return (
        f"curl {shlex.quote(base_url + '/responses')} \\\n"
        f'  -H "Authorization: Bearer ${env_var}" \\\n'
        '  -H "Content-Type: application/json" \\\n'
        f"  -d {shlex.quote(payload)}"
    )


def python(base_url: str, body: dict[str, Any], env_var: str) -> str:
    arguments = pprint.pformat(body, indent=4, sort_dicts=False)  # a Python literal, not JSON (True, None)
    return (
        "import os\n\nfrom openai import OpenAI\n\n"
        f'client = OpenAI(base_url="{base_url}", api_key=os.environ["{env_var}"])\n'
        f"response = client.responses.create(**{arguments})\n"
        "print(response.output_text)\n"
    )


def node(base_url: str, body: dict[str, Any], env_var: str) -> str:
    arguments = json.dumps(body, indent=2, ensure_ascii=False)
    return (
        'import OpenAI from "openai";\n\n'
        f'const client = new OpenAI({{ baseURL: "{base_url}", apiKey: process.env.{env_var} }});\n'
        f"const response = await client.responses.create({arguments});\n"
        "console.log(response.output_text);\n"
    )


def all_snippets(base_url: str, body: dict[str, Any], env_var: str) -> dict[str, str]:
    body = {key: value for key, value in body.items() if key != "stream"}
    return {
        "curl": curl(base_url, body, env_var),
        "Python": python(base_url, body, env_var),
        "Node.js": node(base_url, body, env_var),
    }
