"""The one place that makes the QApplication, the qasync loop, the excepthook and the services."""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from app import __version__
from app.common.assets import ICON
from app.common.logs import setup_logging
from app.common.private import private_dir
from app.common.secrets import SecretStore
from app.core.settings import ConsoleFolders, SettingsFile
from app.services.session.messages import MessageBus
from app.services.session.profiles import ProfileStore, migrate_proxy_passwords
from app.services.session.session import ConsoleSession

if TYPE_CHECKING:  # asyncio and qasync are imported after the tabs are painted (make_loop)
    import asyncio

    from app.asyncloop import ConsoleEventLoop

APP_NAME = "Service Console"
ORG_NAME = "service-console"
log = logging.getLogger(__name__)


Paths = ConsoleFolders  # the console's folders: settings, data, logs (app.core.settings.folders)


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


def make_settings(paths: Paths) -> SettingsFile:
    """The settings file, made from an earlier version's console.ini at the first launch after it."""
    private_dir(paths.config)
    settings = SettingsFile(paths.settings_file)
    if not settings.exists():  # a first launch, or the first after an earlier version
        from app.services.session.ini_migration import legacy_files, migrate_console_ini

        migrate_console_ini(legacy_files(paths), settings)
    return settings


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
    migrate_proxy_passwords(profiles, secrets)
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
