"""What a launch loads before its tabs are painted: the window, the Playground with its saved conversations,
and nothing that waits for a first request, a first turn or the event loop. Run in a fresh interpreter, as
`run_window` does it, so that modules other tests imported do not hide one that crept back in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LAUNCH = """
import json, sys
from pathlib import Path
from app.pyside_imports import load_pyside
load_pyside()
from app.bootstrap import Paths, install_excepthook, make_application, make_session
app = make_application(["console"])
session = make_session(Paths.under(Path(sys.argv[1])), interactive=False)
from app.ui.main_window import MainWindow
window = MainWindow(session)
window.show()
app.processEvents()
first_frame = sorted(sys.modules)
install_excepthook(session.bus)
window.ensure_tabs()
app.processEvents()
print(json.dumps({"first_frame": first_frame, "tabs_ready": sorted(sys.modules)}))
"""

# Loaded with what uses them, never before the tabs are painted (each cost the launch 5-60 ms).
NOT_BEFORE_TABS = {
    "asyncio": "the event loop is made after the tabs' paint; a turn imports it when it runs",
    "qasync": "the event loop",
    "httpx": "the API client, made when a profile is activated",
    "app.api.client": "the API client",
    "app.sandbox.contract.responses": "the embedded sandbox's pydantic contract, loaded when it starts",
    "pydantic": "the wire models, loaded with the first answer",
    "jsonschema": "a schema's check, loaded when one is checked",
    "keyring": "the keychain, read when a profile needs a key",
    "app.netrules": "the allowlists' rules, loaded with a refused turn or the Security tab",
    "app.core.playground.snippets": "Get code",
    "app.ui.playground.turn_view": "a turn's view, built when a conversation shows a turn",
    "app.ui.playground.dialogs": "the Inspector and Get code",
    "app.ui.playground.compare": "Compare's dialog",
    "app.services.playground.compare": "Compare's re-runs, made at the first comparison",
    "app.core.playground.compare": "Compare's re-runs",
    "app.ui.playground.find_bar": "the find bar, built at the first Ctrl+F",
    "app.ui.playground.function_dialog": "a function's dialog, at the first Add or Edit",
    "app.services.playground.images": "the images service, with the first image attached",
    "app.ui.security.tab": "the Security tab, built when it is first shown",
    "uuid": "a new conversation's id (uuid loads `platform`)",
    "app.core.playground.turns": "a turn's dataclasses and request building (~4 ms), with the first turn",
    "app.core.playground.functions": "function definitions (~5 ms with what they load), when used",
    "app.core.playground.function_calls": "the calls a model made, with the first call",
    "app.core.playground.turn_record": "what a saved turn keeps, with the first turn saved or opened",
    "app.api.requests": "the request bodies' TypedDicts, with the first request built",
}


def test_the_tabs_are_painted_without_what_waits_for_later(tmp_path: Path) -> None:
    environment = os.environ | {
        "PYTHONPATH": str(ROOT),
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    done = subprocess.run(
        [sys.executable, "-c", LAUNCH, str(tmp_path / "home")],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert "app.ui.playground.tab" in loaded["tabs_ready"]  # the launch did build the Playground
    assert "app.ui.playground.tab" not in loaded["first_frame"]
    early = {name: why for name, why in NOT_BEFORE_TABS.items() if name in loaded["tabs_ready"]}
    assert early == {}, f"loaded before the tabs were painted: {early}"
