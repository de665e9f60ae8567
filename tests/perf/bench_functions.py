"""Functions in the Playground, against a sandbox in its own process (simulated engine).

Figures, in the same run:
- a function-call turn in the Playground tab (the call shown, the saved output sent back, the answer
  streamed and shown) against the same two requests streamed by the official client alone (rounds
  interleaved, medians); goal at most 1.3x;
- reopening a 200-turn conversation whose turns keep calls, outputs, sources and the inspector's data,
  to the last turn shown, against the same conversation saved with text only; goal at most 300 ms.
Run: python -m tests.perf.bench_functions   (offscreen; not a timed test)
"""

from __future__ import annotations

import asyncio
import gc
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.perf.tiny import size
from tests.sandbox_process import spawn_sandbox

ROUNDS = size(15, 1)
SAVED_TURNS = size(200, 5)  # of the conversation reopened
PROMPT = "Use get_weather for Paris, in a few words"


async def official_client(creds: dict[str, Any], tools: list[Any], output: str) -> tuple[float, float]:
    """The call and the answer, streamed by the official client: the floor the console is held to."""
    from openai import AsyncOpenAI

    # The bodies as the client's own docs write them; the events are read by their `type` (a union of 60).
    first: dict[str, Any] = {"model": "service-pro", "input": PROMPT, "tools": tools, "stream": True}
    async with AsyncOpenAI(base_url=creds["base_url"], api_key=creds["api_key"], max_retries=0) as client:
        started, cpu = time.perf_counter(), time.process_time()
        stream: Any = await client.responses.create(**first)
        calls: list[str] = []
        response_id = ""
        async for event in stream:
            if event.type == "response.output_item.done" and event.item.type == "function_call":
                calls.append(event.item.call_id)
            elif event.type == "response.completed":
                response_id = event.response.id
        outputs = [{"type": "function_call_output", "call_id": call, "output": output} for call in calls]
        second: dict[str, Any] = {**first, "input": outputs, "previous_response_id": response_id}
        stream = await client.responses.create(**second)
        text = []
        async for event in stream:
            if event.type == "response.output_text.delta":
                text.append(event.delta)
        assert "get_weather returned" in "".join(text)
        return time.perf_counter() - started, time.process_time() - cpu


