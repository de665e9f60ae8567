"""A Playground turn from a stored prompt, without a server: the request with the `prompt` parameter or with
the filled text, what the Playground sets winning over the prompt's, and the turn's message as shown."""

from __future__ import annotations

from app.api.prompts import StoredPrompt
from app.api.wire import Response
from app.core.playground.turns import RequestOptions, Turn, TurnStatus
from app.core.prompt_turns import PromptUse, prompt_turn

STORED = StoredPrompt(
    id="pmpt_trip",
    version="2",
    name="Trip planner",
    instructions="You plan trips to {{city}}.",
    input="Plan {{days}} days in {{city}}.",
    options={"temperature": 0.2},
    variables=("city", "days"),
)
USE = PromptUse(STORED, {"city": "Rome", "days": "2"})


def test_every_variable_is_required_and_the_reason_names_the_empty_ones() -> None:
    use = PromptUse(STORED, {"city": "", "days": ""})
    assert use.send_problem() == "Fill in city and days to send from Trip planner v2."
    use.values["city"] = "Rome"
    assert use.send_problem() == "Fill in days to send from Trip planner v2."
    use.values["days"] = "2"
    assert use.send_problem() == "" and use.version_number == 2 and use.label == "Trip planner v2"


def test_a_service_that_keeps_the_prompt_gets_the_parameter_and_only_what_was_typed() -> None:
    plan, shown = prompt_turn([], USE, "", [], RequestOptions("m"), stores=True)
    assert plan.body == {
        "model": "m",
        "input": [],
        "prompt": {"id": "pmpt_trip", "version": "2", "variables": {"city": "Rome", "days": "2"}},
    }
    assert shown == "Plan 2 days in Rome."
    plan, shown = prompt_turn(
        [], USE, "Be brief.", [], RequestOptions("m", instructions="Mine."), stores=True
    )
    assert plan.body["input"] == "Be brief." and plan.body["instructions"] == "Mine."
    assert shown == "Plan 2 days in Rome.\n\nBe brief."


def test_a_later_turn_chains_on_the_answer_before_it() -> None:
    earlier = Turn("hello", [], "m", True, status=TurnStatus.COMPLETED, response=Response(id="resp_1"))
    plan, _shown = prompt_turn([earlier], USE, "", [], RequestOptions("m"), stores=True)
    assert plan.chained and plan.body["previous_response_id"] == "resp_1" and plan.body["input"] == []


def test_any_other_service_gets_the_filled_text_and_the_prompt_s_options() -> None:
    plan, shown = prompt_turn([], USE, "", [], RequestOptions("m"), stores=False)
    assert plan.body == {
        "model": "m",
        "input": "Plan 2 days in Rome.",
        "instructions": "You plan trips to Rome.",
        "temperature": 0.2,
    }
    assert shown == "Plan 2 days in Rome."
    options = RequestOptions("m", instructions="Mine.", temperature=0.9)
    plan, _shown = prompt_turn([], USE, "", [], options, stores=False)
    assert plan.body["instructions"] == "Mine." and plan.body["temperature"] == 0.9
