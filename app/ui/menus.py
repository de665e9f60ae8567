"""The main window's menus: File (profiles, quit), View (the tabs, check connection), Help (logs, about)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QTabWidget

from app.services.session.session import ConsoleSession

if TYPE_CHECKING:
    from typing import TypeAlias

    Shortcut: TypeAlias = QKeySequence | QKeySequence.StandardKey


class Menus(QObject):
    """Fills the menu bar of `window`; the shortcuts wait for the first frame (`apply_shortcuts`)."""

    def __init__(
        self,
        window: QMainWindow,
        session: ConsoleSession,
        tabs: QTabWidget,
        open_settings: Callable[[], object],
    ) -> None:
        super().__init__(window)
        self.main = window
        self._pending_shortcuts: list[tuple[QAction, Shortcut]] = []
        file_menu = window.menuBar().addMenu("&File")
        settings = self._action("&Profiles…", QKeySequence("Ctrl+,"))
        settings.triggered.connect(open_settings)
        quit_action = self._action("&Quit", QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(window.close)
        file_menu.addActions([settings, quit_action])
        view = window.menuBar().addMenu("&View")
        for number, name in ((1, "Playground"), (2, "Security"), (3, "Prompts"), (4, "Usage")):
            action = self._action(name, QKeySequence(f"Ctrl+{number}"))
            action.triggered.connect(lambda _=False, i=number - 1: tabs.setCurrentIndex(i))
            view.addAction(action)
        refresh = self._action("Check connection", QKeySequence("F5"))
        refresh.triggered.connect(lambda: session.tasks.start("session.check", session.check_connection()))
        view.addAction(refresh)
        self.view_menu = view
        help_menu = window.menuBar().addMenu("&Help")
        logs = QAction("Open log folder", window)
        logs.triggered.connect(self.open_logs)
        about = QAction("About", window)
        about.triggered.connect(self.about)
        help_menu.addActions([logs, about])

    def _action(self, text: str, shortcut: Shortcut) -> QAction:
        """A menu action whose shortcut is set after the first frame (apply_shortcuts): the first setShortcut
        makes PySide6 build every Qt enum type, about 60-80 ms."""
        action = QAction(text, self.main)
        self._pending_shortcuts.append((action, shortcut))
        return action

    def add_sidebar_toggle(self, show: Callable[[bool], None]) -> QAction:
        """View > Conversation list (F9): the Playground's list of saved conversations, shown or put aside."""
        action = QAction("Conversation list", self.main, checkable=True, checked=True)
        action.setShortcut(QKeySequence("F9"))
        action.toggled.connect(show)
        self.view_menu.addAction(action)
        return action

    def apply_shortcuts(self) -> None:
        for action, shortcut in self._pending_shortcuts:
            action.setShortcut(shortcut)
        self._pending_shortcuts.clear()

    def about(self) -> None:
        from PySide6.QtCore import qVersion
        from PySide6.QtWidgets import QMessageBox

        from app import __version__

        QMessageBox.about(
            self.main,
            "About Service Console",
            f"Service Console {__version__}\n\n"
            "A console for the service's Playground and IP allowlists, with a local sandbox.\n\n"
            f"Qt {qVersion()}",
        )

    def open_logs(self) -> None:
        import logging

        for handler in logging.getLogger().handlers:
            path = getattr(handler, "baseFilename", None)
            if path:
                from PySide6.QtCore import QUrl
                from PySide6.QtGui import QDesktopServices

                QDesktopServices.openUrl(QUrl.fromLocalFile(str(path).rsplit("/", 1)[0]))
