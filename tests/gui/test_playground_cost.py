"""What the Playground's answers cost, as a person reads it: each answer's cost beside its tokens (broken down
in the tooltip) and the conversation's total above the message box, checked against the sandbox's own costs endpoint for
the same traffic, to the billionth of a dollar it rounds to; the same after the conversation is reopened and
in Compare; the Usage tab's read of a changed price table followed; the default table without an admin key."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.core.playground.cost import exact_usd, short_usd
from app.core.profile import Profile
from app.ui.main_window import MainWindow
from app.ui.playground.tab import PlaygroundTab
from app.ui.playground.turn_view import TurnView
from tests.conftest import Sandbox
from tests.gui.reach import client_of, embedded, profile_of
from tests.gui.test_playground import send, wait_done
from tests.gui.test_playground_compare import compare_window, run_on
from tests.gui.test_playground_conversations import click_row
from tests.gui.test_playground_options import choose
from tests.gui.test_playground_servers import choose_profile
from tests.gui.test_usage_tab import loaded, usage_tab

ROOT = Path(__file__).resolve().parents[2]
README_SENTENCE = (
    "Each answer's cost is shown beside its tokens (its tooltip breaks it down) and the conversation's total "
    "above the message box: uncached input, cached input and output (reasoning included) at the "
    "organization's price table, read through the Admin API when the profile has an admin key, else at the "
    'sandbox\'s documented default prices; an answer on a model with no price says "cost unknown".'
)


def answer(qtbot: QtBot, tab: PlaygroundTab, model: str, prompt: str) -> TurnView:
    """Send `prompt` to `model` and wait for its figures line to show a cost (the prices may still be read)."""
    choose(qtbot, tab.model, model)
    send(qtbot, tab, prompt)
    count = len(tab.service.turns)
    wait_done(qtbot, tab, count)
    assert tab.service.turns[-1].status == "completed", tab.service.turns[-1].error
    view = tab.views[count - 1]
    qtbot.waitUntil(lambda: bool(view.status.toolTip()))
    return view


def shown_cost(view: TurnView) -> tuple[str, str]:
    """What the figures line says last (the cost) and the exact total its tooltip gives."""
    line = view.status.text()
    tip = view.status.toolTip().splitlines()
    assert tip[-1].startswith("total $"), tip
    return line.rsplit(" · ", 1)[-1], tip[-1].removeprefix("total ")


def endpoint_costs(qtbot: QtBot, tab: PlaygroundTab) -> dict[str | None, float]:
    """The sandbox's costs endpoint over the last two days, by model (None: all of them), as it answers."""
    client = client_of(tab.session)
    read: dict[str, Any] = {}
    start = int(time.time()) // 86_400 * 86_400 - 86_400  # yesterday too: a test that runs over midnight

    async def costs() -> None:
        path = f"/organizations/{client.usage.org_id}/costs"
        for group in ("line_item", ""):
            params = {"start_time": str(start), **({"group_by": group} if group else {})}
            read[group], _ = await client.transport.request("GET", path, key="admin", params=params)

    task = tab.session.tasks.start("test.costs", costs())
    qtbot.waitUntil(task.done, timeout=10000)
    task.result()
    return by_model(read["line_item"], read[""])


def by_model(items: dict[str, Any], whole: dict[str, Any]) -> dict[str | None, float]:
    found: dict[str | None, float] = {}
    for bucket in items["data"]:
        for result in bucket["results"]:
            model = result["line_item"].split(", ")[0]
            found[model] = round(found.get(model, 0.0) + result["amount"]["value"], 9)
    found[None] = round(sum(r["amount"]["value"] for b in whole["data"] for r in b["results"]), 9)
    return found


def test_two_answers_and_the_total_cost_what_the_costs_endpoint_says(
    qtbot: QtBot, console: MainWindow
) -> None:
    assert README_SENTENCE in " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    tab = console.playground
    console.tabs.setCurrentWidget(tab)
    first = answer(qtbot, tab, "service-pro", "Tell me about tides")
    second = answer(qtbot, tab, "service-think", "Why do tides turn twice a day?")
    think = tab.service.turns[1]
    assert think.response is not None and think.response.usage is not None
    reasoning = think.response.usage.reasoning_tokens
    assert reasoning > 0 and think.figures.reasoning_tokens == reasoning
    assert f"out {think.figures.output_tokens:,} ({reasoning:,} reasoning)" in second.status.text()
    assert f"({reasoning:,} of them reasoning)" in second.status.toolTip()
    assert "At the organization's prices for service-think" in second.status.toolTip()

    costs = endpoint_costs(qtbot, tab)
    shown = {"service-pro": shown_cost(first), "service-think": shown_cost(second)}
    for model, (line, exact) in shown.items():
        assert (line, exact) == (short_usd(costs[model]), exact_usd(costs[model])), model
    total = tab.cost_total
    assert total.isVisible() and total.text() == f"Conversation: {short_usd(costs[None])}"
    assert total.toolTip() == f"2 answers at the organization's prices: {exact_usd(costs[None])}"
    # Beside the tokens on the figures line, not instead of them.
    assert first.status.text().endswith(
        f"· total {tab.service.turns[0].figures.total_tokens:,} · {shown['service-pro'][0]}"
    )

    qtbot.mouseClick(tab.sidebar.new_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not tab.cost_total.isVisible())
    qtbot.waitUntil(lambda: len(tab.sidebar.model.summaries) == 1)
    click_row(qtbot, tab.sidebar, 0)  # reopened: the saved figures, the same costs
    qtbot.waitUntil(lambda: len(tab.service.turns) == 2)
    assert [shown_cost(tab.views[index]) for index in (0, 1)] == list(shown.values())
    assert tab.cost_total.text() == f"Conversation: {short_usd(costs[None])}"

    qtbot.mouseClick(tab.sidebar.compare_button, Qt.MouseButton.LeftButton)
    dialog = compare_window(qtbot, tab)
    left = dialog.views[1].original.status
    assert left.text().endswith(shown["service-think"][0]) and left.toolTip() == second.status.toolTip()
    run_on(qtbot, dialog, "service-pro")
    rerun = dialog.rows[1].rerun
    assert rerun is not None and rerun.status == "completed"
    assert dialog.views[1].rerun.status.toolTip().startswith("At the organization's prices for service-pro")
    assert f"Cost: original {short_usd(costs[None])}, re-run $" in dialog.progress.text()
    dialog.close()


