"""An eval of ten rows run offline end to end: `service-console eval run` in its own process against a sandbox
on the local engine (Gemma 3 270M), a stored prompt with its options (the answer's length bounded by them),
graded by a regular expression and by whether the answer holds the row's word."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.sandbox import SandboxServer
from tests.local_support import local_sandbox

pytestmark = pytest.mark.local

ROOT = Path(__file__).resolve().parents[2]
WORDS = ("apple", "river", "cloud", "stone", "green", "music", "bread", "light", "horse", "paper")


@pytest.fixture(scope="module")
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SandboxServer]:
    yield from local_sandbox(request, tmp_path_factory)


# Its own limit, past the `local` marker's 300 s: ten real answers one after another (the engine answers one at
# a time) took 174 s at a load average of 7 on two cores, and more than 280 s at 12.
@pytest.mark.timeout(900)
def test_ten_rows_are_sent_graded_and_saved_offline(server: SandboxServer, tmp_path: Path) -> None:
    creds = server.credentials
    assert creds is not None
    with httpx.Client(
        base_url=server.base_url, headers={"authorization": f"Bearer {creds.admin_key}"}
    ) as admin:
        made = admin.post(
            f"/organizations/{creds.org_id}/prompts",
            json={
                "name": "One word",
                "instructions": "Answer with one short sentence.",
                "input": "Write a sentence with the word {{word}}.",
                "options": {"max_output_tokens": 16, "temperature": 0.2},
            },
        )
    assert made.status_code == 200, made.text
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"word": word, "expected": word}) + "\n" for word in WORDS))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
    env.update(
        PYTHONPATH=str(ROOT),
        PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring",
        SERVICE_BASE_URL=server.base_url,
        SERVICE_ORG_ID=creds.org_id,
        SERVICE_ADMIN_KEY=creds.admin_key,
        SERVICE_API_KEY=creds.api_key,
    )
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "eval",
            "run",
            str(rows),
            "--prompt",
            f"{made.json()['id']}@1",
            "--model",
            "service-pro",
            "--grader",
            r"regex:\w",
            "--grader",
            "contains",
            "--concurrency",
            "2",
            "--min-pass",
            "0",
            "--json",
            "--out",
            str(tmp_path / "run.json"),
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=840,
    )
    seconds = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    cells = result["cells"]
    assert len(cells) == 10 and not any(cell["error"] for cell in cells)
    assert all(cell["answer"].strip() and 0 < cell["output_tokens"] <= 16 for cell in cells)
    assert all(len(cell["reasons"]) == 2 and cell["reasons"][0].startswith("regex") for cell in cells)
    assert json.loads((tmp_path / "run.json").read_text())["summary"][0]["done"] == 10
    print(
        f"\nlocal eval: 10 rows in {seconds:.1f} s, pass rate {result['pass_rate']:.0%}, "
        f"median {result['summary'][0]['median_seconds'] * 1000:.0f} ms"
    )
