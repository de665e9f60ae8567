"""tests/forked_python.py: a child that is its caller forked answers as a new interpreter does (exit code,
output, environment, folders), lets go of what its parent held, and leaves its parent's temporary folders.

The checks run in a new single-threaded interpreter: this test's process may run threads (xdist's), and
a threaded process is never forked (the helper starts a new interpreter instead)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.fork_server import ROOT

CHECKS = """
import json, os, select, subprocess, sys, tempfile
from tests.forked_python import python, single_threaded

assert single_threaded()
held = tempfile.TemporaryDirectory()  # the parent's: a child's exit must not remove it
env = {**os.environ, "PROBE": "given"}
seen = {}
for fork in (True, False):
    read, write = os.pipe()  # the parent's pipe: a forked child holding its end would keep it from ending
    child = python(
        ["-m", "tests.probe_process", "0.5", "3"], fork=fork, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    running = child.poll() is None  # Popen answered once the child started, not once it ended
    os.close(write)
    ended = bool(select.select([read], [], [], 0.4)[0]) and os.read(read, 1) == b""
    out, err = child.communicate(timeout=30)
    seen[fork] = {"code": child.returncode, "facts": json.loads(out), "err": err, "pipe_ended": ended, "running": running}
seen["parent_folder_kept"] = os.path.isdir(held.name)
print(json.dumps(seen))
"""


def test_a_forked_child_answers_as_a_new_interpreter_does() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHECKS],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    seen = json.loads(done.stdout)
    forked, new = seen["true"], seen["false"]
    assert (forked["facts"]["forked"], new["facts"]["forked"]) == (True, False)
    assert forked["code"] == new["code"] == 3
    for answer in (forked, new):
        facts = answer["facts"]
        assert (facts["argv"], facts["probe"], facts["cwd"]) == (["0.5", "3"], "given", str(ROOT))
        assert not os.path.exists(facts["folder"])  # its own, removed by its finalizer at exit
        assert answer["running"] and answer["pipe_ended"]
    assert forked["facts"]["sid"] == new["facts"]["sid"] == os.getsid(0)  # the caller's session
    assert seen["parent_folder_kept"]
