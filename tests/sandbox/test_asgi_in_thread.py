"""The fuzzing module's in-thread ASGI client (asgi_in_thread.py): requests and the lifespan run in the
calling thread, and the lifespan's startup and shutdown both happen."""

from __future__ import annotations

import threading
from typing import Any

import pytest

pytest.importorskip("schemathesis")
from schemathesis.python import asgi

from tests.sandbox.asgi_in_thread import clients_ignore_the_environment, in_this_thread


def test_requests_and_the_lifespan_run_in_the_calling_thread() -> None:
    if not callable(getattr(asgi, "_get_portal", None)):
        pytest.skip("schemathesis moved its portal: the client runs as it ships (asgi_in_thread.py)")
    threads: set[int] = set()
    lifespan: list[str] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        threads.add(threading.get_ident())
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                lifespan.append(message["type"])
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
        await receive()
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]}
        )
        await send({"type": "http.response.body", "body": scope["path"].encode()})

    with in_this_thread(), asgi.get_client(app) as client:
        answers = [client.get(f"/{number}").text for number in range(3)]
        assert lifespan == ["lifespan.startup"]
    assert answers == ["/0", "/1", "/2"]
    assert lifespan == ["lifespan.startup", "lifespan.shutdown"]
    assert threads == {threading.get_ident()}


def test_the_clients_schemathesis_makes_ignore_the_environment() -> None:
    """As the ignored-auth check's probes are sent: each through a client of its own."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        raise AssertionError("not called")

    with clients_ignore_the_environment():
        assert asgi.get_client(app).trust_env is False
    assert asgi.get_client(app).trust_env is True
