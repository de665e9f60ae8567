"""The one place that makes the QApplication, the qasync loop, the excepthook and the services."""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from app import __version__
from app.common.assets import ICON
from app.common.logs import setup_logging
from app.common.private import private_dir, private_file
from app.common.secrets import SecretStore
from app.services.session.messages import MessageBus
from app.services.session.profiles import ProfileStore
from app.services.session.session import ConsoleSession

if TYPE_CHECKING:  # asyncio and qasync are imported after the tabs are painted (make_loop)
    import asyncio

    from app.asyncloop import ConsoleEventLoop

APP_NAME = "Service Console"
ORG_NAME = "service-console"
log = logging.getLogger(__name__)


@dataclass
class Paths:
    """The console's own folders: settings, saved data (conversations, history), logs."""

    config: Path
    data: Path
    logs: Path

    @classmethod
    def for_user(cls) -> Paths:
        # Qt's own standard paths (Linux: ~/.config, ~/.local/share, ~/.local/state), each + service-console.
        from PySide6.QtCore import QStandardPaths

        def folder(kind: QStandardPaths.StandardLocation) -> Path:
            return Path(QStandardPaths.writableLocation(kind)) / ORG_NAME

        where = QStandardPaths.StandardLocation
        return cls(
            folder(where.GenericConfigLocation),
            folder(where.GenericDataLocation),
            folder(where.GenericStateLocation) / "log",
        )

    @classmethod
    def under(cls, root: Path) -> Paths:
        return cls(root / "config", root / "data", root / "logs")


def make_application(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance() or QApplication(argv or sys.argv)
    assert isinstance(app, QApplication)
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(ORG_NAME)
    app.setApplicationVersion(__version__)
    # Qt's default style: Fusion on Linux, the native ones on Windows and macOS; all follow the system's
    # light or dark scheme (Qt 6.5+). Forcing Fusion everywhere would cost ~18 ms at start (a plugin scan).
    app.setWindowIcon(QIcon(str(ICON)))
    return app


def make_settings(paths: Paths) -> QSettings:
    private_dir(paths.config)
    # Qt writes the file anew through a temporary file that keeps the existing file's permissions.
    return QSettings(str(private_file(paths.config / "console.ini")), QSettings.Format.IniFormat)


def ask_session_only(message: str) -> bool:
    from PySide6.QtWidgets import QMessageBox

    answer = QMessageBox.question(
        None, APP_NAME, message, QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
    )
    return answer == QMessageBox.StandardButton.Yes


def make_session(
    paths: Paths, secrets: SecretStore | None = None, interactive: bool = True
) -> ConsoleSession:
    secrets = secrets or SecretStore()
    private_dir(paths.data)
    setup_logging(paths.logs, secrets.known_values)
    bus = MessageBus()
    profiles = ProfileStore(make_settings(paths))
    ask = ask_session_only if interactive else (lambda _message: True)
    session = ConsoleSession(profiles, secrets, bus, paths.data, ask)
    session.migrate_proxy_passwords()
    return session


ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], None]


def install_excepthook(bus: MessageBus) -> ExceptHook:
    """Uncaught errors are logged with their trace and shown in one line; returns the hook, which
    `route_loop_errors` gives the event loop's errors (qasync hands task errors to it too)."""

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, error, trace)
            return
        log.error("uncaught error:\n%s", "".join(traceback.format_exception(kind, error, trace)))
        bus.error(f"Something went wrong: {error}. Details are in the log.")

    sys.excepthook = hook
    return hook


def route_loop_errors(loop: asyncio.AbstractEventLoop, hook: ExceptHook) -> None:
    """The event loop's errors go to `hook`: made after the tabs, the loop is given it then."""

    def loop_handler(_loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if error is not None:
            hook(type(error), error, error.__traceback__)
        else:
            log.error("event loop: %s", context.get("message"))

    loop.set_exception_handler(loop_handler)


def make_loop(app: QApplication) -> ConsoleEventLoop:
    import asyncio

    from app.asyncloop import ConsoleEventLoop

    loop = ConsoleEventLoop(app)
    asyncio.set_event_loop(loop)
    app.setQuitOnLastWindowClosed(True)
    return loop
