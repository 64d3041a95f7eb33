#!/usr/bin/env bash
# Installs code-server 4.100.3 (VS Code 1.100.3, runs on Node 20) into the machine's cache,
# offline but for npm and Debian: $REFSCORE_E2E_CACHE, default ~/.cache/refscore-e2e (outside the
# checkout, so fresh clones, worktrees and CI runs share one install). Idempotent: a finished
# install is reused; two installs at once wait for each other.
set -euo pipefail
cache="${REFSCORE_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/refscore-e2e}"
version="4.100.3"
prefix="$cache/code-server-$version"
bin="$prefix/node_modules/.bin/code-server"

if [[ -x "$bin" && -f "$prefix/.installed" ]]; then
  echo "code-server $version: already installed at $prefix"
  exit 0
fi
mkdir -p "$cache"
# another install may be under way (another clone, worktree or CI run): wait for it, then look again
exec 8>"$cache/install.lock"
flock -w 1800 8 || { echo "another code-server install has held $cache/install.lock for 30 minutes" >&2; exit 2; }

if [[ -x "$bin" && -f "$prefix/.installed" ]]; then
  echo "code-server $version: already installed at $prefix"
  exit 0
fi

need=()
command -v rg >/dev/null || need+=(ripgrep)
[[ -e /usr/include/krb5.h || -e /usr/include/gssapi/gssapi.h ]] || need+=(libkrb5-dev)
[[ -x /usr/bin/chromium ]] || need+=(chromium)
if ((${#need[@]})); then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "installing Debian packages: ${need[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "missing: ${need[*]}; install them (sudo apt-get install -y ${need[*]}) and rerun" >&2
    exit 2
  fi
fi

# @vscode/ripgrep's postinstall downloads a release unless its cache holds one: give it Debian's rg.
tmp="$cache/tmp"
cache="$tmp/vscode-ripgrep-cache-1.15.11"
mkdir -p "$cache"
tarball="$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
if [[ ! -s "$tarball" ]]; then
  stage="$(mktemp -d)"
  cp "$(command -v rg)" "$stage/rg"
  tar -czf "$tarball" -C "$stage" rg
  rm -rf "$stage"
fi

rm -rf "$prefix"  # a half-finished install is not reused
mkdir -p "$prefix"
[[ -f "$prefix/package.json" ]] || echo '{"name":"refscore-e2e-code-server","private":true}' > "$prefix/package.json"
echo "installing code-server $version (about 280 MB from npm; minutes)"
# recent npm 11 releases skip dependency install scripts unless allowed; code-server's postinstall (and the
# npm installs it runs inside lib/vscode) build native modules, so allow them through the environment.
# As root its postinstall also wants npm_config_unsafe_perm=true (npm 11 dropped the flag itself).
(cd "$prefix" && TMPDIR="$tmp" npm_config_yes=true npm_config_dangerously_allow_all_scripts=true \
  npm_config_unsafe_perm=true npm install --no-audit --no-fund "code-server@$version")
# the postinstall links node_modules.asar: without it the scripts did not run
if [[ ! -e "$prefix/node_modules/code-server/lib/vscode/node_modules.asar" ]]; then
  echo "code-server's postinstall did not run (npm skipped install scripts?); see the log above" >&2
  exit 1
fi
"$bin" --version
touch "$prefix/.installed"
