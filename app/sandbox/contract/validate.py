"""Request bodies in: bounded JSON, validated by the contract's models, every fault a 400 naming its field."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from app.sandbox.errors import ServiceError, quote

MAX_DEPTH = 64
_SURROGATE = re.compile("[\ud800-\udfff]")
Model = TypeVar("Model", bound=BaseModel)

_WHAT = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "bool_type": "a boolean",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
}
_FIELD_CODES = {"cidr": "invalid_cidr"}  # the Admin API's one code for any fault in the address
_SPECIFIC_WHAT = {
    "input": "a string or a non-empty array of items",
    "content": "a string or an array of parts",
}


def bad(message: str, param: str | None, code: str = "invalid_value") -> ServiceError:
    return ServiceError(400, message, code, param)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "an object", list: "an array", str: "a string", int: "an integer", float: "a number"}.get(
        type(value), type(value).__name__
    )


def _param(path: tuple[int | str, ...]) -> str:
    text = ""
    for part in path:  # a key from the input is shown as a short prefix, like any other input
        text += f"[{part}]" if isinstance(part, int) else (f".{quote(part)}" if text else quote(part))
    return quote(text, 200)


def check_tree(body: Any) -> None:
    """Refuse lone surrogates (they cannot be written back as UTF-8) and nesting past MAX_DEPTH."""
    stack: list[tuple[Any, tuple[int | str, ...]]] = [(body, ())]
    while stack:
        value, path = stack.pop()
        if len(path) > MAX_DEPTH:
            raise bad(f"The JSON body is nested more than {MAX_DEPTH} levels deep.", _param(path[:MAX_DEPTH]))
        if isinstance(value, str):
            if _SURROGATE.search(value):
                raise bad(
                    f"'{_param(path)}' holds a lone surrogate (such as \\ud800): send valid Unicode text.",
                    _param(path) or None,
                    "invalid_unicode",
                )
        elif isinstance(value, dict):
            for key, item in value.items():
                if _SURROGATE.search(key):
                    raise bad(
                        "A parameter name holds a lone surrogate: send valid Unicode text.",
                        _param(path) or None,
                        "invalid_unicode",
                    )
                stack.append((item, (*path, key)))
        elif isinstance(value, list):
            stack.extend((item, (*path, index)) for index, item in enumerate(value))


def parse_json_body(raw: bytes) -> dict[str, Any]:
    if not raw.strip():
        raise bad("The request body is empty; send a JSON object.", None, "invalid_json")
    try:
        body = json.loads(raw)
    except RecursionError:
        raise bad(
            f"The JSON body is nested more than {MAX_DEPTH} levels deep.", None, "invalid_json"
        ) from None
    except (ValueError, UnicodeDecodeError) as error:
        raise bad(f"The request body is not valid JSON: {quote(str(error))}.", None, "invalid_json") from None
    if not isinstance(body, dict):
        raise bad("The request body must be a JSON object.", None, "invalid_json")
    check_tree(body)
    return body


def _problem(error: Any) -> ServiceError:
    """The first pydantic error as the sandbox's 400: the field in `param`, a sentence in `message`."""
    path = tuple(part for part in error["loc"] if not (isinstance(part, str) and part.startswith("~")))
    param = _param(path) or None
    kind, value = error["type"], error.get("input")
    last = str(path[-1]) if path else ""
    if kind == "extra_forbidden":
        return bad(f"Unknown parameter: '{quote(param)}'.", param, "unknown_parameter")
    if kind == "missing":
        return bad(f"Missing required parameter: '{param}'.", param, "missing_required_parameter")
    if kind in _WHAT:
        what = _SPECIFIC_WHAT.get(last, _WHAT[kind])
        return bad(f"'{param}' must be {what}, not {_json_type(value)}.", param, "invalid_type")
    if kind == "literal_error":
        return bad(f"'{param}' must be {error['ctx']['expected']}, not {quote(repr(value))}.", param)
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        expected = str(error.get("ctx", {}).get("expected_tags", "")).replace("~", "")
        param = f"{param}.type" if param else "type"
        tag = str(error.get("ctx", {}).get("tag", "")).removeprefix("~")
        return bad(
            f"'{param}' must be one of {expected} (the sandbox's kinds), not {quote(repr(tag))}.", param
        )
    if kind == "string_too_long" and last == "description":
        return bad(
            f"'description' is longer than {error['ctx']['max_length']} characters.",
            param,
            "description_too_long",
        )
    if kind == "finite_number":  # JSON's NaN and Infinity (which Python's parser reads) are no numbers
        shown = "NaN, which is not a number" if value != value else f"{value}, which is not a finite number"
        return bad(f"'{param}' must be a number, not {shown}.", param)
    if kind.startswith(("greater_", "less_", "string_too_", "too_", "finite_")):
        message = str(error["msg"]).replace("Input should", "must").replace("Value should", "must")
        message = message.replace("String should", "must").replace("List should", "must")
        return bad(f"'{param}' {message}.", param)
    if error.get("ctx") is None and kind not in ("value_error", "assertion_error"):
        # a PydanticCustomError of the contract's: its type is our code, its message says it all
        return bad(str(error["msg"]), param, kind)
    return bad(f"'{param}': {quote(str(error['msg']), 200)}.", param)


def validate(model: type[Model], body: dict[str, Any]) -> Model:
    try:
        return model.model_validate(body)
    except ValidationError as errors:
        problem = _problem(errors.errors(include_url=False)[0])
        if problem.param in _FIELD_CODES and problem.code != "unknown_parameter":
            problem.code = _FIELD_CODES[problem.param]
        raise problem from None


def validate_query(model: type[Model], pairs: list[tuple[str, str]]) -> Model:
    """A query string: each known name at most once; an unknown one is refused as a body's would be."""
    fields = {info.alias or name for name, info in model.model_fields.items()}
    values: dict[str, str] = {}
    for name, value in pairs:
        if name not in fields:
            raise bad(f"Unknown query parameter: '{quote(name)}'.", quote(name), "unknown_parameter")
        if name in values:
            raise bad(f"'{quote(name)}' is given more than once.", quote(name))
        values[name] = value
    return validate(model, values)
