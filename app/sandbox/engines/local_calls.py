"""Reading the local model's calls as they are written, so their arguments stream token by token.

The model writes `<tool_call>{"name": "f", "arguments": {...}}</tool_call>`, one block per call (the
grammar makes it so: name first, arguments an object). `CallStream` is fed the text piece by piece and
gives `FunctionCallDelta`s: the call's item opens once its name is read, each piece of the arguments is a
delta, and the block's end closes it. A block that repeats an earlier call of the same answer exactly is
not a new call: a small model at temperature 0 tends to write the same call again and again, so its
pieces are held back while they could still be a repeat, and a finished repeat ends the answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from app.sandbox.request.tools import ToolPlan

from .base import FunctionCallDelta
from .local_tools import CALL_END, CALL_START
from .upstream_tools import WireNames

_HEADER = re.compile(r'\s*\{\s*"name"\s*:\s*("(?:[^"\\]|\\.)*")\s*,\s*"arguments"\s*:')
_TAIL = re.compile(r"\s*\}\s*" + re.escape(CALL_END))


@dataclass
class _Call:
    name: str
    namespace: str | None
    arguments: str = ""
    sent: int = 0  # how much of `arguments` went out as deltas
    depth: int = 0
    in_string: bool = False
    escaped: bool = False


@dataclass
class CallStream:
    plan: ToolPlan
    buffer: str = ""
    state: str = "mark"  # mark -> header -> arguments -> tail -> mark ...
    call: _Call | None = None
    done: list[tuple[str, str]] = field(default_factory=list)  # (name, arguments) of finished calls
    repeated: bool = False  # a block repeated an earlier call: the answer is over
    open: bool = False  # a call went out and has not ended: cut now, the answer is incomplete

    def feed(self, text: str) -> list[FunctionCallDelta]:
        self.buffer += text
        deltas: list[FunctionCallDelta] = []
        while not self.repeated and self._step(deltas):
            pass
        return deltas

    @property
    def count(self) -> int:
        return len(self.done)

    def _step(self, deltas: list[FunctionCallDelta]) -> bool:
        """Consumes what it can of the buffer; False when it needs more text."""
        if self.state == "mark":
            start = self.buffer.lstrip()
            if len(start) < len(CALL_START):
                return False
            self.buffer = start.removeprefix(CALL_START)  # the grammar wrote the mark: nothing else fits
            self.state = "header"
            return True
        if self.state == "header":
            match = _HEADER.match(self.buffer)
            if match is None:
                return False
            name, namespace = WireNames(self.plan).back(json.loads(match.group(1)))
            self.call = _Call(name, namespace)
            self.buffer = self.buffer[match.end() :].lstrip()
            self.state = "arguments"
            if not self.done:  # a later call opens once it is known not to repeat an earlier one
                deltas.append(FunctionCallDelta(self.count, name, "", namespace))
                self.open = True
            return True
        if self.state == "arguments":
            return self._arguments(deltas)
        match = _TAIL.match(self.buffer)
        if match is None:
            return False
        self.buffer = self.buffer[match.end() :]
        self.state = "mark"
        return True

    def _arguments(self, deltas: list[FunctionCallDelta]) -> bool:
        call = self.call
        assert call is not None
        if not call.arguments:
            self.buffer = self.buffer.lstrip()  # the space before the object is no part of the arguments
        if not self.buffer:
            return False
        end = _object_end(call, self.buffer)
        call.arguments += self.buffer[:end]
        self.buffer = self.buffer[end:]
        finished = call.depth == 0 and bool(call.arguments)
        if self._may_repeat(call):
            if finished:
                self.repeated = True
            return finished
        if call.sent == 0 and self.done:
            deltas.append(FunctionCallDelta(self.count, call.name, "", call.namespace))
            self.open = True
        if len(call.arguments) > call.sent:
            deltas.append(
                FunctionCallDelta(self.count, call.name, call.arguments[call.sent :], call.namespace)
            )
            call.sent = len(call.arguments)
        if finished:
            self.done.append((call.name, call.arguments))
            self.open = False
            self.state = "tail"
        return finished

    def _may_repeat(self, call: _Call) -> bool:
        """Whether this later call, so far, is the start of an earlier one (never for the first call)."""
        return call.sent == 0 and any(
            name == call.name and arguments.startswith(call.arguments) for name, arguments in self.done
        )


def _object_end(call: _Call, text: str) -> int:
    """How much of `text` belongs to the arguments object (a JSON scan: strings, escapes, nesting)."""
    for index, char in enumerate(text):
        if call.in_string:
            if call.escaped:
                call.escaped = False
            elif char == "\\":
                call.escaped = True
            elif char == '"':
                call.in_string = False
        elif char == '"':
            call.in_string = True
        elif char in "{[":
            call.depth += 1
        elif char in "}]":
            call.depth -= 1
            if call.depth == 0:
                return index + 1
    return len(text)
