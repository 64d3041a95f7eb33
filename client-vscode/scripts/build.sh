#!/usr/bin/env bash
# Builds the platform-specific extension: language list from the server's registry, install, type
# check, lint, unit tests, the server's Python libraries for the target (scripts/bundle.py), bundle,
# package. Result: client-vscode/dist/refscore-TARGET.vsix. Offline but for the npm registry
# (`npm ci`) and the package index (the wheels for bundled/).
#   --target linux-x64|linux-arm64|darwin-arm64|darwin-x64|win32-x64   (default: this machine's)
#   REFSCORE_PYTHON   python with refscore installed (default: the repository's .venv, else python3)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
step() { printf '\n== %s\n' "$*"; }
target="$(node -p 'process.platform + "-" + process.arch')"
while (($#)); do
  case "$1" in
    --target) target="${2:?--target needs a value}"; shift 2 ;;
    --target=*) target="${1#--target=}"; shift ;;
    *) echo "usage: build.sh [--target linux-x64|darwin-arm64|win32-x64|...]" >&2; exit 2 ;;
  esac
done
python="${REFSCORE_PYTHON:-../.venv/bin/python}"
[[ -x "$python" ]] || python="$(command -v python3 || echo python3)"
step "language list and vocabulary from the server"
"$python" scripts/languages.py
"$python" scripts/vocabulary.py
step "npm ci"
# esbuild's postinstall only checks its binary; recent npm releases skip dependency scripts anyway
npm ci --no-audit --no-fund --ignore-scripts
step "type check"
npx tsc --noEmit -p .
step "lint"
npx eslint src test
step "unit tests"
npm test --silent
step "the server's Python libraries for $target"
"$python" scripts/bundle.py --target "$target"
step "package (vscode:prepublish bundles the extension)"
rm -rf dist
REFSCORE_TARGET="$target" REFSCORE_PYTHON="$python" npx vsce package --target "$target" --out "dist/refscore-$target.vsix"
ls -l "dist/refscore-$target.vsix"
