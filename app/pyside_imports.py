"""PySide6 loaded without its `__feature__` import hook.

PySide6 puts a hook in front of Python's import for its `from __feature__ import ...` switches (snake_case,
true_property). Once it is loaded, every import statement that runs (a module's first import, and each later
`from x import y`, however often a function runs it) goes through two Python functions of PySide's, and
each newly imported module is asked whether it uses PySide6, by reading its source. The console uses no
feature switch, so the hook only costs: ~3 ms of a launch (some 250 modules are imported after PySide6), and
in the tests ~470,000 import statements of the fuzzing module alone (hypothesis imports inside functions),
~1.5 s of a worker.

PySide6 keeps the import it wrapped in `builtins.__orig_import__`: its own lazy import of Qt's classes, which
stays. This puts it back in place of the hook. There is no public switch for this; if a release renames
these, nothing is changed and everything works as before, only slower.
"""

from __future__ import annotations

import builtins

FEATURE_HOOK = "__feature_import__"  # PySide6's hook, as it names it in builtins
WRAPPED_IMPORT = "__orig_import__"  # the import the hook calls when no feature is asked for


def load_pyside() -> None:
    """Import PySide6 (QtCore), then take its `__feature__` hook out of Python's import."""
    import PySide6.QtCore  # noqa: F401  # loads shiboken, which installs the hook

    hook = getattr(builtins, FEATURE_HOOK, None)
    wrapped = getattr(builtins, WRAPPED_IMPORT, None)
    if hook is not None and callable(wrapped) and builtins.__import__ is hook:
        builtins.__import__ = wrapped
