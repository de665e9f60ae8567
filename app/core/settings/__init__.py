"""The console's settings: one typed, versioned model (model.py), the one file that keeps it (store.py) and
the folders it lives in (folders.py). Qt-free: the window and the command line read and write it alike."""

from .folders import ConsoleFolders
from .model import ConsoleSettings, EchoSettings, SandboxSettings, SecuritySettings, UiSettings
from .store import DamagedSettings, SettingsFile

__all__ = [
    "ConsoleFolders",
    "ConsoleSettings",
    "DamagedSettings",
    "EchoSettings",
    "SandboxSettings",
    "SecuritySettings",
    "SettingsFile",
    "UiSettings",
]
