#!/usr/bin/env bash
# End-to-end test in real VS Code (code-server 4.100.3) with the real server, driven from headless
# Chromium. Installs what it needs on first use (code-server cached in ~/.cache/refscore-e2e, or
# $REFSCORE_E2E_CACHE; the run's files under client-vscode/.e2e/), packages the
# extension, starts code-server on a fresh workspace copy, and lets scripts/e2e-drive.mjs assert
# and take the screenshot. Exit status 0 means every check passed.
#   REFSCORE_E2E_MODE configured (default): refscore.interpreter set to REFSCORE_PYTHON, every check;
#                     zero-config: no RefScore settings and no RefScore on PATH (the bundled server
#                     with python3), then RefScore: Set Up CodeBERTScore makes the managed environment
#   REFSCORE_PYTHON   python with refscore installed (default: the repository's .venv); it builds the
#                     bundle and, in configured mode, runs the server
#   REFSCORE_E2E_SCREENSHOT  where the screenshot goes (default: docs/vscode-heatmap.png)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repo="$(cd "$here/.." && pwd)"
e2e="$here/.e2e"
python="${REFSCORE_PYTHON:-$repo/.venv/bin/python}"
mode="${REFSCORE_E2E_MODE:-configured}"
[[ $mode == configured || $mode == zero-config ]] || { echo "REFSCORE_E2E_MODE must be configured or zero-config" >&2; exit 2; }
screenshot="${REFSCORE_E2E_SCREENSHOT:-$repo/docs/vscode-heatmap.png}"
# zero-config: code-server (and so the extension) sees only the system's directories on PATH
clean_path="/usr/local/bin:/usr/bin:/bin"
if [[ $mode == zero-config ]]; then
  # as code-server is started below: without PYTHONPATH and the virtual environment's variables
  if PATH="$clean_path" command -v refscore >/dev/null ||
    env -u VIRTUAL_ENV -u PYTHONPATH -u PYTHONHOME PATH="$clean_path" python3 -c "import refscore" 2>/dev/null; then
    echo "zero-config e2e: RefScore is on the clean PATH ($clean_path); it must not be" >&2
    exit 2
  fi
  PATH="$clean_path" command -v node >/dev/null || { echo "zero-config e2e: node is not on $clean_path" >&2; exit 2; }
fi
started=$SECONDS

"$python" -m refscore --version >/dev/null || { echo "no refscore at $python (set REFSCORE_PYTHON)" >&2; exit 2; }
# one run at a time: runs share bundled/, dist/ and .e2e/run (a second one waits for the first)
mkdir -p "$e2e"
exec 9>"$e2e/e2e.lock"
flock -w 3600 9 || { echo "another e2e run has held $e2e/e2e.lock for an hour" >&2; exit 2; }
bash "$here/scripts/e2e-setup.sh"
codeserver="${REFSCORE_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/refscore-e2e}/code-server-4.100.3/node_modules/.bin/code-server"

echo "== packaging the extension and the harness"
cd "$here"
[[ -d node_modules ]] || npm ci --no-audit --no-fund --ignore-scripts
"$python" scripts/languages.py >/dev/null
"$python" scripts/vocabulary.py >/dev/null
# the platform-specific package, as users get it: the server's libraries under bundled/ (rebuilt from
# this checkout every run), vscode:prepublish bundles the extension
"$python" scripts/bundle.py --target linux-x64 >"$e2e/bundle.log" 2>&1 || { tail -n 30 "$e2e/bundle.log"; exit 1; }
tail -n 1 "$e2e/bundle.log"
vsce="$here/node_modules/.bin/vsce"
REFSCORE_TARGET=linux-x64 "$vsce" package --target linux-x64 --out dist/refscore-linux-x64.vsix >/dev/null
(cd test-harness && "$vsce" package --no-dependencies --allow-missing-repository --skip-license --out "$e2e/harness.vsix" >/dev/null)

