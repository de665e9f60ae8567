"""`service-console` (and `python -m app`): the window; `--selftest`; `sandbox ...` is the sandbox's CLI."""

from __future__ import annotations

import time

STARTED = time.perf_counter()  # before the heavy imports: what a person waits for

import argparse  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import TYPE_CHECKING  # noqa: E402

if TYPE_CHECKING:  # imported at run time only after the first frame
    from app.services.session.session import ConsoleSession


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="service-console",
        description="Service Console: the Playground and the IP allowlists of a hosted AI model service.",
        epilog="service-console allowlist --help: the allowlists from scripts and CI (list, add, remove,"
        " check, enable, disable, whoami). service-console usage --help: tokens and cost; limits --help: rate limits. service-console keys"
        " --help: admin and project keys (list,"
        " create, revoke, rotate). service-console settings --help: the console's settings (show,"
        " set, options). service-console sandbox --help: the local sandbox's own command"
        " line (serve, and the dashboard that recovers a locked-out admin: allowlist show|enable|disable|"
        "remove, keys).",
    )
    parser.add_argument(
        "--selftest",
        action="store_true",
        help="start on the embedded sandbox (in a temporary home unless --home is given), stream one answer,"
        " read the allowlist, print timings",
    )
    parser.add_argument("--home", type=Path, help="keep settings, data and logs under this folder")
    parser.add_argument(
        "--report",
        type=Path,
        help="also write the selftest's JSON line to this file (a windowed app on Windows has no stdout)",
    )
    return parser.parse_args(argv)


async def selftest(session: ConsoleSession) -> dict[str, object]:
    """Stream one answer as the Playground does (a Turn run by TurnRun) and read the allowlist; the figures
    are the ones the turn keeps."""
    from app.core.playground.turn_runner import TurnRun
    from app.core.playground.turns import Turn, TurnStatus

    client, profile = session.client, session.profile
    if client is None or profile is None:
        raise RuntimeError(f"no connection: {session.detail}")
    model = profile.model_names[0]
    turn = Turn(
        "Say hello.", [], model, chain_on_server=False, request_body={"model": model, "input": "Say hello."}
    )
    run = TurnRun(turn, on_text=lambda _chunk: None, on_update=lambda: None)
    await run.run(client)
    if run.error is not None:
        raise run.error
    allowlist = await client.allowlists.get()
    if turn.status != TurnStatus.COMPLETED or not turn.text:
        raise RuntimeError(f"the answer came back {turn.status.value}, {len(turn.text)} characters")
    first = turn.figures.time_to_first_token
    return {
        "time_to_first_token_s": round(first if first is not None else turn.figures.duration or 0.0, 4),
        "answer_chars": len(turn.text),
        "allowlist_entries": len(allowlist.entries),
        "source_ip": allowlist.source_ip,
    }


def resident_mb() -> float | None:
    """Resident memory now (Linux), for the selftest's figures."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def report(args: argparse.Namespace, figures: dict[str, object]) -> None:
    import json

    line = json.dumps(figures)
    if sys.stdout is not None:
        print(line, flush=True)
    if args.report:
        args.report.write_text(line + "\n", encoding="utf-8")


def route_qt_messages_to_the_log() -> None:
    """Qt's own messages (the offscreen plugin's "does not support propagateSizeHints()", say) go to the
    log, not to the terminal, where the selftest's one JSON line is what a person or a script reads."""
    import logging

    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    log = logging.getLogger("qt")
    levels = {QtMsgType.QtDebugMsg: logging.DEBUG, QtMsgType.QtInfoMsg: logging.INFO}

    def handler(kind: QtMsgType, _context: object, message: str) -> None:
        log.log(levels.get(kind, logging.WARNING), "%s", message)

    qInstallMessageHandler(handler)


def cannot_start(args: argparse.Namespace, problem: str) -> int:
    """Say why the console does not start where a person sees it: on stderr, in the selftest's line, and in
    a message box when there is a screen to show it on. The exit code is 1."""
    if sys.stderr is not None:  # a windowed app on Windows has none
        print(f"service-console: {problem}", file=sys.stderr, flush=True)
    if args.selftest:
        report(args, {"ok": False, "error": problem})
    elif shows_windows():
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.critical(None, "Service Console", problem)
    return 1


def shows_windows() -> bool:
    """Whether Qt's platform puts windows on a screen (not offscreen, as in tests and CI)."""
    from PySide6.QtGui import QGuiApplication

    return QGuiApplication.platformName() not in ("offscreen", "minimal")


