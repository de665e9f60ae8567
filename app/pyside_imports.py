"""PySide6 loaded with a cheaper check of every module imported after it (a launch imports some 250).

PySide6 watches imports for its `from __feature__ import ...` switches (snake_case, true_property): once
it is loaded, each newly imported module is asked whether it uses PySide6, by `inspect.getsource(module)`
and a search for "PySide6" in the text. inspect goes through linecache and the tokenizer's encoding
detection for each file: 15-25 ms of CPU over a launch (asyncio's two dozen modules alone, ~18 ms).
The check here gives the same answer for a module with a `.py` file by searching the file's bytes
("PySide6" is ASCII, so the bytes hold it exactly when the decoded text does); any other module (built in,
compiled, frozen) goes to PySide6's own check. There is no public switch for this, hence the patch of a
private function; if PySide6 renames it, the patch does nothing and the launch is as slow as before.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

FEATURE_MODULE = "shibokensupport.feature"  # shiboken's embedded support package, loaded with PySide6
CHECK_NAME = "_mod_uses_pyside"


def file_mentions_pyside(path: str) -> bool | None:
    """Whether the source file at `path` names PySide6; None when it cannot be read."""
    try:
        with open(path, "rb") as source:
            return b"PySide6" in source.read()
    except OSError:
        return None


def quicker_check(original: Callable[[ModuleType], bool]) -> Callable[[ModuleType], bool]:
    """PySide6's question "does this module use PySide6?", answered from the file's bytes where there is one."""

    def uses_pyside(module: ModuleType) -> bool:
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.endswith(".py"):
            answer = file_mentions_pyside(path)
            if answer is not None:
                return answer
        return original(module)

    uses_pyside.quicker = True  # type: ignore[attr-defined]  # marks the patch: installed once
    return uses_pyside


def load_pyside() -> None:
    """Import PySide6 (QtCore) and put the quicker check in place of PySide6's own."""
    import PySide6.QtCore  # noqa: F401  # loads shiboken and its support package

    feature = sys.modules.get(FEATURE_MODULE)
    original = getattr(feature, CHECK_NAME, None)
    if feature is None or not callable(original) or getattr(original, "quicker", False):
        return
    setattr(feature, CHECK_NAME, quicker_check(original))
