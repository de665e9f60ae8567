"""Which engine answers in a sandbox: one name for the sandbox's command line and config, the console's
profiles (their settings file) and its embedded sandbox. Low in the house so that all of them may import it."""

from __future__ import annotations

from enum import StrEnum


class EngineKind(StrEnum):
    """The values are the words the command line takes and the settings file keeps."""

    SIMULATED = "simulated"  # offline and deterministic
    UPSTREAM = "upstream"  # another Responses or Chat Completions service answers (the command line only)
    LOCAL = "local"  # GGUF weights run by llama.cpp

    @classmethod
    def read(cls, text: object) -> EngineKind:
        """The engine a settings file names; the simulated one for nothing, or a word this console does not
        know (a file written by hand, or by a newer console), so that the profile still opens."""
        known = {kind.value: kind for kind in cls}
        return known.get(text, cls.SIMULATED) if isinstance(text, str) else cls.SIMULATED
