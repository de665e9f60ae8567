"""A validated `POST /v1/responses` body as the engines see it: messages with their images read, options resolved."""

from __future__ import annotations

import base64
import binascii
import io
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, UnidentifiedImageError

from app.sandbox.contract.responses import (
    CompactionItem,
    CreateResponse,
    FormatJsonSchema,
    InputImage,
    InputMessage,
)
from app.sandbox.contract.tools import ChoiceHosted, ItemReference
from app.sandbox.contract.validate import bad, validate
from app.sandbox.errors import ServiceError, quote
from app.sandbox.ids import new_id
from app.sandbox.request.tools import CallRecord, ToolPlan, plan_tools
from app.sandbox.request.unsupported import refuse_reasoning, refuse_unsupported
from app.schema.items import FunctionCallItem, FunctionCallOutputItem, OutputText, Refusal

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
            return f"an image at {quote(self.url or '')} (not fetched by the sandbox)"
        kb = self.size_bytes / 1024
        return f"a {self.format} image of {self.width}×{self.height} pixels ({kb:,.1f} KB)"


@dataclass
class Message:
    """One turn: `parts` are input_text/output_text {text}, input_image {image_url, detail} or refusal."""

    role: str  # user, assistant, system, developer; "tool" for a function's output
    parts: list[dict[str, Any]]
    images: list[ImageInfo] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)  # an assistant's function calls, after its text
    call_id: str | None = None  # a "tool" message: the call it answers

    def text(self) -> str:
        return "\n".join(part["text"] for part in self.parts if "text" in part)


@dataclass
class EngineRequest:
    """What engines read: model, messages, sampling, the output format, and the options the sandbox honours."""

    model: str
    messages: list[Message]
    body: CreateResponse
    input_items: list[dict[str, Any]] = field(default_factory=list)
    web_search: bool = False
    force_search: bool = False
    text_format: dict[str, Any] = field(default_factory=lambda: {"type": "text"})
    reasoning_effort: str | None = None
    reasoning_summary: str | None = "auto"  # no `reasoning` at all: a summary, as before
    verbosity: str = "medium"
    include: frozenset[str] = frozenset()
    tools: ToolPlan = field(default_factory=ToolPlan)
    output_refs: list[tuple[str, str]] = field(default_factory=list)  # (param, call_id) of each output

    @property
    def instructions(self) -> str | None:
        return self.body.instructions

    @property
    def previous_response_id(self) -> str | None:
        return self.body.previous_response_id

    @property
    def stream(self) -> bool:
        return bool(self.body.stream)

    @property
    def store(self) -> bool:
        return self.body.store is not False

    @property
    def max_output_tokens(self) -> int | None:
        return self.body.max_output_tokens

    @property
    def temperature(self) -> float | None:
        return None if self.body.temperature is None else float(self.body.temperature)

    @property
    def top_p(self) -> float | None:
        return None if self.body.top_p is None else float(self.body.top_p)

    @property
    def metadata(self) -> dict[str, Any]:
        return dict(self.body.metadata or {})

    @property
    def obfuscate(self) -> bool:
        options = self.body.stream_options
        return options is not None and options.include_obfuscation is True


def parse_image(url: str, detail: str, param: str, max_bytes: int) -> ImageInfo:
    if url.startswith(("http://", "https://")):
        return ImageInfo("remote", 0, 0, 0, detail, url)
    match = _DATA_URL.match(url)
    if not match:
        raise bad(
            "'image_url' must be an http(s) URL or a data URL such as 'data:image/png;base64,...'.",
            param,
            "invalid_image",
        )
    encoded = match.group(2)
    if len(encoded) * 3 // 4 > max_bytes + 3:
        raise bad(f"The image is larger than the limit of {max_bytes:,} bytes.", param, "image_too_large")
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise bad("The image's base64 data is not valid base64.", param, "invalid_image") from None
    if len(data) > max_bytes:
        raise bad(f"The image is larger than the limit of {max_bytes:,} bytes.", param, "image_too_large")
    try:
        with Image.open(io.BytesIO(data)) as image:
            image_format = image.format or ""
            width, height = image.size
            image.verify()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        raise bad(
            "The data is not a readable image: send a PNG, JPEG, WebP or GIF.", param, "invalid_image"
        ) from None
    if image_format not in IMAGE_FORMATS:
        raise bad(
            f"Images in {image_format or 'this'} format are not supported: send PNG, JPEG, WebP or GIF.",
            param,
            "invalid_image",
        )
    return ImageInfo(image_format, width, height, len(data), detail)


