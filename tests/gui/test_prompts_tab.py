"""The Prompts tab as a person uses it, on the embedded sandbox: a prompt with two variables saved twice,
its versions compared, its variables filled and sent, the library searched."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.prompts.tab import PromptsTab


def prompts_tab(console: MainWindow) -> PromptsTab:
    view = {action.text(): action for action in console.menus.view_menu.actions()}
    assert view["Prompts"].shortcut().toString() == "Ctrl+3"
    view["Prompts"].trigger()
    assert console.tabs.currentIndex() == 2
    tab = console.tabs.widget(2)
    assert isinstance(tab, PromptsTab)
    return tab


def save(qtbot: QtBot, tab: PromptsTab, note: str, versions: int) -> None:
    tab.editor.note.clear()
    qtbot.keyClicks(tab.editor.note, note)
    qtbot.mouseClick(tab.editor.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.versions.list.count() == versions and tab.list.count() >= 1)


def test_a_prompt_saved_twice_compared_and_sent(qtbot: QtBot, console: MainWindow) -> None:
    tab = prompts_tab(console)
    qtbot.mouseClick(tab.new_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(tab.editor.name, "Trip planner")
    qtbot.keyClicks(tab.editor.instructions, "You plan trips to {{city}}.")
    qtbot.keyClicks(tab.editor.message, "Plan {{days}} days in {{city}}.")
    assert list(tab.variables.fields) == ["city", "days"]
    save(qtbot, tab, "first draft", 1)
    assert tab.list.item(0).text() == "Trip planner  (v1)"

    qtbot.keyClick(tab.editor.instructions, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(tab.editor.instructions, " Be brief.")
    save(qtbot, tab, "shorter answers", 2)
    assert "shorter answers" in tab.versions.list.item(0).text()
    assert tab.editor.heading.text() == "Trip planner — version 2"

    tab.versions.list.selectAll()
    qtbot.mouseClick(tab.versions.compare_button, Qt.MouseButton.LeftButton)
    diff = tab.versions.diff.toPlainText()
    assert "-You plan trips to {{city}}." in diff and "+You plan trips to {{city}}. Be brief." in diff

    qtbot.keyClicks(tab.variables.fields["city"], "Lisbon")
    qtbot.mouseClick(tab.send_button, Qt.MouseButton.LeftButton)
    assert "days" in tab.status.text()  # a variable left empty: nothing sent
    qtbot.keyClicks(tab.variables.fields["days"], "3")
    qtbot.mouseClick(tab.send_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: tab.answer.toPlainText() != "" or "not answered" in tab.status.text(), timeout=10000
    )
    assert tab.status.text() == ""
    assert tab.answer_from.text() == "From Trip planner, version 2"
    assert "Lisbon" in tab.answer.toPlainText()  # the simulated model answers from the filled message

    qtbot.mouseClick(tab.code_button, Qt.MouseButton.LeftButton)
    assert tab.code_dialog is not None
    code = {language: view.toPlainText() for language, view in tab.code_dialog.views.items()}
    shown = tab.shown
    assert shown is not None and set(code) == {"curl", "Python", "Node.js"}
    for text in code.values():  # the prompt parameter, its version and values; the key by name only
        assert shown.id in text and '"version": "2"' in text and '"city": "Lisbon"' in text
        assert "instructions" not in text
    client = console.session.client
    key = client.transport.settings.api_key if client else None
    assert key and key not in "".join(code.values())


def test_an_unsaved_change_is_not_sent_and_the_library_is_searched(qtbot: QtBot, console: MainWindow) -> None:
    tab = prompts_tab(console)
    for name in ("Weather report", "Haiku writer"):
        qtbot.mouseClick(tab.new_button, Qt.MouseButton.LeftButton)
        qtbot.keyClicks(tab.editor.name, name)
        qtbot.keyClicks(tab.editor.message, f"{name} for {{{{place}}}}.")
        save(qtbot, tab, "", 1)
    qtbot.waitUntil(lambda: tab.list.count() == 2)
    qtbot.keyClick(tab.editor.message, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(tab.editor.message, " Today.")
    qtbot.mouseClick(tab.send_button, Qt.MouseButton.LeftButton)
    assert tab.status.text().startswith("Save the changes first")
    qtbot.keyClicks(tab.search, "haiku")
    qtbot.waitUntil(lambda: tab.list.count() == 1)
    assert tab.list.item(0).text().startswith("Haiku writer")
    tab.search.clear()
    qtbot.waitUntil(lambda: tab.list.count() == 2)


def test_a_versions_options_tools_and_output_format_are_saved_and_sent(
    qtbot: QtBot, console: MainWindow
) -> None:
    weather = {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
    (console.session.data_dir / "functions.json").write_text(json.dumps({"functions": [weather]}))
    tab = prompts_tab(console)
    qtbot.mouseClick(tab.new_button, Qt.MouseButton.LeftButton)
    editor, options = tab.editor, tab.editor.options
    qtbot.keyClicks(editor.name, "City card")
    qtbot.keyClicks(editor.model, "service-think")
    qtbot.keyClicks(editor.message, "Describe {{city}}.")
    assert not options.body.isVisible()
    qtbot.mouseClick(options.toggle, Qt.MouseButton.LeftButton)
    assert options.body.isVisible() and options.effort.isVisible()  # service-think reasons
    for box, text in ((options.temperature, "0.3"), (options.max_tokens, "200")):
        box.lineEdit().selectAll()
        qtbot.keyClicks(box, text)
    options.effort.setCurrentIndex(options.effort.findData("low"))
    assert options.tools.count() == 1 and options.tools.item(0).text() == "get_weather"
    options.tools.item(0).setCheckState(Qt.CheckState.Checked)
    options.output.setCurrentIndex(1)
    qtbot.keyClicks(options.schema, json.dumps(CITY))
    assert "temperature 0.3 · at most 200 tokens · low effort · 1 tool · JSON schema" in options.toggle.text()
    save(qtbot, tab, "structured", 1)
    shown = tab.shown
    assert shown is not None
    assert shown.options["temperature"] == 0.3 and shown.options["max_output_tokens"] == 200
    assert shown.options["reasoning"] == {"effort": "low"}
    assert [tool["name"] for tool in shown.options["tools"]] == ["get_weather"]
    assert shown.options["text"]["format"]["schema"] == CITY

    qtbot.keyClicks(tab.variables.fields["city"], "Porto")
    qtbot.mouseClick(tab.send_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: tab.answer.toPlainText() != "" or "not answered" in tab.status.text(), timeout=10000
    )
    assert tab.status.text() == ""
    assert set(json.loads(tab.answer.toPlainText())) >= {"city"}  # the stored format answered the Send

    options.temperature.lineEdit().selectAll()
    qtbot.keyClicks(options.temperature, "1")
    qtbot.mouseClick(tab.send_button, Qt.MouseButton.LeftButton)
    assert tab.status.text().startswith("Save the changes first")  # an option is a change too
    editor.model.clear()
    qtbot.keyClicks(editor.model, "service-pro")
    assert not options.effort.isVisible() and "effort" not in options.toggle.text()
    options.schema.setPlainText("{not json")
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    assert "schema is not a JSON object" in tab.status.text() and tab.versions.list.count() == 1


CITY = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}
