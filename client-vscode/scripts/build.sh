#!/usr/bin/env bash
# Builds the extension offline (npm registry only for `npm ci`): language list from the server's
# registry, install, type check, lint, unit tests, bundle, package. Result: client-vscode/dist/refscore.vsix.
#   REFSCORE_PYTHON   python with refscore installed (default: the repository's .venv, else python3)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
step() { printf '\n== %s\n' "$*"; }
python="${REFSCORE_PYTHON:-../.venv/bin/python}"
[[ -x "$python" ]] || python="$(command -v python3 || echo python3)"
step "language list from the server's registry"
"$python" scripts/languages.py
step "npm ci"
# esbuild's postinstall only checks its binary; recent npm releases skip dependency scripts anyway
npm ci --no-audit --no-fund --ignore-scripts
step "type check"
npx tsc --noEmit -p .
step "lint"
npx eslint src test
step "unit tests"
npm test --silent
step "bundle"
rm -rf dist
npm run --silent bundle
step "package"
npx vsce package --no-dependencies --allow-missing-repository --skip-license --out dist/refscore.vsix
ls -l dist/refscore.vsix
