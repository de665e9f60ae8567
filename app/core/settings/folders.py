"""Where the console keeps its settings, data and log, the same for the window and the command line.

The user's folders come from platformdirs. On Linux they are the XDG ones the console has always used:
~/.config/service-console (settings), ~/.local/share/service-console (conversations, the embedded sandbox),
~/.local/state/service-console/log, each moved by $XDG_CONFIG_HOME, $XDG_DATA_HOME, $XDG_STATE_HOME. On
Windows all three are under %LOCALAPPDATA%\\service-console (logs in its Logs folder); on macOS settings and
data are under ~/Library/Application Support/service-console and the log under ~/Library/Logs. `--home DIR`
puts them under DIR instead: DIR/config, DIR/data, DIR/logs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ORG_NAME = "service-console"  # the folder name under the user's config, data and state directories
SETTINGS_NAME = "settings.json"
LEGACY_SETTINGS_NAME = "console.ini"  # the INI file of earlier versions, read once to migrate


@dataclass(frozen=True)
class ConsoleFolders:
    """The console's own folders: settings, saved data (conversations, the sandbox's store), logs."""

    config: Path
    data: Path
    logs: Path

    @classmethod
    def for_user(cls) -> ConsoleFolders:
        import platformdirs

        return cls(
            Path(platformdirs.user_config_dir(ORG_NAME, appauthor=False)),
            Path(platformdirs.user_data_dir(ORG_NAME, appauthor=False)),
            Path(platformdirs.user_log_dir(ORG_NAME, appauthor=False)),
        )

    @classmethod
    def under(cls, home: Path) -> ConsoleFolders:
        return cls(home / "config", home / "data", home / "logs")

    @property
    def settings_file(self) -> Path:
        return self.config / SETTINGS_NAME

    @property
    def legacy_settings_file(self) -> Path:
        return self.config / LEGACY_SETTINGS_NAME

    @property
    def sandbox_data(self) -> Path:
        return self.data / "sandbox"
