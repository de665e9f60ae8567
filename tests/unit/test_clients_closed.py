"""Every official client a test makes, the test closes: in a `with`, an ExitStack, or a `finally` that closes it.

An official client left open keeps its pooled sockets until the garbage collector finds them, in whichever
later test that happens, and the ResourceWarning then fails that test (warnings are errors in this suite):
a failure in a test that did nothing wrong, on some runs only. Three tests did this; this check keeps it so.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
CLIENTS = {"OpenAI", "AsyncOpenAI"}


def _name(call: ast.Call) -> str | None:
    function = call.func
    if isinstance(function, ast.Name):
        return function.id
    if isinstance(function, ast.Attribute):
        return function.attr
    return None


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}


def _closed_in(function: ast.AST, variable: str) -> bool:
    """Whether `function` closes the client held in `variable`: `with variable`, `enter_context(variable)`,
    or `variable.close()` / `variable.aclose()` in a `finally`."""
    for node in ast.walk(function):
        if isinstance(node, ast.With | ast.AsyncWith):
            if any(
                isinstance(item.context_expr, ast.Name) and item.context_expr.id == variable
                for item in node.items
            ):
                return True
        if isinstance(node, ast.Call) and _name(node) in {"enter_context", "enter_async_context"}:
            if any(isinstance(argument, ast.Name) and argument.id == variable for argument in node.args):
                return True
        if isinstance(node, ast.Try):
            for call in (call for statement in node.finalbody for call in ast.walk(statement)):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr in {"close", "aclose"}
                    and isinstance(call.func.value, ast.Name)
                    and call.func.value.id == variable
                ):
                    return True
    return False


def unclosed_clients(source: str) -> list[int]:
    """Line numbers of official clients made in `source` that nothing visibly closes. A helper that returns
    a new client counts as making one wherever it is called."""
    tree = ast.parse(source)
    parents = _parents(tree)
    makers = set(CLIENTS)
    for node in ast.walk(tree):  # helpers that hand back a new client (`def _api(...): return OpenAI(...)`)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for returned in ast.walk(node):
                if (
                    isinstance(returned, ast.Return)
                    and isinstance(returned.value, ast.Call)
                    and _name(returned.value) in CLIENTS
                ):
                    makers.add(node.name)
    unclosed = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call) or _name(call) not in makers:
            continue
        parent = parents[call]
        # A returned one makes its function a maker: it is checked where that helper is called.
        if isinstance(parent, ast.withitem | ast.Return):
            continue
        if isinstance(parent, ast.Call) and _name(parent) in {"enter_context", "enter_async_context"}:
            continue
        if (
            isinstance(parent, ast.Assign)
            and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)
        ):
            function: ast.AST = parent
            while not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Module):
                function = parents[function]
            if _closed_in(function, parent.targets[0].id):
                continue
        unclosed.append(call.lineno)
    return unclosed


def test_every_official_client_a_test_makes_is_closed() -> None:
    # Only the files that name a client are parsed (a helper that returns one names it in the same file):
    # parsing every test file took ~1 CPU-s.
    sources = {path: path.read_text(encoding="utf-8") for path in sorted(TESTS.rglob("*.py"))}
    found = {
        str(path.relative_to(TESTS)): lines
        for path, source in sources.items()
        if any(name in source for name in CLIENTS) and (lines := unclosed_clients(source))
    }
    assert found == {}, f"official clients nothing closes (file: lines): {found}"


def test_the_check_finds_a_client_left_open_and_passes_closed_ones() -> None:
    left_open = "def test_x(url):\n    client = openai.OpenAI(base_url=url)\n    client.models.list()\n"
    assert unclosed_clients(left_open) == [2]
    helper_left_open = (
        "def _api(url):\n    return OpenAI(base_url=url)\n\ndef test_x(url):\n    _api(url).models.list()\n"
    )
    assert unclosed_clients(helper_left_open) == [5]
    fixture_left_open = "@pytest.fixture\ndef client(url):\n    yield OpenAI(base_url=url)\n"
    assert unclosed_clients(fixture_left_open) == [3]
    closed = [
        "def test_x(url):\n    with openai.OpenAI(base_url=url) as client:\n        client.models.list()\n",
        "def test_x(url):\n    client = openai.OpenAI(base_url=url)\n    with client, raises(E):\n        pass\n",
        "def test_x(url, stack):\n    client = stack.enter_context(OpenAI(base_url=url))\n",
        "def test_x(url):\n    client = OpenAI(base_url=url)\n    try:\n        pass\n    finally:\n        client.close()\n",
        "async def test_x(url):\n    async with AsyncOpenAI(base_url=url) as client:\n        pass\n",
        "def _api(url):\n    return OpenAI(base_url=url)\n\ndef test_x(url):\n    with _api(url) as api:\n        pass\n",
    ]
    assert [unclosed_clients(source) for source in closed] == [[]] * len(closed)
