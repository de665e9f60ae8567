"""Strict parsing of a `POST /responses` body into a typed request; every fault is a 400 naming its field."""

from __future__ import annotations

import base64
import binascii
import io
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

import jsonschema
from PIL import Image, UnidentifiedImageError

from .errors import ApiError

ALLOWED_FIELDS = {
    "model",
    "input",
    "instructions",
    "previous_response_id",
    "tools",
    "text",
    "stream",
    "max_output_tokens",
    "temperature",
    "top_p",
    "store",
    "metadata",
}
ROLES = {"user", "assistant", "system", "developer"}
IMAGE_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}
_DATA_URL = re.compile(r"^data:(image/[A-Za-z0-9.+-]+)?;base64,(.*)$", re.DOTALL)


@dataclass(frozen=True)
class ImageInfo:
    format: str  # PNG, JPEG, WEBP, GIF; "remote" for an http(s) URL that is not fetched
    width: int
    height: int
    size_bytes: int
    detail: str
    url: str | None = None

    def tokens(self) -> int:
        """Estimated image tokens, the way the hosted service documents it for its tile model."""
        if self.detail == "low" or self.format == "remote":
            return 85
        width, height = float(self.width), float(self.height)
        scale = min(1.0, 2048 / max(width, height))
        width, height = width * scale, height * scale
        scale = min(1.0, 768 / min(width, height))
        width, height = width * scale, height * scale
        return 85 + 170 * math.ceil(width / 512) * math.ceil(height / 512)

    def describe(self) -> str:
        if self.format == "remote":
            return f"an image at {self.url} (not fetched by the sandbox)"
        kb = self.size_bytes / 1024
        return f"a {self.format} image of {self.width}×{self.height} pixels ({kb:,.1f} KB)"


@dataclass
class Message:
    role: str
    parts: list[dict[str, Any]]  # input_text/output_text {text} or input_image {image_url, detail}
    images: list[ImageInfo] = field(default_factory=list)

    def text(self) -> str:
        return "\n".join(part["text"] for part in self.parts if "text" in part)


@dataclass
class ResponseRequest:
    model: str
    messages: list[Message]
    instructions: str | None = None
    previous_response_id: str | None = None
    web_search: bool = False
    tools: list[dict[str, Any]] = field(default_factory=list)
    text_format: dict[str, Any] = field(default_factory=lambda: {"type": "text"})
    stream: bool = False
    max_output_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    store: bool = True
    metadata: dict[str, str] = field(default_factory=dict)


def _bad(message: str, param: str | None, code: str = "invalid_value") -> ApiError:
    return ApiError(400, message, code, param)


def parse_json_body(raw: bytes) -> dict[str, Any]:
    if not raw.strip():
        raise _bad("The request body is empty; send a JSON object.", None, "invalid_json")
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise _bad(f"The request body is not valid JSON: {error}.", None, "invalid_json") from None
    if not isinstance(body, dict):
        raise _bad("The request body must be a JSON object.", None, "invalid_json")
    return body


def reject_unknown(body: dict[str, Any], allowed: set[str], prefix: str = "") -> None:
    for name in body:
        if name not in allowed:
            raise _bad(f"Unknown parameter: '{prefix}{name}'.", f"{prefix}{name}", "unknown_parameter")


def _expect(value: Any, kind: type | tuple[type, ...], param: str, what: str) -> Any:
    # bool is an int in Python: keep true/false out of numeric fields.
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise _bad(f"'{param}' must be {what}, not a boolean.", param, "invalid_type")
    if not isinstance(value, kind):
        raise _bad(f"'{param}' must be {what}, not {type(value).__name__}.", param, "invalid_type")
    return value


