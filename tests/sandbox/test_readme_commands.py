"""The README's "Locked out?" commands, run as written: a locked-out admin copies them from there."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tests.conftest import Sandbox
from tests.fork_server import ForkServer

README = Path(__file__).resolve().parents[2] / "README.md"


def dashboard_commands() -> list[list[str]]:
    """The sh block under "Locked out? The dashboard", one command a line, comments dropped."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Locked out? The dashboard") :]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    return [shlex.split(line, comments=True) for line in block.group(1).splitlines() if line.strip()]


def filled(words: list[str], data: Path, project: str, entry_id: str) -> list[str]:
    """The placeholders a person fills in: DIR, proj_..., ipal_...; an optional [--project proj_...] dropped."""
    words = [w for w in words if not (w.startswith("[") or w.endswith("]"))]
    names = {"DIR": str(data), "proj_...": project, "ipal_...": entry_id}
    return [names.get(word, word) for word in words]


def test_the_readme_dashboard_commands_work_as_written(sandbox_factory: object, python_m: ForkServer) -> None:
    sandbox: Sandbox = sandbox_factory()  # type: ignore[operator]  # alone in its store
    with sandbox.admin() as admin:
        for cidr in ("203.0.113.0/24", "198.51.100.7"):
            assert admin.post(f"{sandbox.org_list}/entries", json={"cidr": cidr}).status_code == 201
        entries = admin.get(f"{sandbox.org_list}").json()["entries"]
        assert admin.patch(sandbox.org_list, params={"force": "true"}, json={"enabled": True}).is_success
    other = next(entry["id"] for entry in entries if entry["cidr"] == "198.51.100.7/32")
    data = sandbox.server.config.data_dir
    commands = dashboard_commands()
    assert [words[4] for words in commands] == ["show", "disable", "remove", "admin", "deactivate"]
    outputs = []
    for words in commands:
        assert words[:3] == ["python", "-m", "app.sandbox"]
        # `python` is this interpreter, forked from the preloaded parent (tests/fork_server.py)
        done = python_m.run(filled(words, data, sandbox.creds.project_id, other)[1:])
        assert done.code == 0, f"{shlex.join(words)}: {done.err}"
        outputs.append(done.out)
    assert "disabled" in outputs[1]
    assert "removed" in outputs[2] and "0 entries" in outputs[2]  # both the CIDR and the id were removed
    with sandbox.client(outputs[3].strip()) as client:  # the new admin key works
        assert client.get(sandbox.org_list).status_code == 200
