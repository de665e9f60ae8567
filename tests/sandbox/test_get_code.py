"""Every "Get code" snippet runs unchanged as saved, against the sandbox as a real server: curl with the
system's curl, Python with the official `openai` client, Node.js with the official npm client in a project
made by `npm init -y` (CommonJS). With functions, the Python and Node loops answer the model's calls with
the saved outputs until it answers in text.

A Python snippet runs as `python FILE` in a child forked from a parent that imported the client
(tests/sandbox/conftest.py): the file as saved, its own `import openai`, environment, folder, argv and stdin as
a new interpreter's; only the import is found done. The Node.js and curl snippets run as they are."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from app.core.playground.functions import EXAMPLES, ToolSettings
from app.core.playground.snippet_socket import snippets_for
from app.core.playground.snippets import all_snippets
from app.core.playground.turns import RequestOptions, build_request
from tests.conftest import Sandbox
from tests.fork_server import ForkServer

ROOT = Path(__file__).resolve().parents[2]
NODE_MODULES = Path(os.environ.get("NODE_CLIENT", ROOT / ".node-client")) / "node_modules"
WEATHER, CALCULATE = EXAMPLES[0], EXAMPLES[1]


def snippets(sandbox: Sandbox, prompt: str, tools: ToolSettings | None = None) -> dict[str, str]:
    options = RequestOptions(model="service-pro", tools=tools or ToolSettings())
    body = build_request([], prompt, [], options).body
    functions = tools.functions if tools else ()
    return all_snippets(sandbox.url, body, "SERVICE_API_KEY", functions=functions)


# The tests that run a Python snippet: on one pytest process, which starts the preloaded parent once.
ON_THE_PYTHON_PARENT = pytest.mark.xdist_group("openai_snippets")


def environment_for(sandbox: Sandbox) -> dict[str, str]:
    return {**os.environ, "SERVICE_API_KEY": sandbox.creds.api_key}


def run(command: list[str], sandbox: Sandbox, cwd: Path) -> str:
    done = subprocess.run(
        command, cwd=cwd, env=environment_for(sandbox), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout


def run_python(script: str, sandbox: Sandbox, cwd: Path, python: ForkServer) -> str:
    """`python SCRIPT` in `cwd`, forked from the parent that imported `openai`: stdin this process's, as
    subprocess.run leaves it, and ending as the interpreter ends (its objects destroyed)."""
    done = python.run([script], env=environment_for(sandbox), cwd=cwd, timeout=60, stdin=0, finalize=True)
    assert done.code == 0, done.err + done.out
    return done.out


@functools.cache
def npm_init_package_json() -> str:
    """The package.json `npm init -y` writes into a new folder, made once per process (~0.4 CPU-s of npm's
    each time); only the project's name, its folder's, differs, and nothing reads it."""
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder) / "project"
        project.mkdir()
        subprocess.run(["npm", "init", "-y"], cwd=project, capture_output=True, check=True, timeout=60)
        return (project / "package.json").read_text()


def npm_project(tmp_path: Path) -> Path:
    """A project as `npm init -y` makes it (CommonJS: "type" absent or "commonjs"), with the client in it."""
    if shutil.which("node") is None or shutil.which("npm") is None or not (NODE_MODULES / "openai").is_dir():
        pytest.fail("Node.js and the npm client are installed by packaging/node_client.sh (dev.sh test)")
    project = tmp_path / "project"
    project.mkdir()
    (project / "package.json").write_text(npm_init_package_json())
    assert json.loads((project / "package.json").read_text()).get("type", "commonjs") == "commonjs"
    (project / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)
    return project


def test_curl_runs_as_written(sandbox: Sandbox, tmp_path: Path) -> None:
    code = snippets(sandbox, "Say hello in five words")["curl"]
    answer: dict[str, Any] = json.loads(run(["bash", "-c", code], sandbox, tmp_path))
    assert answer["status"] == "completed" and answer["output"][-1]["type"] == "message"


def test_curl_with_functions_gets_the_call(sandbox: Sandbox, tmp_path: Path) -> None:
    code = snippets(sandbox, "Use get_weather for Paris", ToolSettings(functions=(WEATHER,)))["curl"]
    assert code.startswith("# The answer may hold function_call items")
    answer = json.loads(run(["bash", "-c", code], sandbox, tmp_path))
    (call,) = [item for item in answer["output"] if item["type"] == "function_call"]
    assert call["name"] == "get_weather" and json.loads(call["arguments"])["city"]


@ON_THE_PYTHON_PARENT
def test_python_runs_as_written_with_the_official_client(
    sandbox: Sandbox, tmp_path: Path, python_openai: ForkServer
) -> None:
    (tmp_path / "hello.py").write_text(snippets(sandbox, "Say hello in five words")["Python"])
    assert "simulated model" in run_python("hello.py", sandbox, tmp_path, python_openai)


@ON_THE_PYTHON_PARENT
def test_a_snippet_imports_nothing_of_the_client_the_parent_did_not(
    sandbox: Sandbox, tmp_path: Path, python_openai: ForkServer
) -> None:
    """What a snippet's call reaches (the client's Responses resource, its transport, anyio's backend) is
    imported once in the parent: a snippet that imported them itself spent half its CPU there."""
    code = snippets(sandbox, "Say hello in five words")["Python"]
    (tmp_path / "counted.py").write_text(
        "import json, sys\nBEFORE = set(sys.modules)\n"
        + code
        + "\nprint(json.dumps(sorted(set(sys.modules) - BEFORE)))\n"
    )
    printed = run_python("counted.py", sandbox, tmp_path, python_openai).splitlines()
    assert "simulated model" in printed[0]
    assert json.loads(printed[-1]) == []


@ON_THE_PYTHON_PARENT
def test_python_in_websocket_mode_runs_over_the_socket_as_written(
    sandbox: Sandbox, tmp_path: Path, python_openai: ForkServer
) -> None:
    body = build_request([], "Say hello in five words", [], RequestOptions(model="service-pro")).body
    written = snippets_for(sandbox.url, body, "SERVICE_API_KEY", websocket=True)
    assert "client.responses.connect()" in written["Python"]
    (tmp_path / "over_socket.py").write_text(written["Python"])
    assert "simulated model" in run_python("over_socket.py", sandbox, tmp_path, python_openai)
    # The curl and Node.js snippets go over HTTP and say so, then run as they would without the note.
    assert written["curl"].startswith("# Sent over HTTP")
    answer: dict[str, Any] = json.loads(run(["bash", "-c", written["curl"]], sandbox, tmp_path))
    assert answer["status"] == "completed"


@ON_THE_PYTHON_PARENT
def test_python_loop_answers_calls_with_the_saved_outputs(
    sandbox: Sandbox, tmp_path: Path, python_openai: ForkServer
) -> None:
    tools = ToolSettings(functions=(WEATHER, CALCULATE))
    (tmp_path / "loop.py").write_text(snippets(sandbox, "Use get_weather, then calculate", tools)["Python"])
    printed = run_python("loop.py", sandbox, tmp_path, python_openai)
    assert "get_weather returned" in printed and "light rain" in printed
    assert "calculate returned" in printed


def test_node_runs_as_saved_in_a_default_npm_project(sandbox: Sandbox, tmp_path: Path) -> None:
    project = npm_project(tmp_path)
    (project / "main.js").write_text(snippets(sandbox, "Say hello in five words")["Node.js"])
    assert "simulated model" in run(["node", "main.js"], sandbox, project)


def test_node_loop_answers_calls_with_the_saved_outputs(sandbox: Sandbox, tmp_path: Path) -> None:
    project = npm_project(tmp_path)
    tools = ToolSettings(functions=(WEATHER, CALCULATE))
    (project / "main.js").write_text(snippets(sandbox, "Use get_weather, then calculate", tools)["Node.js"])
    printed = run(["node", "main.js"], sandbox, project)
    assert "get_weather returned" in printed and "calculate returned" in printed


@ON_THE_PYTHON_PARENT
def test_a_function_without_a_saved_output_answers_that_it_is_not_written(
    sandbox: Sandbox, tmp_path: Path, python_openai: ForkServer
) -> None:
    bare = WEATHER.__class__(WEATHER.name, WEATHER.description, WEATHER.parameters, WEATHER.strict, "")
    code = snippets(sandbox, "Use get_weather for Oslo", ToolSettings(functions=(bare,)))["Python"]
    (tmp_path / "bare.py").write_text(code)
    assert "is not written yet" in run_python("bare.py", sandbox, tmp_path, python_openai)