def test_the_usage_tab_s_read_of_new_prices_reprices_the_answers(qtbot: QtBot, console: MainWindow) -> None:
    tab = console.playground
    console.tabs.setCurrentWidget(tab)
    pro = answer(qtbot, tab, "service-pro", "Tell me about tea")
    think = answer(qtbot, tab, "service-think", "And coffee?")
    before = shown_cost(pro)
    # The organization's table changes: service-pro dearer, service-think no longer priced.
    table = embedded(console.session).config.data_dir / "prices.toml"
    table.write_text('[models."service-pro"]\ninput = 3.0\ncached_input = 0.3\noutput = 20.0\n', "utf-8")
    usage = usage_tab(console)
    loaded(qtbot, usage)
    qtbot.waitUntil(lambda: shown_cost(pro) != before)

    costs = endpoint_costs(qtbot, tab)
    assert shown_cost(pro) == (short_usd(costs["service-pro"]), exact_usd(costs["service-pro"]))
    assert think.status.text().endswith(" · cost unknown")
    assert think.status.toolTip() == (
        "The organization's prices have no price for service-think: this answer's cost is unknown."
    )
    assert tab.cost_total.text() == f"Conversation: {short_usd(costs[None])} + cost unknown"
    assert "1 answer on a model with no price: cost unknown" in tab.cost_total.toolTip()


def test_without_an_admin_key_the_default_table_prices_the_answers(
    qtbot: QtBot, console: MainWindow, sandbox: Sandbox
) -> None:
    session = console.session
    other = Profile(id="p-plain", name="Project key only", base_url=sandbox.url, org_id=sandbox.creds.org_id)
    session.profiles.save(other)
    session.secrets.set(other.id, "api_key", sandbox.creds.api_key)
    choose_profile(qtbot, console, "Project key only")
    assert not client_of(session).has_key("admin") and profile_of(session).id == "p-plain"
    tab = console.playground
    console.tabs.setCurrentWidget(tab)
    view = answer(qtbot, tab, "service-pro", "Tell me about rivers")
    assert view.status.toolTip().startswith(
        "At the default prices (the profile has no admin key) for service-pro, per million tokens:"
    )
    start = int(time.time()) // 86_400 * 86_400 - 86_400
    with sandbox.admin() as admin:  # the test's own admin key: the service's count of the same traffic
        path = f"/organizations/{sandbox.creds.org_id}/costs"
        items = admin.get(path, params={"start_time": start, "group_by": "line_item"}).json()
        whole = admin.get(path, params={"start_time": start}).json()
    costs = by_model(items, whole)
    assert shown_cost(view) == (short_usd(costs["service-pro"]), exact_usd(costs["service-pro"]))
    assert tab.cost_total.text() == f"Conversation: {short_usd(costs[None])}"


def test_a_saved_turn_keeps_its_cached_and_reasoning_tokens() -> None:
    from app.core.playground.turns import Turn, TurnStatus
    from app.services.playground.conversations import restored_turn, stored_turn

    turn = Turn("hi", [], "service-think", True, status=TurnStatus.COMPLETED, text="Hello")
    turn.figures.input_tokens, turn.figures.cached_tokens = 900, 640
    turn.figures.output_tokens, turn.figures.reasoning_tokens = 120, 80
    figures = restored_turn(stored_turn(turn)).figures
    assert (figures.cached_tokens, figures.reasoning_tokens, figures.total_tokens) == (640, 80, 1020)


def test_prices_the_admin_key_cannot_read_fall_back_to_the_default_table(
    qtbot: QtBot, console: MainWindow, sandbox: Sandbox
) -> None:
    session = console.session
    other = Profile(id="p-wrong", name="Wrong admin key", base_url=sandbox.url, org_id=sandbox.creds.org_id)
    session.profiles.save(other)
    session.secrets.set(other.id, "api_key", sandbox.creds.api_key)
    session.secrets.set(other.id, "admin_key", sandbox.creds.admin_key[:-4] + "XXXX")  # refused: a 401
    choose_profile(qtbot, console, "Wrong admin key")
    tab = console.playground
    console.tabs.setCurrentWidget(tab)
    view = answer(qtbot, tab, "service-pro", "Tell me about lakes")
    assert view.status.toolTip().startswith(
        "At the default prices (the organization's could not be read) for service-pro, per million tokens:"
    )
    assert view.status.text().endswith(f" · {shown_cost(view)[0]}") and shown_cost(view)[0].startswith("$")
