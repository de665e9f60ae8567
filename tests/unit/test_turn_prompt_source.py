"""A turn sent from a stored prompt keeps which prompt and version it came from, through a save and reopen."""

from app.core.playground.turn_record import restore_shown, shown_again
from app.core.playground.turns import Turn


def test_prompt_source_survives_save_and_reopen() -> None:
    turn = Turn(prompt="hello", attachments=[], model="m", chain_on_server=False)
    turn.prompt_id, turn.prompt_version, turn.prompt_name = "pmpt_greet", 3, "Greeter"
    saved = shown_again(turn)
    reopened = Turn(prompt="hello", attachments=[], model="m", chain_on_server=False)
    restore_shown(reopened, saved)
    assert (reopened.prompt_id, reopened.prompt_version) == ("pmpt_greet", 3)
    assert reopened.prompt_name == "Greeter"  # "from prompt Greeter v3" reads the same reopened


def test_a_damaged_prompt_source_loses_only_itself() -> None:
    reopened = Turn(prompt="hello", attachments=[], model="m", chain_on_server=False)
    restore_shown(reopened, {"prompt": {"id": 7, "version": "x"}, "chain_note": "kept"})
    assert (reopened.prompt_id, reopened.prompt_version) == ("", None)
    assert reopened.chain_note == "kept"
