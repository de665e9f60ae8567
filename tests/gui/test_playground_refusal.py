"""Issue 13: after a 403 in the Playground the turn says which allowlist refused (read through the Admin API),
"Allow this IP" opens that list with the address filled in, and once the list admits it the refused request is
sent again by itself."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from app.sandbox.store.aggregates import Store
from app.sandbox.store.database import run_blocking
from app.ui.main_window import MainWindow
from app.ui.playground.turn_view import TurnView
from tests.gui.reach import child, client_of, embedded, place_console, profile_of, shown
from tests.gui.test_playground import send, wait_done


def click(qtbot: QtBot, widget: QWidget) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def store_of(console: MainWindow) -> Store:
    return embedded(console.session).store


def refused_turn(qtbot: QtBot, console: MainWindow, ip: str) -> TurnView:
    """Send a message from `ip` (the sandbox's simulated source IP) and wait until the lists are read."""
    console.session.set_simulated_ip(ip)
    tab = console.playground
    console.tabs.setCurrentWidget(tab)
    send(qtbot, tab, "hello")
    wait_done(qtbot, tab)
    turn = tab.service.turns[0]
    assert turn.status == "failed" and turn.error_kind == "blocked"
    qtbot.waitUntil(lambda: turn.refusal is not None)
    return tab.views[0]


def test_a_project_list_refusal_is_named_and_allowing_sends_the_request_again(
    qtbot: QtBot, console: MainWindow
) -> None:
    profile = profile_of(console.session)
    store = store_of(console)
    run_blocking(store.allowlists.add_entry("project", profile.project_id, "198.51.100.0/24", "office"))
    run_blocking(
        store.allowlists.set_enabled("project", profile.project_id, True)
    )  # the organization's list stays off
    view = refused_turn(qtbot, console, "203.0.113.77")
    status = view.status.text()
    assert "the project's IP allowlist refused" in status and "203.0.113.77" in status
    assert "organization's list admits it" in status
    assert console.indicator.text() == "● Blocked: project key (403)"  # which key: the toolbar follows it
    allow = view.action_buttons["allow"]
    assert allow.isVisibleTo(view) and allow.text() == "Allow this IP in the project's list…"

    click(qtbot, allow)
    security = console.security
    assert console.tabs.currentWidget() is security
    qtbot.waitUntil(lambda: security.service.data is not None and shown(security).scope == "project")
    assert security.scope_bar.scope.currentData() == profile.project_id
    assert security.add_form.cidr.text() == "203.0.113.77"
    assert security.waiting.isVisible() and "203.0.113.77" in security.waiting.text()

    click(qtbot, security.add_form.add_button)
    playground = console.playground
    qtbot.waitUntil(lambda: playground.service.turns[0].status == "completed", timeout=15000)
    assert console.tabs.currentWidget() is playground and len(playground.service.turns) == 1
    assert "hello" in playground.views[0].answer.toPlainText()
    assert [e.cidr for e in store.allowlists.get("project", profile.project_id).entries][
        -1
    ] == "203.0.113.77/32"
    assert [e.cidr for e in store.allowlists.get("organization", profile.org_id).entries] == []
    assert not security.waiting.isVisible()
    qtbot.waitUntil(lambda: console.indicator.text() == "● Connected")  # and the request that went through


def test_an_organization_refusal_that_also_blocks_the_admin_key_says_so_and_resends_after_recovery(
    qtbot: QtBot, console: MainWindow
) -> None:
    profile = profile_of(console.session)
    store = store_of(console)
    run_blocking(store.allowlists.add_entry("organization", profile.org_id, "198.51.100.0/24", "office"))
    run_blocking(store.allowlists.set_enabled("organization", profile.org_id, True))
    place_console(console.session, "203.0.113.77")  # this machine itself is where the list refuses
    view = refused_turn(qtbot, console, "203.0.113.77")
    status = view.status.text()
    # The Admin API answers to the organization's list alone: refused too, the lists cannot be read.
    assert "403: the IP allowlist refused this request" in status and "could not be read" in status
    assert "the admin key was refused as well" in status and "organization's list refuses it" in status
    allow = view.action_buttons["allow"]
    assert allow.text() == "Allow this IP in Security…"

    click(qtbot, allow)
    security = console.security
    assert console.tabs.currentWidget() is security and security.add_form.cidr.text() == "203.0.113.77"
    qtbot.waitUntil(security.blocked_banner.isVisible)
    assert security.service.project_id is None
    # Recovery from the dashboard (which the allowlist does not cover): the address goes into the list there.
    run_blocking(
        store.allowlists.add_entry("organization", profile.org_id, "203.0.113.77", "added in the dashboard")
    )
    click(qtbot, child(security, type(security.add_form.add_button), "refresh"))
    playground = console.playground
    # The organization's list admits it now, the project's list (off) too: the request goes again.
    qtbot.waitUntil(lambda: playground.service.turns[0].status == "completed", timeout=15000)
    assert not security.blocked_banner.isVisible() and console.tabs.currentWidget() is playground


def test_without_an_admin_key_the_403_is_said_plainly(qtbot: QtBot, console: MainWindow) -> None:
    profile = profile_of(console.session)
    store = store_of(console)
    run_blocking(store.allowlists.set_enabled("project", profile.project_id, True))
    client_of(console.session).transport.settings.admin_key = None
    view = refused_turn(qtbot, console, "203.0.113.77")
    status = view.status.text()
    assert status.startswith(
        "403: the IP allowlist refused this request. The service saw you at 203.0.113.77."
    )
    assert "could not be read" in status and "no admin key" in status


def test_when_both_lists_refuse_the_next_is_offered_not_switched_to_and_the_request_goes_after_both(
    qtbot: QtBot, console: MainWindow
) -> None:
    """Issue 24: once the first list admits the address the tab stays where it is; the list that still refuses
    is offered by a button, and opened only when the person presses it."""
    profile = profile_of(console.session)
    store = store_of(console)
    for scope, owner in (("organization", profile.org_id), ("project", profile.project_id)):
        run_blocking(store.allowlists.add_entry(scope, owner, "198.51.100.0/24", "office"))
        run_blocking(store.allowlists.set_enabled(scope, owner, True))
    security = console.security  # read once from the office, as an admin who looked before moving
    place_console(console.session, "198.51.100.7")
    security.service.refresh()
    qtbot.waitUntil(lambda: security.service.data is not None and shown(security).source_ip == "198.51.100.7")
    place_console(console.session, "203.0.113.77")  # then moved: its admin key is refused there too
    view = refused_turn(qtbot, console, "203.0.113.77")
    click(qtbot, view.action_buttons["allow"])
    qtbot.waitUntil(security.blocked_banner.isVisible)
    assert not security.waiting.next_button.isVisible()  # one list at a time: nothing offered yet
    # Under the banner, "Your IP" is the address the 403 names, not the one of the last good read.
    assert "203.0.113.77" in security.your_ip.my_ip.text()
    run_blocking(
        store.allowlists.add_entry("organization", profile.org_id, "203.0.113.77", "added in the dashboard")
    )
    click(qtbot, child(security, type(security.add_form.add_button), "refresh"))
    # The organization's list admits it now: the project's list, which still refuses it, is offered.
    next_button = security.waiting.next_button
    qtbot.waitUntil(next_button.isVisible)
    assert not security.blocked_banner.isVisible()
    assert security.service.project_id is None and security.scope_bar.scope.currentData() is None
    assert "“Organization” admits 203.0.113.77 now" in security.waiting.text()
    assert "Project" in next_button.text() and next_button.text().startswith("Open")
    assert security.add_form.cidr.text() == ""  # on this list now: not left there as a "Duplicate"
    playground = console.playground
    assert playground.service.turns[0].status == "failed"  # not sent again while a list still refuses
    qtbot.wait(300)  # and the scope does not move by itself a moment later either
    assert security.service.project_id is None

    click(qtbot, next_button)
    qtbot.waitUntil(lambda: security.service.data is not None and shown(security).scope == "project")
    assert security.scope_bar.scope.currentData() == profile.project_id
    assert security.add_form.cidr.text() == "203.0.113.77" and "Project" in security.waiting.text()
    assert not next_button.isVisible()
    click(qtbot, security.add_form.add_button)
    qtbot.waitUntil(lambda: playground.service.turns[0].status == "completed", timeout=15000)
    assert not security.waiting.isVisible()


def test_play_ip_plays_the_playground_s_requests_never_the_console_s_own(
    qtbot: QtBot, console: MainWindow
) -> None:
    """Issue 38: an unlisted Play IP is refused in the Playground, while the Security tab, whose Admin API
    calls come from this machine (listed), reads the list, shows no "admin key is blocked" banner, and
    lets the address be added."""
    profile = profile_of(console.session)
    store = store_of(console)
    run_blocking(store.allowlists.add_entry("organization", profile.org_id, "127.0.0.1", "this machine"))
    run_blocking(store.allowlists.set_enabled("organization", profile.org_id, True))
    view = refused_turn(qtbot, console, "203.0.113.77")
    assert "the organization's IP allowlist refused" in view.status.text()
    allow = view.action_buttons["allow"]
    assert allow.text() == "Allow this IP in the organization's list…"

    click(qtbot, allow)
    security = console.security
    assert console.tabs.currentWidget() is security and security.add_form.cidr.text() == "203.0.113.77"
    qtbot.waitUntil(lambda: security.service.data is not None and shown(security).enabled)
    assert shown(security).source_ip == "127.0.0.1" and "127.0.0.1" in security.your_ip.my_ip.text()
    assert not security.blocked_banner.isVisible() and console.session.blocked_key != "admin"
    qtbot.waitUntil(security.add_form.add_button.isEnabled)
    click(qtbot, security.add_form.add_button)
    playground = console.playground
    qtbot.waitUntil(lambda: playground.service.turns[0].status == "completed", timeout=15000)
    assert "203.0.113.77/32" in [e.cidr for e in store.allowlists.get("organization", profile.org_id).entries]
