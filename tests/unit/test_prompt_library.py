"""The prompt library's Qt-free logic: placeholders, a draft's save body, the request a version makes for a
service that stores prompts and for one that does not, and the diff of two versions."""

from __future__ import annotations

from app.api.prompts import StoredPrompt
from app.common.prompt_template import fill, pieces, variables_in
from app.core.prompts.diff import version_diff
from app.core.prompts.draft import PromptDraft, missing, prompt_request

STORED = StoredPrompt(
    id="pmpt_1",
    version="2",
    name="Trip",
    instructions="You plan trips to {{ city }}.",
    input=[{"role": "user", "content": "Plan {{days}} days in {{city}}."}],
    options={"temperature": 0.2},
    variables=("city", "days"),
)


def test_placeholders_are_read_once_each_in_order() -> None:
    assert variables_in(["Hi {{name}}, {{ place }}", "{{name}} {{not a name}} {{x-1}}"]) == [
        "name",
        "place",
        "x-1",
    ]
    assert fill("{{a}} and {{ b }} and {{c}}", {"a": "1", "b": "2"}) == "1 and 2 and {{c}}"
    assert pieces("Look at {{img}} now") == ["Look at ", ("img",), " now"]


def test_a_draft_says_what_it_lacks_and_what_a_save_sends() -> None:
    assert PromptDraft("").problem() == "Give the prompt a name."
    assert PromptDraft("Named").problem().startswith("Write the instructions")
    draft = PromptDraft(" Trip ", "", "Plan {{days}} days", model="service-pro")
    assert draft.problem() == ""
    assert draft.body(" first ") == {
        "name": "Trip",
        "input": "Plan {{days}} days",
        "model": "service-pro",
        "note": "first",
    }
    assert draft.variables == ["days"]
    assert missing(draft, {"days": ""}) == ["days"]


def test_the_prompt_parameter_where_the_service_keeps_the_prompt() -> None:
    body = prompt_request(STORED, {"city": "Rome", "days": "2", "other": "x"}, stores_prompts=True, model="m")
    assert body == {
        "model": "m",
        "prompt": {"id": "pmpt_1", "version": "2", "variables": {"city": "Rome", "days": "2"}},
    }


def test_the_resolved_text_where_it_does_not() -> None:
    body = prompt_request(STORED, {"city": "Rome", "days": "2"}, stores_prompts=False, model="m")
    assert body == {
        "model": "m",
        "instructions": "You plan trips to Rome.",
        "input": "Plan 2 days in Rome.",
        "temperature": 0.2,
    }


def test_the_diff_of_two_versions_shows_the_changed_lines() -> None:
    older = STORED.model_copy(update={"version": "1", "instructions": "You plan trips."})
    lines = version_diff(older, STORED)
    assert lines[:2] == ["--- version 1", "+++ version 2"]
    assert "-You plan trips." in lines and "+You plan trips to {{ city }}." in lines
    assert version_diff(STORED, STORED) == []
