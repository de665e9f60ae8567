"""'Get code': the current request as curl, Python and Node.js; the key is read from the environment, never written.

On a corporate network the snippet carries the profile's proxy, CA bundle and client certificate, so it runs
as-is where the profile does: paths and the proxy URL are written, secrets (the proxy's password, the client
key's passphrase) are read from environment variables, like the key.
"""

from __future__ import annotations

import json
import keyword
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from app.core.playground.functions import DEFAULT_MAX_ROUNDS, FunctionDefinition
from app.core.playground.snippet_loops import node_function_loop, python_function_loop

WIDTH = 100  # a Python line as a formatter would keep it


@dataclass(frozen=True)
class SnippetNetwork:
    """How the profile reaches the service, as a snippet may show it: no secret, only where to read one."""

    proxy: str = ""  # the proxy URL without its password (user@ kept)
    proxy_password_env: str = ""  # the variable holding the proxy's password, when it has a user
    ca_bundle: str = ""
    client_cert: str = ""
    client_key: str = ""
    passphrase_env: str = ""  # the variable holding the client key's passphrase, when it has one

    @property
    def proxy_user(self) -> str:
        return urlsplit(self.proxy).username or "" if self.proxy else ""

    @property
    def proxy_without_user(self) -> str:
        parts = urlsplit(self.proxy)
        return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


DIRECT = SnippetNetwork()


def _curl_network(network: SnippetNetwork) -> list[str]:
    options = []
    if network.proxy:
        options.append(f"--proxy {shlex.quote(network.proxy_without_user)}")
        if network.proxy_user:
            secret = f"${network.proxy_password_env}" if network.proxy_password_env else ""
            options.append(f'--proxy-user "{network.proxy_user}:{secret}"')
        if network.proxy.startswith("https://") and network.ca_bundle:
            options.append(f"--proxy-cacert {shlex.quote(network.ca_bundle)}")
    if network.ca_bundle:
        options.append(f"--cacert {shlex.quote(network.ca_bundle)}")
    if network.client_cert:
        options.append(f"--cert {shlex.quote(network.client_cert)}")
    if network.client_key:
        options.append(f"--key {shlex.quote(network.client_key)}")
    if network.client_cert and network.passphrase_env:
        options.append(f'--pass "${network.passphrase_env}"')
    return options


