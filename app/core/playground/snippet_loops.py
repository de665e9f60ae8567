"""'Get code' with functions: the loop that answers the model's calls until it answers in text, in Python and
in Node.js, with a stand-in for each function that returns the output saved with it in the console.

Written by hand: no library renders source code for the official clients' loop; the shapes follow their
own documentation (function_call items out, function_call_output items back, chained by the response id).
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.core.playground.functions import FunctionDefinition


def _stub_output(definition: FunctionDefinition) -> str:
    """What a stand-in returns: the saved output, or a JSON error the model can read."""
    return definition.mock_output or json.dumps({"error": f"{definition.name} is not written yet"})


def python_identifier(name: str) -> str:
    identifier = re.sub(r"\W", "_", name)
    if not identifier.isidentifier() or keyword.iskeyword(identifier) or identifier[0].isdigit():
        identifier = f"fn_{identifier}"
    return identifier


def python_function_loop(
    body: Mapping[str, Any],
    functions: Sequence[FunctionDefinition],
    max_rounds: int,
    arguments: Callable[[dict[str, Any]], list[str]],
) -> str:
    """The Python after the client is made: stand-ins, the request's options, the first call, the loop.
    `arguments` renders a body as keyword-argument lines (`    name=value,`)."""
    stubs = "".join(
        f"def {python_identifier(item.name)}(**arguments):\n"
        f"    return {json.dumps(_stub_output(item), ensure_ascii=False)}\n\n\n"
        for item in functions
    )
    table = ", ".join(f"{json.dumps(item.name)}: {python_identifier(item.name)}" for item in functions)
    options = {key: value for key, value in body.items() if key not in ("input", "previous_response_id")}
    first: dict[str, Any] = {key: body[key] for key in ("input", "previous_response_id") if key in body}
    return (
        "\n\n# Stand-ins for your functions: each returns the output saved with it in the console.\n"
        + stubs
        + f"FUNCTIONS = {{{table}}}\n"
        + "request = dict(\n"
        + "\n".join(arguments(options))
        + "\n)\n"
        + "response = client.responses.create(\n"
        + "\n".join(arguments(first))
        + "\n    **request,\n)\n"
        + f"for _ in range({max_rounds - 1}):  # the rounds of calls answered, as the console bounds them\n"
        + '    calls = [item for item in response.output if item.type == "function_call"]\n'
        + "    if not calls:\n"
        + "        break\n"
        + "    outputs = [\n"
        + "        {\n"
        + '            "type": "function_call_output",\n'
        + '            "call_id": call.call_id,\n'
        + '            "output": FUNCTIONS[call.name](**json.loads(call.arguments)),\n'
        + "        }\n"
        + "        for call in calls\n"
        + "    ]\n"
        + "    response = client.responses.create(previous_response_id=response.id, input=outputs, **request)\n"
        + "print(response.output_text)\n"
    )


def node_function_loop(
    body: Mapping[str, Any], functions: Sequence[FunctionDefinition], max_rounds: int
) -> str:
    """The body of `main()`: stand-ins, the request's options, the first call, the loop."""
    stubs = "".join(
        f"    {json.dumps(item.name)}: async (args) => {json.dumps(_stub_output(item), ensure_ascii=False)},\n"
        for item in functions
    )
    options = {key: value for key, value in body.items() if key not in ("input", "previous_response_id")}
    first: dict[str, Any] = {key: body[key] for key in ("input", "previous_response_id") if key in body}
    request = json.dumps(options, indent=2, ensure_ascii=False).replace("\n", "\n  ")
    first_fields = "".join(
        f"    {key}: {json.dumps(value, indent=2, ensure_ascii=False).replace(chr(10), chr(10) + '    ')},\n"
        for key, value in first.items()
    )
    return (
        "  // Stand-ins for your functions: each returns the output saved with it in the console.\n"
        "  const functions = {\n" + stubs + "  };\n"
        f"  const request = {request};\n"
        "  let response = await client.responses.create({\n" + first_fields + "    ...request,\n  });\n"
        f"  for (let round = 1; round < {max_rounds}; round += 1) {{\n"
        '    const calls = response.output.filter((item) => item.type === "function_call");\n'
        "    if (calls.length === 0) break;\n"
        "    const input = [];\n"
        "    for (const call of calls) {\n"
        "      const output = await functions[call.name](JSON.parse(call.arguments));\n"
        '      input.push({ type: "function_call_output", call_id: call.call_id, output });\n'
        "    }\n"
        "    response = await client.responses.create({ ...request, previous_response_id: response.id, input });\n"
        "  }\n"
        "  console.log(response.output_text);\n"
    )
