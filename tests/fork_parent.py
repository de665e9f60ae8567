"""The preloaded parent's side of tests/fork_server.py: import the preload list once, listen on a Unix socket,
fork a child per call (tests/forked_child.py), send each caller its child's pid and, once reaped, its exit
status; end with its caller (or its owner), taking the children still running along."""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import sys
from types import ModuleType

from tests.forked_child import RAN, become, quick_exit
from tests.forked_end import end


def serve(address: str, preload: list[str], owner: int | None = None) -> None:
    """Import `preload`, listen on `address`, fork a child per connection, and send each connection its
    child's pid at once and its exit status once the child is reaped; at the end of its standard input (the
    caller closed it, or ended without closing it), kill the children still running and end. With `owner`:
    once listening, run on in a process of its own (its starter exits), and end so when the process `owner`
    ends instead."""
    import gc
    import importlib

    for name in preload:
        module, _, function = name.partition(":")
        loaded = importlib.import_module(module)
        if function:
            getattr(loaded, function)()
    # What is preloaded lives as long as the server: out of the garbage collector's sight, so that a child's
    # collections (and its end, with `finalize`) do not walk it, writing to every page it shares with the
    # parent and so copying them all (~0.25 CPU-s of each bench's check).
    gc.freeze()
    threads = os.listdir("/proc/self/task")
    if len(threads) > 1:  # a child forked then would hold locks of threads it does not have
        raise RuntimeError(f"preloading started {len(threads) - 1} thread(s); forking would be unsafe")
    preloaded = dict(sys.modules)  # left as they are at a child's end (tests/forked_end.py)
    waiting: dict[int, socket.socket] = {}  # a child's pid -> the connection its exit status goes to
    alive: set[int] = set()  # every child not yet reaped, its caller waiting or not
    # A pipe from the caller: end of file once it closes it or is gone; or, with an owner, a descriptor that
    # becomes readable when the owner ends (Linux 5.3 and later; without it, looked at every second).
    caller = sys.stdin.fileno() if owner is None else _watch(owner)
    wake_read, wake_write = os.pipe()  # SIGCHLD's note to the loop below (signal.set_wakeup_fd)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda number, frame: None)  # a handler, so that the wakeup fd is written
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener, selectors.DefaultSelector() as ready:
        listener.bind(address)
        listener.listen(64)
        ready.register(listener, selectors.EVENT_READ)
        ready.register(wake_read, selectors.EVENT_READ)
        if caller >= 0:
            ready.register(caller, selectors.EVENT_READ)
        print("ready", flush=True)
        if owner is not None:
            _detach()
        while True:
            events = ready.select(None if caller >= 0 else 1.0)
            if caller < 0 and owner is not None and not _alive(owner):
                _end_children(alive)
                return
            for key, _ in events:
                if key.fileobj is listener:
                    connection, _ = listener.accept()
                    server_fds: list[int | socket.socket] = [listener, wake_read, wake_write]
                    server_fds += waiting.values()
                    if owner is not None and caller >= 0:  # the owner's pidfd
                        server_fds.append(caller)
                    pid = _start_child(connection, server_fds, alive, preloaded)
                    if pid is not None:
                        waiting[pid] = connection
                elif key.fileobj == caller:
                    if owner is not None or not os.read(caller, 512):
                        _end_children(alive)
                        return
                else:
                    os.read(wake_read, 512)
                    _reap(waiting, alive)


def _watch(owner: int) -> int:
    """A descriptor readable once the process `owner` has ended (a pidfd), or -1 where there is none."""
    try:
        return os.pidfd_open(owner)
    except (AttributeError, OSError):
        return -1


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _detach() -> None:
    """Go on in a child of this process, which exits: the server's starter does not wait for its end. Its
    standard streams to /dev/null: the starter reads no more of them."""
    if os.fork() != 0:
        os._exit(0)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)


def _end_children(alive: set[int]) -> None:
    """Kill -9 every child still running (with its process group, when it made one of its own)."""
    for pid in alive:
        try:
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:  # ended since
            pass


def _start_child(
    connection: socket.socket,
    server_fds: list[int | socket.socket],
    alive: set[int],
    preloaded: dict[str, ModuleType],
) -> int | None:
    """Fork the child a connection asks for and send it its pid; None when the caller left already.
    `server_fds` are closed in the child: the listener, the wakeup pipe, the other children's connections.
    `preloaded`: the server's modules, which a child that ends as the interpreter ends leaves as they are."""
    message, fds, _flags, _ = socket.recv_fds(connection, 1 << 20, 3)
    while chunk := connection.recv(1 << 20):  # a request longer than one read
        message += chunk
    if not message:  # a caller that only looked whether the server listens (ForkServer.shared)
        for passed in fds:
            os.close(passed)
        connection.close()
        return None
    pid = os.fork()
    if pid == 0:
        try:
            for fd in server_fds:
                if isinstance(fd, socket.socket):
                    fd.close()  # as the object, which then does not close it again on the way out
                else:
                    os.close(fd)
            connection.close()
            request = json.loads(message)
            code = become(request, fds)
            if request.get("finalize"):
                end(code, preloaded, [RAN])
            quick_exit(code)
        except BaseException:
            os._exit(70)  # never back into the server's loop, whatever _child raised
    alive.add(pid)
    for fd in fds:
        os.close(fd)
    try:
        connection.sendall(f"{pid}\n".encode())
    except OSError:  # the caller is gone: the child runs on, and is reaped without an answer
        connection.close()
        return None
    return pid


def _reap(waiting: dict[int, socket.socket], alive: set[int]) -> None:
    """Every child that has exited: its exit status to its connection, which is then closed."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        alive.discard(pid)
        connection = waiting.pop(pid, None)
        if connection is None:
            continue
        with connection:
            try:
                connection.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
            except OSError:  # the caller stopped waiting (a timeout, or it exited)
                pass