def run_window(args: argparse.Namespace) -> int:
    import gc

    # No cyclic garbage collection until the tabs are ready: a launch makes some 45,000 tracked objects that
    # live as long as the window (modules, classes, functions), and the collector walked them again and again
    # (~5-10 ms). After the launch they are frozen out of every later collection, and collecting resumes.
    gc.disable()
    from app.pyside_imports import load_pyside

    load_pyside()  # first: PySide6's import hook out, before the ~250 modules imported after it
    from PySide6.QtCore import QTimer

    from app.bootstrap import (
        Paths,
        install_excepthook,
        make_application,
        make_loop,
        make_session,
        route_loop_errors,
    )
    from app.common.secrets import SecretStore

    app = make_application(sys.argv[:1])
    route_qt_messages_to_the_log()
    temporary = None
    if args.selftest and not args.home:  # a given home is measured as it is (the start-up benchmark's)
        import tempfile

        temporary = tempfile.TemporaryDirectory(prefix="service-console-selftest-")
    home = Path(temporary.name) if temporary else args.home
    paths = Paths.under(home) if home else Paths.for_user()
    from app.core.writable import unwritable

    problem = unwritable(paths)  # before anything is made that writes there
    if problem:
        return cannot_start(args, problem)
    secrets = SecretStore()
    session = make_session(paths, secrets, interactive=not args.selftest)

    from app.ui.main_window import MainWindow

    window = MainWindow(session)
    window.show()
    app.processEvents()  # the first frame: the window with its toolbar, the tabs still being built
    shown = time.perf_counter()
    shown_epoch = time.time()
    # What the first frame does not need comes after it: the tabs, then the event loop (asyncio, qasync).
    hook = install_excepthook(session.bus)
    window.ensure_tabs()
    app.processEvents()  # the tabs painted: the Playground with its saved conversations
    tabs_ready_epoch = time.time()
    gc.freeze()
    gc.enable()
    # The event loop after the tabs' paint: nothing the tabs build needs it (a turn, a task run in it), and no
    # click or key was handled before the loop runs, wherever it was made: Qt queues them until then.
    loop = make_loop(app)
    route_loop_errors(loop, hook)
    outcome = {"code": 0}

    async def start() -> None:
        loop_running_epoch = time.time()  # the loop's first turn: from here a click or a key is handled
        if not args.selftest:
            await session.activate()
            return
        try:  # the selftest always ends with its one line, whatever fails (a store that cannot open, say)
            try:
                await session.activate()
                figures = await selftest(session)
                figures = {
                    "start_to_window_s": round(shown - STARTED, 4),
                    "window_shown_epoch": shown_epoch,
                    "tabs_ready_epoch": tabs_ready_epoch,
                    "loop_running_epoch": loop_running_epoch,
                    **figures,
                    "rss_mb": resident_mb(),
                    "ok": True,
                }
                report(args, figures)
            except Exception as error:  # the selftest reports any failure as its result
                report(args, {"ok": False, "error": str(error)})
                outcome["code"] = 1
        finally:
            app.quit()

    async def shutdown() -> None:
        await session.shutdown()

    with loop:
        QTimer.singleShot(0, lambda: session.tasks.start("startup", start()))
        loop.run_forever()
        loop.run_until_complete(shutdown())
    if temporary:
        temporary.cleanup()
    return outcome["code"]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    from app.common.private import private_files_from_now_on

    private_files_from_now_on()  # the store, conversations, settings, log and exports: the owner's only
    if argv[:1] == ["sandbox"]:
        from app.sandbox.cli import main as sandbox_main

        return sandbox_main(argv[1:])
    if argv[:1] == ["allowlist"]:  # the command line for scripts and CI: Qt-free, it starts in ~0.1 s
        from app.core.cli import main as allowlist_main

        return allowlist_main(argv[1:])
    if argv[:1] == ["keys"]:  # the Admin API's keys, for scripts and CI: Qt-free, as `allowlist`
        from app.core.cli.keys import main as keys_main

        return keys_main(argv[1:])
    if argv[:1] == ["certs"]:  # mutual TLS certificates, as Qt-free as the allowlist commands
        from app.core.cli.certs import main as certs_main

        return certs_main(argv[1:])
    if argv[:1] == ["eval"]:  # a stored prompt tested on a dataset, for CI: Qt-free as the allowlist commands
        from app.core.cli.evaluate import main as eval_main

        return eval_main(argv[1:])
    if argv[:1] == ["usage"]:  # the organization's token usage and cost, as Qt-free as the allowlist commands
        from app.core.cli.usage import main as usage_main

        return usage_main(argv[1:])
    if argv[:1] == ["limits"]:  # a project's rate limits, as Qt-free as the allowlist commands
        from app.core.cli.limits import main as limits_main

        return limits_main(argv[1:])
    if argv[:1] == ["settings"]:  # the window's settings, read and changed without Qt
        from app.core.cli.settings import main as settings_main

        return settings_main(argv[1:])
    args = parse_args(argv)
    if args.selftest:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        return run_window(args)
    except Exception as error:  # the excepthook only logs it: say it where the person who started it looks
        import logging

        logging.getLogger("app").exception("the console could not start")
        if sys.stderr is not None:
            print(f"service-console could not start: {error} (the log has the details)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
