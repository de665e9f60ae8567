"""A forked child's end as a new interpreter's end, for what the child made (tests/fork_server.py's `finalize`).

Why not the interpreter's own end: it tears down every module, those the parent preloaded too, writing to
every page the child shares with its parent and so copying them all (~85 ms of CPU a child, most of what a
small program's check costs), while destroying nothing the child made that the steps below do not. Here, in
the interpreter's order: non-daemon threads joined, the exit functions run (PySide's among them, which
destroys the application and the Qt objects Python owns: a QThread still running aborts the process there),
the modules the child imported and its program's globals cleared and collected (their objects' `__del__`
and finalizers run), the standard streams flushed, and the process gone with its exit code.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import threading
from collections.abc import Mapping
from types import ModuleType
from typing import NoReturn


def end(code: int, preloaded: Mapping[str, ModuleType], kept: list[dict[str, object]]) -> NoReturn:
    """End this forked child with `code`: `preloaded` are the parent's modules (left as they are), `kept`
    the namespaces that hold the child's program (a `python -m` module's globals) until the end."""
    try:
        threading._shutdown()  # type: ignore[attr-defined]  # as the interpreter's end waits for them
        atexit._run_exitfuncs()
        for namespace in kept:
            namespace.clear()
        made = [module for name, module in sys.modules.items() if preloaded.get(name) is not module]
        for module in reversed(made):  # the last imported first, as the interpreter's end goes
            vars(module).clear()
        del made
        gc.collect()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)
