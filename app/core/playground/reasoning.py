"""Which models reason, and the efforts they take (Qt-free, cheap to import: the window's state reads it
before the first frame)."""

from __future__ import annotations

import re

# The efforts every reasoning model of the Responses API takes; the service decides when none is sent.
REASONING_EFFORTS = ("minimal", "low", "medium", "high")
_THINKING = re.compile(r"(?:^|[-_.])think(?:[-_.]|$)")


def is_reasoning_model(model: str) -> bool:
    """Whether a model reasons, and so takes `reasoning.effort`. The interface names <service>-think and
    <service>-think-mini as the reasoning models; the model list marks none, so the name decides."""
    return bool(_THINKING.search(model.lower()))
