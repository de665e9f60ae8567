"""Compare mode's rules without Qt: which options a re-run sends, its own thread's history, and how a
refusal ends the run; the runs against the sandbox as a real server."""

from __future__ import annotations

import pytest

from app.api import ConnectionSettings, ServiceClient
from app.core.playground.compare import (
    CompareRun,
    CompareSource,
    SourceTurn,
    compare_title,
    default_model,
    options_for,
    plan_rows,
)
from app.core.playground.turn_record import sent_options
from app.core.playground.turns import Attachment, ErrorKind, RequestOptions, Turn, TurnStatus, build_request
from tests.conftest import Sandbox
from tests.gui.reach import body_of


class Recorder:
    """A CompareListener that keeps what it was told."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int]] = []
        self.text: dict[int, str] = {}

    def row_started(self, index: int) -> None:
        self.events.append(("started", index))

    def row_text(self, index: int, chunk: str) -> None:
        self.text[index] = self.text.get(index, "") + chunk

    def row_updated(self, index: int) -> None:
        self.events.append(("updated", index))

    def row_finished(self, index: int) -> None:
        self.events.append(("finished", index))


def original(prompt: str, text: str, model: str = "service-pro") -> Turn:
    return Turn(prompt, [], model, True, text=text, status=TurnStatus.COMPLETED)


def source_of(*turns: SourceTurn) -> CompareSource:
    return CompareSource("conv_1", "Tea", "service-pro", list(turns))


SCHEMA = {"type": "object", "properties": {"port": {"type": "integer"}}}


def test_options_go_along_and_what_cannot_is_said() -> None:
    options = RequestOptions(
        "service-think",
        instructions="Be brief",
        temperature=0.3,
        top_p=0.8,
        max_output_tokens=300,
        web_search=True,
        schema=SCHEMA,
        schema_name="ports",
        reasoning_effort="high",
    )
    sent = sent_options(build_request([], "Hi", [], options).body)
    assert "model" not in sent and "input" not in sent
    again, notes = options_for(sent, "service-think-mini")
    assert again == RequestOptions(
        "service-think-mini",
        instructions="Be brief",
        temperature=0.3,
        top_p=0.8,
        max_output_tokens=300,
        web_search=True,
        schema=SCHEMA,
        schema_name="ports",
        chain_on_server=False,
        reasoning_effort="high",
    )
    assert notes == []
    on_pro, notes = options_for(sent, "service-pro")
    assert on_pro.reasoning_effort is None and notes == [
        "Reasoning effort “high” not sent: service-pro does not reason."
    ]


def test_damaged_saved_options_are_left_out() -> None:
    options, notes = options_for(
        {"temperature": "hot", "tools": "all", "text": ["x"], "reasoning": 3, "max_output_tokens": True}, "m"
    )
    assert options == RequestOptions("m", chain_on_server=False) and notes == []


def test_rows_say_which_images_were_not_kept() -> None:
    image = Attachment("data:image/png;base64,AAAA", "chart.png", 85)
    rows = plan_rows(
        source_of(
            SourceTurn(original("What is this?", "A chart"), [image]),
            SourceTurn(original("And this?", "A map"), missing_images=["map.png"]),
        ),
        "service-ultra",
    )
    assert rows[0].attachments == [image] and rows[0].notes == []
    assert rows[1].attachments == [] and "map.png" in rows[1].notes[0]


def test_names() -> None:
    assert compare_title("Tea", "service-think") == "Tea · on service-think"
    assert compare_title("Tea · on service-think", "service-ultra") == "Tea · on service-ultra"
    assert default_model(["service-pro", "service-ultra"], "service-pro") == "service-ultra"
    assert default_model(["service-pro"], "service-pro") == "service-pro"


def client_for(sandbox: Sandbox, ip: str = "198.51.100.7") -> ServiceClient:
    settings = ConnectionSettings(
        base_url=sandbox.url,
        api_key=sandbox.creds.api_key,
        admin_key=sandbox.creds.admin_key,
        max_retries=0,
        forwarded_for=ip,
    )
    return ServiceClient(settings, sandbox.creds.org_id)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_each_rerun_sends_its_own_threads_history(sandbox: Sandbox) -> None:
    source = source_of(
        SourceTurn(original("My name is Ada", "ORIGINAL ONE"), options={"temperature": 0.2}),
        SourceTurn(original("What is my name?", "ORIGINAL TWO")),
    )
    recorder = Recorder()
    run = CompareRun(plan_rows(source, "service-think"), "service-think", recorder)
    async with client_for(sandbox) as client:
        await run.run(client)
    first, second = (row.rerun for row in run.rows)
    assert first is not None and second is not None
    assert first.status == second.status == TurnStatus.COMPLETED
    assert first.request_body == {"model": "service-think", "input": "My name is Ada", "temperature": 0.2}
    assert body_of(second)["input"] == [
        {"role": "user", "content": "My name is Ada"},
        {"role": "assistant", "content": first.text},  # the new model's answer, never the original
        {"role": "user", "content": "What is my name?"},
    ]
    assert "ORIGINAL" not in str(second.request_body) and "Ada" in second.text
    assert recorder.events == [  # updated: a think model's reasoning item finished
        ("started", 0),
        ("updated", 0),
        ("finished", 0),
        ("started", 1),
        ("updated", 1),
        ("finished", 1),
    ]
    assert recorder.text[0] == first.text


@pytest.mark.anyio
async def test_a_403_ends_the_run_and_says_why_on_the_rest(sandbox: Sandbox) -> None:
    with sandbox.admin() as admin:  # the organization's list admits 203.0.113.0/24 only
        admin.post(f"{sandbox.org_list}/entries", json={"cidr": "203.0.113.0/24"}).raise_for_status()
        admin.patch(sandbox.org_list, params={"force": "true"}, json={"enabled": True}).raise_for_status()
    source = source_of(*(SourceTurn(original(f"Turn {n}", "ok")) for n in range(3)))
    recorder = Recorder()
    run = CompareRun(plan_rows(source, "service-ultra"), "service-ultra", recorder)
    async with client_for(sandbox, ip="198.51.100.7") as client:
        await run.run(client)
    blocked = run.rows[0].rerun
    assert blocked is not None and blocked.status == TurnStatus.FAILED
    assert blocked.error_kind == ErrorKind.BLOCKED and blocked.source_ip == "198.51.100.7"
    assert [row.rerun for row in run.rows[1:]] == [None, None]
    assert all("IP allowlist" in row.skipped for row in run.rows[1:])
    assert recorder.events == [("started", 0), ("finished", 0), ("finished", 1), ("finished", 2)]


def test_a_saved_number_that_is_not_finite_is_not_sent_again() -> None:
    options, _ = options_for(
        {"temperature": float("nan"), "top_p": float("inf"), "max_output_tokens": 64}, "m"
    )
    assert options.temperature is None and options.top_p is None and options.max_output_tokens == 64