def parse_image(url: str, detail: str, param: str, max_bytes: int) -> ImageInfo:
    if url.startswith(("http://", "https://")):
        return ImageInfo("remote", 0, 0, 0, detail, url)
    match = _DATA_URL.match(url)
    if not match:
        raise _bad(
            "'image_url' must be an http(s) URL or a data URL such as 'data:image/png;base64,...'.",
            param,
            "invalid_image",
        )
    encoded = match.group(2)
    if len(encoded) * 3 // 4 > max_bytes + 3:
        raise _bad(f"The image is larger than the limit of {max_bytes:,} bytes.", param, "image_too_large")
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise _bad("The image's base64 data is not valid base64.", param, "invalid_image") from None
    if len(data) > max_bytes:
        raise _bad(f"The image is larger than the limit of {max_bytes:,} bytes.", param, "image_too_large")
    try:
        with Image.open(io.BytesIO(data)) as image:
            image_format = image.format or ""
            width, height = image.size
            image.verify()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        raise _bad(
            "The data is not a readable image: send a PNG, JPEG, WebP or GIF.", param, "invalid_image"
        ) from None
    if image_format not in IMAGE_FORMATS:
        raise _bad(
            f"Images in {image_format or 'this'} format are not supported: send PNG, JPEG, WebP or GIF.",
            param,
            "invalid_image",
        )
    return ImageInfo(image_format, width, height, len(data), detail)


def _parse_part(
    part: Any, role: str, param: str, max_image_bytes: int
) -> tuple[dict[str, Any], ImageInfo | None]:
    _expect(part, dict, param, "a content part object")
    kind = part.get("type")
    if kind in ("input_text", "output_text") and (kind == "input_text" or role == "assistant"):
        reject_unknown(part, {"type", "text", "annotations"}, f"{param}.")
        _expect(part.get("text"), str, f"{param}.text", "a string")
        return {"type": kind, "text": part["text"]}, None
    if kind == "input_image":
        reject_unknown(part, {"type", "image_url", "detail"}, f"{param}.")
        url = _expect(part.get("image_url"), str, f"{param}.image_url", "a string")
        detail = part.get("detail", "auto")
        if detail not in ("auto", "low", "high"):
            raise _bad(f"'{param}.detail' must be one of auto, low, high.", f"{param}.detail")
        info = parse_image(url, detail, f"{param}.image_url", max_image_bytes)
        return {"type": "input_image", "image_url": url, "detail": detail}, info
    raise _bad(
        f"'{param}.type' must be input_text or input_image"
        + (" (or output_text)" if role == "assistant" else "")
        + f", not {kind!r}.",
        f"{param}.type",
    )


def parse_input(value: Any, max_image_bytes: int) -> list[Message]:
    if isinstance(value, str):
        return [Message("user", [{"type": "input_text", "text": value}])]
    if not isinstance(value, list) or not value:
        raise _bad("'input' must be a string or a non-empty array of messages.", "input", "invalid_type")
    messages = []
    for index, item in enumerate(value):
        param = f"input[{index}]"
        _expect(item, dict, param, "a message object")
        reject_unknown(item, {"type", "role", "content", "id", "status"}, f"{param}.")
        if item.get("type", "message") != "message":
            raise _bad(f"'{param}.type' must be 'message'.", f"{param}.type")
        role = item.get("role")
        if role not in ROLES:
            raise _bad(f"'{param}.role' must be one of {', '.join(sorted(ROLES))}.", f"{param}.role")
        content = item.get("content")
        if isinstance(content, str):
            kind = "output_text" if role == "assistant" else "input_text"
            messages.append(Message(role, [{"type": kind, "text": content}]))
            continue
        if not isinstance(content, list):
            raise _bad(
                f"'{param}.content' must be a string or an array of parts.",
                f"{param}.content",
                "invalid_type",
            )
        message = Message(role, [])
        for part_index, part in enumerate(content):
            parsed, image = _parse_part(part, role, f"{param}.content[{part_index}]", max_image_bytes)
            message.parts.append(parsed)
            if image:
                message.images.append(image)
        messages.append(message)
    return messages


