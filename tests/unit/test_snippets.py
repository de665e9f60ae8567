"""'Get code': the Python snippet is the call a person would write (keyword arguments), runs as written
against the official client's shape, and never holds the key."""

from __future__ import annotations

import ast
import sys
import types
from typing import Any

import pytest

from app.core.playground.snippets import all_snippets, python_literal

BODY: dict[str, Any] = {
    "model": "service-think",
    "input": [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": 'A "quoted" answer\nwith a new line and ünïcode'},
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "What is in this picture of the harbour at dawn, and why?"},
                {"type": "input_image", "image_url": "data:image/png;base64," + "A" * 120},
            ],
        },
    ],
    "instructions": "Be brief",
    "temperature": 0.2,
    "max_output_tokens": 400,
    "tools": [{"type": "web_search_preview"}],
    "reasoning": {"effort": "high"},
    "text": {
        "format": {"type": "json_schema", "name": "answer", "schema": {"type": "object"}, "strict": False}
    },
    "store": True,
    "previous_response_id": None,
}


def create_call(source: str) -> ast.Call:
    calls = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "client.responses.create"
    ]
    assert len(calls) == 1
    return calls[0]


def test_the_python_snippet_passes_keyword_arguments() -> None:
    source = all_snippets("http://127.0.0.1:9/v1", BODY, "SERVICE_API_KEY")["Python"]
    compile(source, "snippet.py", "exec")
    call = create_call(source)
    assert not call.args and all(keyword.arg is not None for keyword in call.keywords)  # no **{...}
    assert {keyword.arg: ast.literal_eval(keyword.value) for keyword in call.keywords} == BODY
    assert 'model="service-think",' in source and "**" not in source
    assert all(len(line) <= 100 for line in source.splitlines() if "base64" not in line)


def test_the_python_snippet_runs_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """Executed with a stand-in for the official client: the call it makes is the request."""
    made: dict[str, Any] = {}

    class Responses:
        def create(self, **arguments: Any) -> Any:
            made.update(arguments)
            return types.SimpleNamespace(output_text="ok")

    class OpenAI:
        def __init__(self, *, base_url: str, api_key: str) -> None:
            made["client"] = (base_url, api_key)
            self.responses = Responses()

    monkeypatch.setitem(sys.modules, "openai", types.SimpleNamespace(OpenAI=OpenAI))
    monkeypatch.setenv("SERVICE_API_KEY", "sk-from-the-environment")
    source = all_snippets("http://127.0.0.1:9/v1", {**BODY, "stream": True}, "SERVICE_API_KEY")["Python"]
    exec(compile(source, "snippet.py", "exec"), {"print": lambda *_: None})
    assert made.pop("client") == ("http://127.0.0.1:9/v1", "sk-from-the-environment")
    assert made == BODY  # `stream` is left out: the snippet prints the whole answer
    assert "sk-from-the-environment" not in source


def test_a_field_that_is_no_identifier_goes_in_extra_body() -> None:
    source = all_snippets("http://x/v1", {"model": "m", "input": "Hi", "odd-name": 1, "class": 2}, "K")[
        "Python"
    ]
    call = create_call(source)
    values = {keyword.arg: ast.literal_eval(keyword.value) for keyword in call.keywords}
    assert values == {"model": "m", "input": "Hi", "extra_body": {"odd-name": 1, "class": 2}}


def test_literals_fit_or_break_one_element_a_line() -> None:
    assert python_literal({"a": [1, True, None]}) == '{"a": [1, True, None]}'
    long = {"text": "x" * 120, "more": [1, 2]}
    assert python_literal(long) == '{\n    "text": "' + "x" * 120 + '",\n    "more": [1, 2],\n}'
    assert ast.literal_eval(python_literal(long)) == long