def _message(item: InputMessage, param: str, max_image_bytes: int) -> Message:
    if isinstance(item.content, str):
        kind = "output_text" if item.role == "assistant" else "input_text"
        return Message(item.role, [{"type": kind, "text": item.content}])
    message = Message(item.role, [])
    for index, part in enumerate(item.content):
        where = f"{param}.content[{index}]"
        if isinstance(part, OutputText | Refusal) and item.role != "assistant":
            raise bad(
                f"'{where}.type' must be input_text or input_image, not {part.type!r}.", f"{where}.type"
            )
        if isinstance(part, InputImage):
            if part.file_id is not None:
                raise bad("The sandbox has no files: send the image as a URL.", f"{where}.file_id")
            message.images.append(
                parse_image(part.image_url, part.detail, f"{where}.image_url", max_image_bytes)
            )
            message.parts.append({"type": "input_image", "image_url": part.image_url, "detail": part.detail})
        elif isinstance(part, Refusal):
            message.parts.append({"type": "refusal", "refusal": part.refusal})
        else:
            message.parts.append({"type": part.type, "text": part.text})
    return message


def input_item_json(item: Any) -> dict[str, Any]:
    """An input item as `GET .../input_items` lists it: every item with an id, messages with content parts."""
    if isinstance(item, InputMessage):
        data = item.model_dump(exclude_none=True, exclude={"content"})
        if isinstance(item.content, str):
            kind = "output_text" if item.role == "assistant" else "input_text"
            data["content"] = [{"type": kind, "text": item.content}]
        else:  # part by part: dumping the tagged union whole makes pydantic warn
            data["content"] = [part.model_dump(exclude_none=True) for part in item.content]
        for part in data["content"]:
            if part["type"] == "output_text":
                part.setdefault("annotations", [])
        data.setdefault("id", new_id("msg"))
        data["status"] = data.get("status", "completed")
        return data
    data = dict(item.model_dump(exclude_none=True, by_alias=True))
    if isinstance(item, FunctionCallItem | FunctionCallOutputItem):
        data.setdefault("id", new_id("fc" if isinstance(item, FunctionCallItem) else "fco"))
        data.setdefault("status", "completed")
    return data


Unseal = Callable[[str], str | None]  # a compaction item's content to its summary; None: not this sandbox's


def _compaction(item: CompactionItem, where: str, unseal: Unseal | None) -> Message:
    """A compaction item read back: its summary, a developer turn every engine reads as the turns it replaced."""
    if unseal is None:  # a conversation's items: kept as sent, so a sealed summary is no item of theirs
        message = "A compaction item is taken as a response's input, not kept as a conversation's item."
        raise bad(message, f"{where}.type", "unsupported_value")
    summary = unseal(item.encrypted_content)
    if summary is None:
        raise bad(
            "The compaction item's encrypted_content was not made by this sandbox, or was changed: send "
            "it back exactly as /v1/responses/compact gave it.",
            f"{where}.encrypted_content",
            "invalid_encrypted_content",
        )
    return Message("developer", [{"type": "input_text", "text": summary}])


