"""Engine steps into the response object and its stream events, in the shapes the official client's types expect."""

from __future__ import annotations

import base64
import json
import secrets
import time
from typing import Any

from app.sandbox.answer.echo import echoed_fields
from app.sandbox.answer.estimate import count_tokens
from app.sandbox.answer.logprob_shapes import part_logprob
from app.sandbox.answer.sealed import ReasoningContent, Sealer
from app.sandbox.engines.base import Citations, FunctionCallDelta, Reasoning, Search, TextDelta
from app.sandbox.ids import new_id
from app.sandbox.request.engine_request import EngineRequest
from app.sandbox.request.tools import CallRecord

Event = dict[str, Any]


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


class ResponseBuilder:
    """Accumulates engine steps into the response object, and yields the matching stream events."""

    def __init__(self, request: EngineRequest, delta_event: str, sealer: Sealer | None = None) -> None:
        self.request = request
        self.delta_event = delta_event
        self.sealer = sealer
        self.logprobs: list[dict[str, Any]] = []  # the open message's tokens, when logprobs were asked for
        self.sequence = 0
        self.output: list[dict[str, Any]] = []
        self.message: dict[str, Any] | None = None
        self.text = ""  # every message's text, in order
        self._message_text = ""  # the open message's
        self.call: dict[str, Any] | None = None  # the open function call item
        self._call_index: int | None = None
        self.reasoning_tokens = 0
        self.compaction: dict[str, Any] | None = None  # context_management compacted the history: this item
        self.call_tokens = 0
        self.response: dict[str, Any] = {
            "id": new_id("resp"),
            "object": "response",
            "created_at": int(time.time()),
            "completed_at": None,  # Open Responses: the key on every snapshot, a time once completed
            "status": "queued" if request.body.background else "in_progress",
            "model": request.model,
            "output": self.output,
            **echoed_fields(request),
            "usage": None,
            "error": None,
            "incomplete_details": None,
        }

    def event(self, kind: str, **fields: Any) -> Event:
        event = {"type": kind, "sequence_number": self.sequence, **fields}
        self.sequence += 1
        return event

    def snapshot(self) -> dict[str, Any]:
        return dict(_copy(self.response))

    def start(self, waiting: bool = False) -> list[Event]:
        """`response.created`; for a background response or one `waiting` for its model's turn,
        `response.queued` after it; then `response.in_progress`, unless waiting (`take_up` gives it then)."""
        if waiting:
            self.response["status"] = "queued"
        events = [self.event("response.created", response=self.snapshot())]
        if self.response["status"] == "queued":
            events.append(self.event("response.queued", response=self.snapshot()))
        return events if waiting else [*events, *self.take_up()]

    def take_up(self) -> list[Event]:
        """The answer begins: `response.in_progress`, and the compaction item when there is one."""
        self.response["status"] = "in_progress"
        return [self.event("response.in_progress", response=self.snapshot()), *self._compacted()]

    def _compacted(self) -> list[Event]:
        """The compaction item first in the output, when context_management compacted the history."""
        if self.compaction is None:
            return []
        self.output.append(self.compaction)
        return [
            self.event(f"response.output_item.{phase}", output_index=0, item=_copy(self.compaction))
            for phase in ("added", "done")
        ]

    def reasoning(self, step: Reasoning) -> list[Event]:
        index = len(self.output)
        item: dict[str, Any] = {"type": "reasoning", "id": new_id("rs"), "summary": []}
        if "reasoning.encrypted_content" in self.request.include:
            # Sealed (sealed.py): it comes back as input, and only this sandbox can open it.
            content = ReasoningContent(step.text or step.summary, step.tokens)
            item["encrypted_content"] = (
                self.sealer.seal(content) if self.sealer else base64.b64encode(content.text.encode()).decode()
            )
        self.reasoning_tokens += step.tokens
        events = [self.event("response.output_item.added", output_index=index, item=_copy(item))]
        self.output.append(item)
        if step.summary:
            part = {"type": "summary_text", "text": step.summary}
            item["summary"] = [part]
            common = {"item_id": item["id"], "output_index": index, "summary_index": 0}
            events += [
                self.event(
                    "response.reasoning_summary_part.added",
                    **common,
                    part={"type": "summary_text", "text": ""},
                ),
                self.event("response.reasoning_summary_text.delta", **common, delta=step.summary),
                self.event("response.reasoning_summary_text.done", **common, text=step.summary),
                self.event("response.reasoning_summary_part.done", **common, part=part),
            ]
        events.append(self.event("response.output_item.done", output_index=index, item=_copy(item)))
        return events

    def search(self, step: Search) -> list[Event]:
        index = len(self.output)
        action: dict[str, Any] = {"type": "search", "query": step.query}
        item: dict[str, Any] = {"type": "web_search_call", "id": new_id("ws"), "status": "in_progress"}
        item["action"] = action
        common = {"item_id": item["id"], "output_index": index}
        events = [self.event("response.output_item.added", output_index=index, item=_copy(item))]
        events += [
            self.event(f"response.web_search_call.{phase}", **common)
            for phase in ("in_progress", "searching")
        ]
        item["status"] = "completed"
        if "web_search_call.action.sources" in self.request.include:
            action["sources"] = [{"type": "url", "url": result.url} for result in step.results]
        self.output.append(item)
        events.append(self.event("response.web_search_call.completed", **common))
        events.append(self.event("response.output_item.done", output_index=index, item=_copy(item)))
        return events

    def _open_message(self) -> list[Event]:
        self.message = {
            "type": "message",
            "id": new_id("msg"),
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        }
        index = len(self.output)
        self.output.append(self.message)
        events = [self.event("response.output_item.added", output_index=index, item=_copy(self.message))]
        part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
        self.message["content"].append(part)
        events.append(
            self.event(
                "response.content_part.added",
                item_id=self.message["id"],
                output_index=index,
                content_index=0,
                part=_copy(part),
            )
        )
        return events

    def delta(self, step: TextDelta) -> list[Event]:
        events = self._close_call("completed")
        events += self._open_message() if self.message is None else []
        assert self.message is not None
        self.text += step.text
        self._message_text += step.text
        extra = {"obfuscation": secrets.token_urlsafe(8)} if self.request.obfuscate else {}
        logprobs = [part_logprob(token) for token in step.logprobs]
        self.logprobs += logprobs
        events.append(
            self.event(
                self.delta_event,
                item_id=self.message["id"],
                output_index=self.output.index(self.message),
                content_index=0,
                delta=step.text,
                logprobs=logprobs,
                **extra,
            )
        )
        return events

    def function_call(self, step: FunctionCallDelta) -> list[Event]:
        """A call's first piece opens its item (closing the message or call before it); each piece is a delta."""
        events: list[Event] = []
        if self.call is None or step.index != self._call_index:
            events += self._close_call("completed")
            if self.message is not None:
                events += self._close_message("completed")
            self.call = {
                "type": "function_call",
                "id": new_id("fc"),
                "call_id": new_id("call"),
                "name": step.name,
                "arguments": "",
                "status": "in_progress",
            }
            if step.namespace:
                self.call["namespace"] = step.namespace
            self._call_index = step.index
            events.append(
                self.event("response.output_item.added", output_index=len(self.output), item=_copy(self.call))
            )
            self.output.append(self.call)
        if step.arguments:
            self.call["arguments"] += step.arguments
            self.call_tokens += count_tokens(step.arguments)
            events.append(
                self.event(
                    "response.function_call_arguments.delta",
                    item_id=self.call["id"],
                    output_index=self.output.index(self.call),
                    delta=step.arguments,
                )
            )
        return events

    def _close_call(self, status: str) -> list[Event]:
        if self.call is None:
            return []
        call, self.call = self.call, None
        call["status"] = status
        index = self.output.index(call)
        common = {"item_id": call["id"], "output_index": index}
        return [
            self.event(
                "response.function_call_arguments.done",
                **common,
                name=call["name"],
                arguments=call["arguments"],
            ),
            self.event("response.output_item.done", output_index=index, item=_copy(call)),
        ]

    @property
    def calls(self) -> list[CallRecord]:
        """The function calls of this answer, for the stored history."""
        return [
            CallRecord(item["call_id"], item["name"], item["arguments"], item.get("namespace"))
            for item in self.output
            if item["type"] == "function_call"
        ]

    def citations(self, step: Citations) -> list[Event]:
        if self.message is None:
            return []
        part = self.message["content"][0]
        events = []
        for citation in step.items:
            annotation = {
                "type": "url_citation",
                "url": citation.url,
                "title": citation.title,
                "start_index": citation.start_index,
                "end_index": citation.end_index,
            }
            events.append(
                self.event(
                    "response.output_text.annotation.added",
                    item_id=self.message["id"],
                    output_index=self.output.index(self.message),
                    content_index=0,
                    annotation_index=len(part["annotations"]),
                    annotation=annotation,
                )
            )
            part["annotations"].append(annotation)
        return events

    def _close_message(self, status: str) -> list[Event]:
        """output_text.done, content_part.done and output_item.done: every item opened is closed."""
        events = [] if self.message is not None else self._open_message()
        assert self.message is not None
        message, text, logprobs = self.message, self._message_text, self.logprobs
        self.message, self._message_text, self.logprobs = None, "", []
        part = message["content"][0]
        part["text"] = text
        part["logprobs"] = logprobs
        message["status"] = status
        index = self.output.index(message)
        common = {"item_id": message["id"], "output_index": index, "content_index": 0}
        return [
            *events,
            self.event("response.output_text.done", **common, text=text, logprobs=_copy(logprobs)),
            self.event("response.content_part.done", **common, part=_copy(part)),
            self.event("response.output_item.done", output_index=index, item=_copy(message)),
        ]

    def _usage(self, input_tokens: int, output_tokens: int | None = None) -> dict[str, Any]:
        """`output_tokens`: the engine's real count when it has a tokenizer; otherwise an estimate."""
        if output_tokens is None:
            output_tokens = count_tokens(self.text) + self.reasoning_tokens + self.call_tokens
        return {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": self.reasoning_tokens},
            "total_tokens": input_tokens + output_tokens,
        }

    def finish(self, input_tokens: int, incomplete: bool, output_tokens: int | None = None) -> list[Event]:
        status = "incomplete" if incomplete else "completed"
        events = self._close_call(status)
        if self.message is not None or not any(item["type"] == "function_call" for item in self.output):
            events += self._close_message(status)  # an answer of calls alone has no empty message
        self.response["usage"] = self._usage(input_tokens, output_tokens)
        if incomplete:
            self.response["status"] = "incomplete"
            self.response["incomplete_details"] = {"reason": "max_output_tokens"}
            events.append(self.event("response.incomplete", response=self.snapshot()))
        else:
            self.response["status"] = "completed"
            self.response["completed_at"] = int(time.time())
            events.append(self.event("response.completed", response=self.snapshot()))
        return events

    def cancel(self, input_tokens: int) -> list[Event]:
        """Stopped by `POST .../cancel`: what was opened is closed with what it holds so far, then the
        response, `cancelled`, in a `response.incomplete` event (no event type names a cancel)."""
        events = self._close_call("incomplete")
        if self.message is not None:
            events += self._close_message("incomplete")
        self.response["usage"] = self._usage(input_tokens)
        self.response["status"] = "cancelled"
        events.append(self.event("response.incomplete", response=self.snapshot()))
        return events

    def fail(self, input_tokens: int, message: str) -> list[Event]:
        """The answer broke its promised format: close what was opened, then `response.failed`."""
        events = self._close_call("incomplete") + self._close_message("incomplete")
        self.response["usage"] = self._usage(input_tokens)
        self.response["status"] = "failed"
        # The client's types allow a fixed list of codes; "server_error" is the one that fits a model fault.
        self.response["error"] = {"code": "server_error", "message": message}
        events.append(self.event("response.failed", response=self.snapshot()))
        return events
