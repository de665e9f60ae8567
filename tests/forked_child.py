"""The forked child's side of tests/fork_server.py: become `python -m MODULE ...` (or `python FILE ...`) with
the caller's files, environment and folder, and end with the exit code the interpreter would give."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from collections.abc import Callable

# The module's globals, as `python -m` keeps them until the interpreter ends (`finalize`).
RAN: dict[str, object] = {}


def become(request: dict[str, object], fds: list[int]) -> int:
    """In the forked child: become `python -m MODULE ...` with the caller's files; its exit code."""
    import runpy

    if request.get("session"):
        os.setsid()
    signal.set_wakeup_fd(-1)  # the server's: a child's own signals are its own business
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in set(fds):
        if fd > 2:
            os.close(fd)
    env = request["env"]
    argv = request["argv"]
    assert isinstance(env, dict) and isinstance(argv, list)
    os.environ.clear()
    os.environ.update(env)
    tempfile.tempdir = None  # chosen again from TMPDIR, as a new process does, if the parent had asked
    os.chdir(str(request["cwd"]))
    umask = request.get("umask")
    if isinstance(umask, int):
        os.umask(umask)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if argv[0] != "-m":
        return exit_code_of(lambda: _run_script(argv))
    # sys.path's first entry, as `-m` makes it: the working directory (the server's is its own).
    sys.path[0] = os.getcwd()
    sys.argv = ["-m", *argv[2:]]  # runpy puts the module's path first, as `-m` does
    # The preloaded copy of its __main__ module out of the way: `-m` runs that module fresh, and runpy
    # warns (on stderr) when it finds it already imported.
    sys.modules.pop(f"{argv[1]}.__main__", None)
    return exit_code_of(lambda: RAN.update(runpy.run_module(argv[1], run_name="__main__", alter_sys=True)))


def _run_script(argv: list[str]) -> None:
    """`python FILE ARGS...` as the interpreter runs it: argv as given, the file's folder first on sys.path,
    `__main__` a module of its own (in sys.modules: its globals live until the interpreter ends) whose
    `__file__` is the file's path joined to the working directory. (runpy.run_path would put the path in
    sys.argv[0] and give the old `__main__` back when done.)"""
    import types
    from importlib.machinery import SourceFileLoader

    path = os.path.join(os.getcwd(), argv[0])
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__loader__ = SourceFileLoader("__main__", path)
    main.__cached__ = None  # type: ignore[attr-defined]  # as the interpreter leaves it for a script
    sys.modules["__main__"] = main
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(path))
    with open(path, "rb") as source:
        code = compile(source.read(), path, "exec")
    try:
        exec(code, vars(main))
    except SystemExit:
        raise
    except BaseException as error:
        import traceback

        # From the script's own frame down, as the interpreter prints it (not this function's callers).
        trace = error.__traceback__.tb_next if error.__traceback__ else None
        traceback.print_exception(type(error), error, trace)
        raise SystemExit(1) from None


def exit_code_of(main: Callable[[], object]) -> int:
    """Run `main` as the interpreter runs a program, and the exit code it would give: 0, a SystemExit's
    code (sys.exit(main()), argparse's usage errors), or 1 with the message or the traceback on stderr."""
    try:
        main()
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            return done.code or 0
        print(done.code, file=sys.stderr)
    except BaseException:
        import traceback

        traceback.print_exc()  # as an uncaught exception would
    else:
        return 0
    return 1


def quick_exit(code: int) -> None:
    """A forked child's end without the interpreter's: what atexit holds (logging's flush and the rest) and
    the streams flushed, as the interpreter's own exit does them, then gone, whatever those raised."""
    import atexit

    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)