def _tool_messages(
    items: list[Any], param: str, max_image_bytes: int, unseal: Unseal | None = None
) -> tuple[list[Message], list[tuple[str, str]]]:
    """The conversation's messages in order: function calls join the assistant turn before them (one chat
    turn, as Chat Completions has it); outputs are "tool" messages. Also each output's (param, call_id)."""
    messages: list[Message] = []
    refs: list[tuple[str, str]] = []
    for index, item in enumerate(items):
        where = f"{param}[{index}]"
        if isinstance(item, InputMessage):
            messages.append(_message(item, where, max_image_bytes))
        elif isinstance(item, CompactionItem):
            messages.append(_compaction(item, where, unseal))
        elif isinstance(item, FunctionCallItem):
            call = CallRecord(item.call_id, item.name, item.arguments, item.namespace)
            if messages and messages[-1].role == "assistant" and messages[-1].call_id is None:
                messages[-1].calls.append(call)
            else:
                messages.append(Message("assistant", [], calls=[call]))
        elif isinstance(item, FunctionCallOutputItem):
            messages.append(
                Message("tool", [{"type": "input_text", "text": item.text()}], call_id=item.call_id)
            )
            refs.append((f"{where}.call_id", item.call_id))
        elif isinstance(item, ItemReference):  # the route resolves references before it parses
            raise bad(f"No stored item has the id '{quote(item.id)}'.", f"{where}.id", "item_not_found")
    return messages, refs


def refuse_repeated_ids(items: list[Any]) -> None:
    """An item id may appear once in an input, as the service has it (a 400 before anything is generated)."""
    seen: set[str] = set()
    for item in items:
        item_id = getattr(item, "id", None)
        if item_id is None:
            continue
        if item_id in seen:
            raise duplicate_item(item_id, "input")
        seen.add(item_id)


def duplicate_item(item_id: str, param: str) -> ServiceError:
    """The service's refusal of an item id given twice, or given again where it is already held."""
    return bad(
        f"Duplicate item found with id '{quote(item_id)}'. Remove the duplicate from '{param}' and try again.",
        param,
        "duplicate_item",
    )


def parse_request(
    body: dict[str, Any], models: list[str], max_image_bytes: int, unseal: Unseal | None = None
) -> EngineRequest:
    """The body checked and read; `unseal` opens compaction items (without it they are refused)."""
    refuse_unsupported(body)
    parsed = validate(CreateResponse, body)
    if parsed.model not in models:
        raise bad(
            f"The model '{quote(parsed.model)}' does not exist. Available: {', '.join(models)}.",
            "model",
            "model_not_found",
        )
    items: list[Any] = (
        [InputMessage(role="user", content=parsed.input)] if isinstance(parsed.input, str) else []
    )
    items = items or list(parsed.input)
    refuse_repeated_ids(items)
    refuse_reasoning(parsed.model, body.get("reasoning") if isinstance(body.get("reasoning"), dict) else None)
    messages, refs = _tool_messages(items, "input", max_image_bytes, unseal)
    request = EngineRequest(parsed.model, messages, parsed, [input_item_json(item) for item in items])
    request.output_refs = refs
    request.tools = plan = plan_tools(parsed)
    searches = any(tool.type.startswith("web_search") for tool in parsed.tools)
    request.web_search = searches and plan.search_allowed
    hosted = isinstance(parsed.tool_choice, ChoiceHosted)
    request.force_search = request.web_search and (hosted or (plan.mode == "required" and not plan.functions))
    if parsed.text is not None and parsed.text.format is not None:
        text_format = parsed.text.format
        request.text_format = text_format.model_dump(by_alias=True, exclude_none=True)
        if isinstance(text_format, FormatJsonSchema):
            request.text_format["strict"] = bool(text_format.strict)
            request.text_format["description"] = (
                text_format.description
            )  # null when not sent, as the spec has it
    if parsed.text is not None and parsed.text.verbosity is not None:
        request.verbosity = parsed.text.verbosity
    if parsed.reasoning is not None:
        request.reasoning_effort = parsed.reasoning.effort
        request.reasoning_summary = parsed.reasoning.summary or parsed.reasoning.generate_summary
    request.include = frozenset(parsed.include or ())
    return request