def main() -> None:
    from app.pyside_imports import load_pyside

    # As the console's launch does (app.__main__.run_window). Without it the official client's side paid
    # PySide's import hook at each of its import statements in a function (~2 ms a round), a cost it never
    # has in a process of its own: the ratio read ~0.05x better than the truth.
    load_pyside()
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.asyncloop import install_asyncgen_hooks
    from app.bootstrap import Paths, make_session
    from app.core.playground.conversation_store import StoredTurn
    from app.core.playground.function_calls import FunctionCall
    from app.core.playground.functions import EXAMPLES, ToolSettings
    from app.core.playground.turns import Turn, TurnStatus
    from app.services.playground.conversations import stored_turn
    from app.services.session.profiles import Profile
    from app.ui.playground.tab import PlaygroundTab

    with tempfile.TemporaryDirectory() as folder:
        process, creds = spawn_sandbox(Path(folder))
        try:
            app = QApplication.instance() or QApplication([])
            loop = qasync.QEventLoop(app)
            asyncio.set_event_loop(loop)
            install_asyncgen_hooks(loop)
            session = make_session(Paths.under(Path(folder) / "home"), interactive=False)
            profile = Profile(id="bench", name="bench", base_url=creds["base_url"], org_id=creds["org_id"])
            session.profiles.save(profile)
            session.secrets.set("bench", "api_key", creds["api_key"], session_only=True)
            loop.run_until_complete(session.activate("bench"))
            tab = PlaygroundTab(session)
            tab.resize(1100, 800)
            tab.show()
            weather = EXAMPLES[0]
            tab.functions.set_tool_settings(ToolSettings(functions=(weather,)))

            finished: list[asyncio.Future[None]] = []

            def turn_ended(_index: int) -> None:
                if finished and not finished[-1].done():
                    finished[-1].set_result(None)

            tab.service.turn_finished.connect(turn_ended)

            async def console_turn() -> tuple[float, float]:
                """Sent as a person sends, to the finished turn shown. The end is awaited on the turn's own
                signal: polling for it every millisecond (as this bench did) woke the console's process
                hundreds of times a turn, a cost the official client's side never paid."""
                tab.keeper.new()
                finished.append(asyncio.get_running_loop().create_future())
                started, cpu = time.perf_counter(), time.process_time()
                tab.message.setPlainText(PROMPT)
                tab.send()
                await finished[-1]  # the whole turn: the call, the saved output sent back, the answer
                app.processEvents()  # the answer shown
                elapsed, cpu_used = time.perf_counter() - started, time.process_time() - cpu
                while tab.service.streaming:  # the task ends right after its last signal
                    await asyncio.sleep(0.001)
                turn = tab.service.turns[-1]
                assert turn.status == TurnStatus.COMPLETED and turn.rounds == 2, (turn.status, turn.error)
                return elapsed, cpu_used

            async def rounds() -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
                console, official = [], []
                await console_turn()  # warm both (imports, connections)
                await official_client(creds, [weather.tool()], weather.mock_output)
                gc.freeze()  # as the console's launch does once its tabs are ready
                for _ in range(ROUNDS):
                    console.append(await console_turn())
                    official.append(await official_client(creds, [weather.tool()], weather.mock_output))
                return console, official

            console_both, official_both = loop.run_until_complete(rounds())
            console, official = [wall for wall, _ in console_both], [wall for wall, _ in official_both]
            ratio = statistics.median(console) / statistics.median(official)
            print(
                f"official client, call + output + answer streamed: {statistics.median(official) * 1000:7.1f} ms"
            )
            print(
                f"Playground tab, the same turn shown:             {statistics.median(console) * 1000:7.1f} ms"
                f"  ({ratio:.2f}x, goal at most 1.3x)"
            )
            # The sandbox runs in its own process: this process's CPU time is the client's side alone, a
            # figure that holds on a loaded machine where wall times do not.
            official_cpu = statistics.median(cpu for _, cpu in official_both)
            console_cpu = statistics.median(cpu for _, cpu in console_both)
            print(
                f"  CPU time of this process: official {official_cpu * 1000:.1f} ms,"
                f" Playground {console_cpu * 1000:.1f} ms ({console_cpu / official_cpu:.2f}x)"
            )

            def saved_conversation(with_calls: bool) -> str:
                conversation_id = tab.conversations.start(
                    "Long, with calls" if with_calls else "Long", "service-pro"
                )
                assert conversation_id
                for position in range(SAVED_TURNS):
                    turn = Turn(f"Question {position} about the weather", [], "service-pro", True)
                    turn.text = "The function get_weather returned light rain. " * 20
                    turn.status = TurnStatus.COMPLETED
                    if with_calls:
                        turn.tools = ToolSettings(functions=(weather,))
                        turn.calls = [
                            FunctionCall(
                                f"call_{position}",
                                "get_weather",
                                '{"city": "Paris", "unit": "celsius"}',
                                output=weather.mock_output,
                            )
                        ]
                        turn.rounds = 2
                        turn.request_body = {
                            "model": "service-pro",
                            "input": turn.prompt,
                            "tools": [weather.tool()],
                        }
                        turn.headers = {
                            "x-request-id": f"req_{position}",
                            "content-type": "text/event-stream",
                        }
                    stored: StoredTurn = stored_turn(turn)
                    tab.conversations.save_turn(
                        conversation_id, position, stored, position == SAVED_TURNS - 1
                    )
                return conversation_id

            def reopen(conversation_id: str) -> float:
                tab.keeper.new()
                app.processEvents()
                started, cpu = time.perf_counter(), time.process_time()
                assert tab.keeper.open(conversation_id)
                app.processEvents()  # the newest turns built and laid out
                cpu_times.append(time.process_time() - cpu)
                return time.perf_counter() - started

            plain, rich = saved_conversation(False), saved_conversation(True)
            plain_times, rich_times = [], []
            cpu_times: list[float] = []
            rich_cpu: list[float] = []
            for _ in range(size(5, 1)):
                plain_times.append(reopen(plain))
                rich_times.append(reopen(rich))
                rich_cpu.append(cpu_times[-1])
            print(
                f"reopen {SAVED_TURNS} turns, text only:                     {statistics.median(plain_times) * 1000:7.1f} ms"
            )
            print(
                f"reopen {SAVED_TURNS} turns, calls, outputs and data kept:  {statistics.median(rich_times) * 1000:7.1f} ms"
                "  (goal at most 300 ms)"
            )
            print(f"  CPU time of the reopen with calls: {statistics.median(rich_cpu) * 1000:.1f} ms")
            # As the console's quit does: the session's tasks and client ended, then the loop closed, which
            # ends its executor's threads (QThreads; one still running when Python exits aborts the process).
            tab.close()
            tab.conversations.close()
            loop.run_until_complete(session.shutdown())
            loop.close()
        finally:
            process.kill()
            process.wait()


if __name__ == "__main__":
    main()
