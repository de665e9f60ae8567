"""Typed ways into a running console's optional parts, for tests.

A connected session has a client, a profile and (for the Local sandbox) a running embedded server, but their
attributes are Optional because a session starts without them: each helper asserts the part is there, so a
test reads `embedded(session).store` instead of repeating the check (inside `qtbot.waitUntil` a missing part
is an AssertionError, which waitUntil retries like a false condition).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QEvent, QObject, QPoint
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QDialog, QToolTip, QWidget

from app.sandbox.engines.simulated import SimulatedEngine

D = TypeVar("D", bound=QDialog)
W = TypeVar("W", bound=QObject)

if TYPE_CHECKING:
    from app.api.admin import Allowlist
    from app.api.client import ServiceClient
    from app.core.playground.turns import Turn
    from app.core.security.rotation_plan import RotationPlan
    from app.sandbox import SandboxServer
    from app.services.session.profiles import Profile
    from app.services.session.session import ConsoleSession
    from app.ui.security.tab import SecurityTab


def embedded(session: ConsoleSession) -> SandboxServer:
    """The session's embedded sandbox server (running once the Local sandbox profile is connected)."""
    server = session.sandbox.server
    assert server is not None, "the embedded sandbox is not running"
    return server


def simulated(session: ConsoleSession) -> SimulatedEngine:
    """The embedded sandbox's simulated engine (tests slow it down with its `delay`)."""
    engine = embedded(session).state.engine
    assert isinstance(engine, SimulatedEngine), engine
    return engine


def profile_of(session: ConsoleSession) -> Profile:
    profile = session.profile
    assert profile is not None, "no profile is open"
    return profile


def client_of(session: ConsoleSession) -> ServiceClient:
    client = session.client
    assert client is not None, "the session is not connected"
    return client


def place_console(session: ConsoleSession, ip: str) -> None:
    """This machine moves to another network, as a test plays it: every request of the console, the Admin
    API's too, comes from `ip` through the embedded sandbox's trusted loopback proxy (Play IP moves only the
    Playground's requests). Until the client is made again (a switch of profile)."""
    client_of(session).transport.settings.forwarded_for = ip


def shown(tab: SecurityTab) -> Allowlist:
    """The list the Security tab shows (once read)."""
    data = tab.service.data
    assert data is not None, "no list has been read yet"
    return data


def plan_of(tab: SecurityTab) -> RotationPlan:
    plan = tab.rotation.plan
    assert plan is not None, "no rotation is under way"
    return plan


def dialog_of(tab: SecurityTab, name: str, kind: type[D]) -> D:
    """The Security tab's open dialog `name` ("rotation", "import", "history", ...), as the class it is."""
    dialog = tab.dialogs[name]
    assert isinstance(dialog, kind), dialog
    return dialog


def child(parent: QObject, kind: type[W], name: str = "") -> W:
    """The child widget of that class (and objectName, if given): findChild, asserting it is there."""
    found = parent.findChild(kind, name)
    assert found is not None, f"no {kind.__name__} {name!r} in {parent!r}"
    return found


def body_of(turn: Turn) -> dict[str, Any]:
    """The request body a turn sent, as the JSON the service got (tests index into it freely)."""
    assert turn.request_body is not None, "the turn sent no request"
    sent: dict[str, Any] = json.loads(json.dumps(turn.request_body))
    return sent


def hover_for_tooltip(viewport: QWidget, point: QPoint) -> None:
    """What resting the mouse at `point` of a view's `viewport` does: the tooltip event, any tooltip shown
    before hidden first (offscreen there is no mouse to rest)."""
    QToolTip.hideText()
    QApplication.sendEvent(viewport, QHelpEvent(QEvent.Type.ToolTip, point, viewport.mapToGlobal(point)))


def choose(tab: SecurityTab, name: str) -> None:
    """Choose the scope bar's item `name` (Keys…, Import…) from its menu, whose button must be on screen."""
    action = tab.scope_bar.menu_actions[name]
    menu = action.parent()
    assert isinstance(menu, QWidget)
    button = menu.parentWidget()
    assert button is not None and button.isVisible() and button.isEnabled(), name
    action.trigger()