run="$e2e/run"
rm -rf "$run"
mkdir -p "$run/ext" "$run/user/User" "$run/runtime" "$run/logs"
chmod 700 "$run/runtime"
cp -r "$here/e2e/workspace" "$run/workspace"
mkdir -p "$run/workspace/.vscode"
if [[ $mode == zero-config ]]; then
  cat > "$run/workspace/.vscode/settings.json" <<JSON
{
  "refscoreHarness.mode": "zeroConfig",
  "refscoreHarness.candidate": "fizzbuzz.py",
  "refscoreHarness.resultFile": "$run/result.json",
  "refscoreHarness.timeoutSeconds": 1200
}
JSON
else
  cat > "$run/workspace/.vscode/settings.json" <<JSON
{
  "refscore.interpreter": "$python",
  "refscore.heatMap.enabled": true,
  "refscoreHarness.candidate": "fizzbuzz.py",
  "refscoreHarness.others": ["Greeting.jsx", "List.tsx"],
  "refscoreHarness.resultFile": "$run/result.json",
  "refscoreHarness.timeoutSeconds": 400
}
JSON
fi
cat > "$run/user/User/settings.json" <<'JSON'
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.colorTheme": "Default Dark Modern",
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "editor.minimap.enabled": false,
  "window.zoomLevel": 0,
  "security.workspace.trust.enabled": false
}
JSON

echo "== installing the extensions into a fresh extensions dir"
for vsix in "$here/dist/refscore-linux-x64.vsix" "$e2e/harness.vsix"; do
  "$codeserver" --config "$run/config.yaml" --extensions-dir "$run/ext" --user-data-dir "$run/user" --install-extension "$vsix" >/dev/null
done

# the server's scoring daemon gets its own runtime dir, and goes away after the test
export HF_HUB_OFFLINE=1 REFSCORE_RUNTIME_DIR="$run/runtime" REFSCORE_LOG_DIR="$run/logs" REFSCORE_DAEMON_IDLE=120
port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
launch=()
[[ $mode == zero-config ]] && launch=(env -u VIRTUAL_ENV -u PYTHONPATH -u PYTHONHOME -u CONDA_PREFIX "PATH=$clean_path")
echo "== starting code-server on 127.0.0.1:$port ($mode)"
setsid "${launch[@]}" "$codeserver" --config "$run/config.yaml" --auth none --bind-addr "127.0.0.1:$port" --disable-telemetry --disable-update-check \
  --disable-workspace-trust --extensions-dir "$run/ext" --user-data-dir "$run/user" "$run/workspace" \
  >"$run/code-server.log" 2>&1 &
server_pid=$!
cleanup() {
  kill -- -"$server_pid" 2>/dev/null || true
  "$python" -m refscore daemon stop >/dev/null 2>&1 || true
}
trap cleanup EXIT
for _ in $(seq 1 120); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 1
done

echo "== driving VS Code from headless Chromium"
status=0
timeout=480
[[ $mode == zero-config ]] && timeout=1500
node "$here/scripts/e2e-drive.mjs" --url "http://127.0.0.1:$port/?folder=$run/workspace" --mode "$mode" \
  --result "$run/result.json" --screenshot "$screenshot" --timeout "$timeout" || status=$?
if [[ $mode == zero-config ]]; then
  env_dir="$run/user/User/globalStorage/refscore.refscore/bert-env"
  [[ -d $env_dir ]] && echo "managed CodeBERTScore environment: $(du -sh "$env_dir" | cut -f1) at $env_dir"
  [[ $status -eq 0 ]] && rm -rf "$env_dir"  # 1.5 GB; kept after a failure, for a look
fi
if [[ $status -ne 0 ]]; then
  echo "--- code-server log (tail)"; tail -n 40 "$run/code-server.log" || true
  for log in "$run"/user/logs/*/exthost*/*RefScore*.log "$run"/user/logs/*/exthost*/output_logging_*/*RefScore*.log; do
    [[ -f "$log" ]] && { echo "--- $log"; tail -n 60 "$log"; }
  done
fi
echo "== e2e finished in $((SECONDS - started)) s with status $status"
exit $status