def curl(
    base_url: str,
    body: Mapping[str, Any],
    env_var: str,
    network: SnippetNetwork = DIRECT,
    functions: bool = False,
) -> str:
    payload = json.dumps(body, indent=2, ensure_ascii=False)
    note = (
        "# The answer may hold function_call items: send each output back as a function_call_output item,\n"
        '# with "previous_response_id" set to this response\'s id (the Python and Node.js code does it).\n'
        if functions
        else ""
    )
    return (
        note
        + f"curl {shlex.quote(base_url + '/responses')} \\\n"
        + "".join(f"  {option} \\\n" for option in _curl_network(network))
        + f'  -H "Authorization: Bearer ${env_var}" \\\n'
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


def _python_network(network: SnippetNetwork) -> tuple[bool, str, str]:
    """(whether ssl is imported, set-up lines, the client's http_client argument) for the profile's proxy
    and TLS files; nothing for a direct connection."""
    if network == DIRECT:
        return False, "", ""
    setup = []
    tls = bool(network.ca_bundle or network.client_cert)
    if tls:
        cafile = f"cafile={json.dumps(network.ca_bundle)}" if network.ca_bundle else ""
        setup.append(f"tls = ssl.create_default_context({cafile})")
        if network.client_cert:
            password = (
                f"os.environ[{json.dumps(network.passphrase_env)}]" if network.passphrase_env else "None"
            )
            key = json.dumps(network.client_key) if network.client_key else "None"
            setup.append(
                f"tls.load_cert_chain({json.dumps(network.client_cert)}, {key}, password={password})"
            )
    arguments = []
    if network.proxy:
        auth = ""
        if network.proxy_user:
            secret = (
                f"os.environ[{json.dumps(network.proxy_password_env)}]"
                if network.proxy_password_env
                else '""'
            )
            auth = f", auth=({json.dumps(network.proxy_user)}, {secret})"
        setup.append(f"proxy = httpx.Proxy({json.dumps(network.proxy_without_user)}{auth})")
        arguments.append("proxy=proxy")
    if tls:
        arguments.append("verify=tls")
    return tls, "\n".join(setup) + "\n", f"http_client=httpx.Client({', '.join(arguments)})"


def python(
    base_url: str,
    body: Mapping[str, Any],
    env_var: str,
    network: SnippetNetwork = DIRECT,
    functions: Sequence[FunctionDefinition] = (),
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> str:
    """`client.responses.create(model=..., input=..., ...)`; a field that cannot be a keyword argument (none
    of the API's can, but a body is data) goes in `extra_body`, as the official client takes it. With
    functions, the loop that answers the model's calls with stub functions (the saved outputs)."""
    uses_ssl, setup, http_client = _python_network(network)
    client_arguments = [f"base_url={json.dumps(base_url)}", f"api_key=os.environ[{json.dumps(env_var)}]"]
    client_arguments += [http_client] if http_client else []
    client = f"client = OpenAI({', '.join(client_arguments)})"
    if len(client) > WIDTH:
        client = "client = OpenAI(\n" + "".join(f"    {argument},\n" for argument in client_arguments) + ")"
    head = (
        ("import json\n" if functions else "")
        + "import os\n"
        + ("import ssl\n" if uses_ssl else "")
        + "\n"
        + ("import httpx\n" if http_client else "")
        + "from openai import OpenAI\n\n"
        + setup
        + client
        + "\n"
    )
    if functions:
        return head + python_function_loop(body, functions, max_rounds, _python_arguments)
    return (
        head
        + "response = client.responses.create(\n"
        + "\n".join(_python_arguments(body))
        + "\n)\nprint(response.output_text)\n"
    )


def _python_arguments(body: Mapping[str, Any]) -> list[str]:
    named = {key: value for key, value in body.items() if key.isidentifier() and not keyword.iskeyword(key)}
    extra = {key: value for key, value in body.items() if key not in named}
    if extra:
        named["extra_body"] = extra
    return [f"    {key}={python_literal(value, 4, 5 + len(key))}," for key, value in named.items()]


def _node_network(network: SnippetNetwork) -> tuple[str, str, str]:
    """(requires, set-up lines, the client's fetchOptions) through undici, which Node's fetch is built on:
    a ProxyAgent for the proxy (its requestTls for the service's TLS), an Agent for TLS alone."""
    if network == DIRECT:
        return "", "", ""
    tls = []
    if network.ca_bundle:
        tls.append(f"ca: fs.readFileSync({json.dumps(network.ca_bundle)})")
    if network.client_cert:
        tls.append(f"cert: fs.readFileSync({json.dumps(network.client_cert)})")
    if network.client_key:
        tls.append(f"key: fs.readFileSync({json.dumps(network.client_key)})")
    if network.client_cert and network.passphrase_env:
        tls.append(f"passphrase: process.env.{network.passphrase_env}")
    options = "{ " + ", ".join(tls) + " }"
    if network.proxy:
        fields = [f"uri: {json.dumps(network.proxy_without_user)}"]
        if network.proxy_user:
            secret = f"${{process.env.{network.proxy_password_env}}}" if network.proxy_password_env else ""
            credentials = f"`{network.proxy_user}:{secret}`"
            fields.append(f'token: "Basic " + Buffer.from({credentials}).toString("base64")')
        if tls:
            fields.append(f"requestTls: {options}")
        agent, setup = "ProxyAgent", "{ " + ", ".join(fields) + " }"
    else:
        agent, setup = "Agent", "{ connect: " + options + " }"
    requires = (
        'const fs = require("node:fs");\n' if tls else ""
    ) + f'const {{ {agent} }} = require("undici");\n'
    return requires, f"const dispatcher = new {agent}({setup});\n", ", fetchOptions: { dispatcher }"


def node(
    base_url: str,
    body: Mapping[str, Any],
    env_var: str,
    network: SnippetNetwork = DIRECT,
    functions: Sequence[FunctionDefinition] = (),
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> str:
    """CommonJS (require, an async main), so that it runs as saved in a project made by `npm init -y`,
    whose package.json does not say "type": "module"; an ES module would fail there on its first import."""
    requires, setup, fetch_options = _node_network(network)
    packages = "openai undici" if requires else "openai"  # the proxy and TLS agents come from undici
    arguments = json.dumps(body, indent=2, ensure_ascii=False)
    if functions:
        call = node_function_loop(body, functions, max_rounds)
    else:
        call = (
            f"  const response = await client.responses.create({_indented(arguments)});\n"
            "  console.log(response.output_text);\n"
        )
    return (
        f"// Save as main.js in an npm project (npm init -y; npm install {packages}), then: node main.js\n"
        + requires
        + 'const OpenAI = require("openai");\n\n'
        + setup
        + f'const client = new OpenAI({{ baseURL: "{base_url}", apiKey: process.env.{env_var}{fetch_options} }});\n\n'
        + "async function main() {\n"
        + call
        + "}\n\n"
        + "main().catch((error) => {\n  console.error(error);\n  process.exit(1);\n});\n"
    )


def _indented(text: str, by: str = "  ") -> str:
    """A multi-line value placed after an indented line's start: its later lines indented too."""
    return text.replace("\n", "\n" + by)


def all_snippets(
    base_url: str,
    body: Mapping[str, Any],
    env_var: str,
    network: SnippetNetwork = DIRECT,
    functions: Sequence[FunctionDefinition] = (),
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> dict[str, str]:
    """Each language's snippet over HTTP (snippet_socket.py writes them for a profile in WebSocket mode)."""
    body = {key: value for key, value in body.items() if key != "stream"}
    return {
        "curl": curl(base_url, body, env_var, network, bool(functions)),
        "Python": python(base_url, body, env_var, network, functions, max_rounds),
        "Node.js": node(base_url, body, env_var, network, functions, max_rounds),
    }
