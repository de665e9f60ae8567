"""A response's `prompt` parameter filled in: the stored version's instructions, input, model and options,
with the request's `prompt.variables` in place of its `{{variables}}`.

What the request gives itself wins: its own `instructions`, `model` and options replace the prompt's, and
its own `input` follows the prompt's messages. A variable the prompt does not have, one it has that the
request does not give, and a value that is neither text nor an image are each a 400 naming
`prompt.variables` (docs/contract.md, "Stored prompts").
"""

from __future__ import annotations

from typing import Any

from app.common.prompt_template import pieces
from app.sandbox.contract.validate import bad
from app.sandbox.errors import quote

Value = str | dict[str, Any]  # text, or an input_image part


def _names(names: list[str]) -> str:
    return ", ".join(f"'{quote(name)}'" for name in names) or "none"


def _value(name: str, value: Any) -> Value:
    where = f"prompt.variables.{quote(name)}"
    if isinstance(value, str):
        return value
    kind = value.get("type") if isinstance(value, dict) else None
    if kind == "input_text" and isinstance(value.get("text"), str):
        return str(value["text"])
    if kind == "input_image" and isinstance(value.get("image_url"), str) and value["image_url"]:
        return {"type": "input_image", "image_url": value["image_url"], "detail": value.get("detail", "auto")}
    if kind == "input_file":
        raise bad(
            f"'{where}' is a file: files are not supported here (the sandbox has no Files API).",
            where,
            "unsupported_value",
        )
    raise bad(
        f"Invalid type for '{where}': expected a string, an input_text or an input_image.",
        where,
        "invalid_type",
    )


def _text(text: str, values: dict[str, Value], where: str) -> str:
    out = []
    for piece in pieces(text):
        if isinstance(piece, str):
            out.append(piece)
            continue
        value = values[piece[0]]
        if not isinstance(value, str):
            raise bad(
                f"The prompt's {where} can hold text only: '{quote(piece[0])}' is an image.",
                f"prompt.variables.{quote(piece[0])}",
                "invalid_type",
            )
        out.append(value)
    return "".join(out)


def _parts(text: str, values: dict[str, Value]) -> list[dict[str, Any]]:
    """A text with image variables in it as parts: the text around each image, the image between."""
    parts: list[dict[str, Any]] = []
    run = ""
    for piece in pieces(text):
        value = piece if isinstance(piece, str) else values[piece[0]]
        if isinstance(value, str):
            run += value
            continue
        if run:
            parts.append({"type": "input_text", "text": run})
        parts.append(value)
        run = ""
    if run:
        parts.append({"type": "input_text", "text": run})
    return parts


def _content(content: Any, values: dict[str, Value]) -> Any:
    if isinstance(content, str):
        if all(isinstance(values[p[0]], str) for p in pieces(content) if isinstance(p, tuple)):
            return _text(content, values, "input")
        return _parts(content, values)
    filled: list[dict[str, Any]] = []
    for part in content:
        if part.get("type") == "input_text" and isinstance(part.get("text"), str):
            filled += _parts(part["text"], values)
        else:
            filled.append(part)
    return filled


def _messages(given: Any, values: dict[str, Value]) -> list[dict[str, Any]]:
    if given is None:
        return []
    if isinstance(given, str):
        given = [{"role": "user", "content": given}]
    return [
        {"type": "message", "role": message["role"], "content": _content(message["content"], values)}
        for message in given
    ]


def check_variables(stored: dict[str, Any], given: dict[str, Any]) -> dict[str, Value]:
    """The request's values, each checked, once they name exactly the prompt's variables."""
    names: list[str] = stored["variables"]
    label = f"Prompt '{stored['id']}' version '{stored['version']}'"
    unknown = [name for name in given if name not in names]
    if unknown:
        raise bad(
            f"Unknown prompt variables: {_names(unknown)}. {label} has: {_names(names)}.",
            "prompt.variables",
            "unknown_prompt_variable",
        )
    missing = [name for name in names if name not in given]
    if missing:
        raise bad(
            f"Missing prompt variables: {_names(missing)}. {label} needs a value for each.",
            "prompt.variables",
            "missing_prompt_variables",
        )
    return {name: _value(name, value) for name, value in given.items()}


def filled_body(body: dict[str, Any], stored: dict[str, Any]) -> dict[str, Any]:
    """`body` with the stored version (its JSON as the Admin API answers it) filled in."""
    ref = body["prompt"]
    given = ref.get("variables") or {}
    if not isinstance(given, dict):
        return body  # validation names the type
    values = check_variables(stored, given)
    filled = dict(body)
    filled["prompt"] = {**ref, "version": stored["version"]}  # the response says which version answered
    if filled.get("instructions") is None and stored.get("instructions"):
        filled["instructions"] = _text(stored["instructions"], values, "instructions")
    if not filled.get("model") and stored.get("model"):
        filled["model"] = stored["model"]
    messages = _messages(stored.get("input"), values)
    own = body.get("input")
    if messages:
        if own is None:
            filled["input"] = messages
        elif isinstance(own, str):
            filled["input"] = [*messages, {"type": "message", "role": "user", "content": own}]
        elif isinstance(own, list):
            filled["input"] = [*messages, *own]
    for name, value in (stored.get("options") or {}).items():
        if value is not None and filled.get(name) is None:
            filled[name] = value
    return filled