def _parse_text_format(value: Any) -> dict[str, Any]:
    _expect(value, dict, "text", "an object")
    reject_unknown(value, {"format"}, "text.")
    text_format = _expect(value.get("format", {"type": "text"}), dict, "text.format", "an object")
    kind = text_format.get("type")
    if kind in ("text", "json_object"):
        reject_unknown(text_format, {"type"}, "text.format.")
        return {"type": kind}
    if kind != "json_schema":
        raise _bad("'text.format.type' must be text, json_object or json_schema.", "text.format.type")
    reject_unknown(text_format, {"type", "name", "schema", "strict", "description"}, "text.format.")
    name = _expect(text_format.get("name"), str, "text.format.name", "a string")
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
        raise _bad("'text.format.name' must be 1-64 letters, digits, '_' or '-'.", "text.format.name")
    schema = _expect(text_format.get("schema"), dict, "text.format.schema", "a JSON Schema object")
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as error:
        raise _bad(
            f"'text.format.schema' is not a valid JSON Schema: {error.message}.",
            "text.format.schema",
            "invalid_json_schema",
        ) from None
    strict = text_format.get("strict", False)
    _expect(strict, bool, "text.format.strict", "a boolean")
    return {
        "type": "json_schema",
        "name": name,
        "schema": schema,
        "strict": strict,
        **({"description": text_format["description"]} if "description" in text_format else {}),
    }


def parse_request(body: dict[str, Any], models: list[str], max_image_bytes: int) -> ResponseRequest:
    reject_unknown(body, ALLOWED_FIELDS)
    if "model" not in body:
        raise _bad("Missing required parameter: 'model'.", "model", "missing_required_parameter")
    model = _expect(body["model"], str, "model", "a string")
    if model not in models:
        raise _bad(
            f"The model '{model}' does not exist. Available: {', '.join(models)}.", "model", "model_not_found"
        )
    if "input" not in body:
        raise _bad("Missing required parameter: 'input'.", "input", "missing_required_parameter")
    request = ResponseRequest(model, parse_input(body["input"], max_image_bytes))
    if body.get("instructions") is not None:
        request.instructions = _expect(body["instructions"], str, "instructions", "a string")
    if body.get("previous_response_id") is not None:
        request.previous_response_id = _expect(
            body["previous_response_id"], str, "previous_response_id", "a string"
        )
    tools = _expect(body.get("tools", []), list, "tools", "an array")
    for index, tool in enumerate(tools):
        _expect(tool, dict, f"tools[{index}]", "a tool object")
        if tool.get("type") != "web_search_preview":
            raise _bad(f"'tools[{index}].type' must be 'web_search_preview'.", f"tools[{index}].type")
        reject_unknown(tool, {"type", "search_context_size"}, f"tools[{index}].")
        request.web_search = True
    request.tools = tools
    if "text" in body:
        request.text_format = _parse_text_format(body["text"])
    request.stream = _expect(body.get("stream", False), bool, "stream", "a boolean")
    request.store = _expect(body.get("store", True), bool, "store", "a boolean")
    if body.get("max_output_tokens") is not None:
        value = _expect(body["max_output_tokens"], int, "max_output_tokens", "an integer")
        if value < 16:
            raise _bad("'max_output_tokens' must be at least 16.", "max_output_tokens")
        request.max_output_tokens = value
    for name, high in (("temperature", 2.0), ("top_p", 1.0)):
        if body.get(name) is not None:
            value = _expect(body[name], (int, float), name, "a number")
            if not 0 <= value <= high:
                raise _bad(f"'{name}' must be between 0 and {high:g}.", name)
            setattr(request, name, float(value))
    if body.get("metadata") is not None:
        metadata = _expect(body["metadata"], dict, "metadata", "an object")
        if len(metadata) > 16 or not all(
            isinstance(v, str) and len(k) <= 64 and len(v) <= 512 for k, v in metadata.items()
        ):
            raise _bad(
                "'metadata' holds at most 16 string values (keys up to 64, values up to 512 characters).",
                "metadata",
            )
        request.metadata = metadata
    return request
