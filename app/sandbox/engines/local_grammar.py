"""What a local answer must look like, as a llama.cpp grammar, and the text the prompt is given before it.

One `AnswerShape` per turn: plain text (no grammar), JSON text (the `text.format` schema), calls (one or
several `<tool_call>` blocks), or, with a JSON format and `tool_choice` "auto", calls OR the JSON answer (a
grammar alternative; a call starts with `<`, JSON never does). When only one function can be called, the
call's fixed start (`<tool_call>{"name": "f", "arguments":`) is put in the prompt rather than generated:
the model would spend a token per forced character to write it, and the call's item opens at once.

The GBNF text comes from llama-cpp-python's own JSON-Schema converter (`SchemaConverter`), one converter
per grammar so the rules of the call schema and of the answer schema share names without clashing. Built
once per distinct schema (an LRU cache): converting is Python work of milliseconds per request otherwise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from app.sandbox.request.tools import ToolPlan

from .local_tools import CALL_END, CALL_START, call_header, call_schema, callable_functions

# A call after the first: on a new line or not, as the model likes (Hermes-style templates put one per line).
_MORE = f'"\\n"? "{CALL_START}" call "{CALL_END}"'


@dataclass(frozen=True)
class AnswerShape:
    """How one generation runs: the text appended to the prompt, its grammar (GBNF, None: free text), and
    whether the output is calls from its first token (else text, which may still turn into calls)."""

    prefill: str = ""
    grammar: str | None = None
    calls_first: bool = False


def answer_shape(plan: ToolPlan | None, text_format: dict[str, Any]) -> AnswerShape:
    """The shape of a turn's answer before the model has written anything."""
    answer = _answer_schema(text_format)
    if plan is None or not plan.active:
        return AnswerShape(grammar=_cached(None, answer, False, None))
    if plan.mode == "required":
        return calls_shape(plan)
    if answer is None:
        return AnswerShape()  # free text; a `<tool_call>` start switches to calls_shape
    return AnswerShape(grammar=_cached(json.dumps(call_schema(plan)), answer, False, plan.call_limit))


def calls_shape(plan: ToolPlan) -> AnswerShape:
    """Calls from the first token: the header given when one function is callable, the grammar the rest."""
    functions = callable_functions(plan)
    schema = json.dumps(call_schema(plan))
    if len(functions) == 1:
        arguments = json.dumps(functions[0].parameters)
        return AnswerShape(call_header(functions[0]), _cached(schema, arguments, True, plan.call_limit), True)
    return AnswerShape(CALL_START, _cached(schema, None, True, plan.call_limit), True)


def _answer_schema(text_format: dict[str, Any]) -> str | None:
    if text_format["type"] == "json_schema":
        return json.dumps(text_format["schema"])
    if text_format["type"] == "json_object":
        return json.dumps({"type": "object"})
    return None


@lru_cache(maxsize=64)
def _cached(call: str | None, other: str | None, in_call: bool, limit: int | None) -> str | None:
    """GBNF for: `other` alone (call None); calls (in_call: after the call mark, `other` the arguments'
    schema when the header was given); or calls after a mark OR `other`, the JSON answer."""
    if call is None and other is None:
        return None
    from llama_cpp.llama_grammar import SchemaConverter

    converter = SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)

    def rule(schema: str, name: str) -> str:
        return str(converter.visit(converter.resolve_refs(json.loads(schema), name), name))

    if call is None:
        assert other is not None
        root = rule(other, "answer")
    else:
        rule(call, "call")
        more = "" if limit == 1 else f" ({_MORE})" + ("*" if limit is None else f"{{0,{limit - 1}}}")
        if in_call and other is not None:  # the header was given: the first call's arguments, then its end
            root = f'space {rule(other, "arguments")} "}}" space "{CALL_END}"{more}'
        elif in_call:
            root = f'call "{CALL_END}"{more}'
        else:
            assert other is not None
            root = f'"{CALL_START}" call "{CALL_END}"{more} | {rule(other, "answer")}'
    converter._add_rule("space", '" "?')  # the converter's own rule, which the root uses between the braces
    return f"{converter.format_grammar()}\nroot ::= {root}\n"
