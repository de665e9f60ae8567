"""A prompt version's options as the editor edits them, read from and written back to what the version
stores, and sent with the prompt where the service does not keep it."""

from __future__ import annotations

from app.api.prompts import StoredPrompt
from app.core.prompts.draft import prompt_request
from app.core.prompts.options import VersionOptions

WEATHER = {"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {}}}
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def test_the_edited_options_are_what_the_version_stores() -> None:
    edited = VersionOptions(0.2, 300, "low", (WEATHER,), SCHEMA, "place")
    stored = edited.options()
    assert stored == {
        "temperature": 0.2,
        "max_output_tokens": 300,
        "reasoning": {"effort": "low"},
        "tools": [WEATHER],
        "text": {"format": {"type": "json_schema", "name": "place", "schema": SCHEMA, "strict": False}},
    }
    assert VersionOptions.read(stored) == edited
    assert edited.summary() == "temperature 0.2 · at most 300 tokens · low effort · 1 tool · JSON schema"
    assert VersionOptions().options() == {} and VersionOptions().summary() == ""


def test_what_the_editor_does_not_edit_is_kept_as_it_was() -> None:
    others = {"top_p": 0.5, "tool_choice": "required", "tools": [{"type": "web_search_preview"}, WEATHER]}
    read = VersionOptions.read({**others, "temperature": 1})
    assert read.temperature == 1.0 and read.tools == ()
    assert read.options() == {**others, "temperature": 1.0}
    assert VersionOptions.read({"text": {"format": {"type": "text"}}}).options() == {}


def test_a_prompt_sent_as_text_carries_its_options() -> None:
    options = VersionOptions(0.3, 64, None, (WEATHER,), SCHEMA).options()
    stored = StoredPrompt(
        id="pmpt_1", version="2", input="Where is {{x}}?", options=options, variables=("x",)
    )
    body = prompt_request(stored, {"x": "Lima"}, stores_prompts=False, model="service-pro")
    assert body["input"] == "Where is Lima?" and body["temperature"] == 0.3
    assert body["tools"] == [WEATHER] and body["text"]["format"]["schema"] == SCHEMA
