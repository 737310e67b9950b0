#!/usr/bin/env bash
# Build the course as a static JupyterLite site (Python in the browser, no server) into _site/.
#   bash scripts/lite.sh                    # build _site/ (the first run installs the build tools)
#   bash scripts/lite.sh serve [PORT]       # build, then serve it on http://127.0.0.1:PORT (8000)
#   bash scripts/lite.sh --output DIR       # build into DIR instead
#   bash scripts/lite.sh --playground-only  # only _site/playground/ and the Pyodide it loads (seconds)
#   bash scripts/lite.sh install            # only install the build tools (scripts/setup.sh test)
# Everything comes from pinned packages: the build tools from PyPI (lite/requirements.txt, into
# lite/.venv), Pyodide and Graphviz-WASM from npm (lite/package-lock.json), the kernel's
# pure-Python wheels from PyPI at the versions Pyodide's lock names (lite/build.py says which).
# Later runs reuse what is installed and take a few seconds. What a build makes once (the
# wheels, the kernel's bytecode, its snapshot) is kept per user, in ~/.cache/autograd_viz/lite
# (AUTOGRAD_VIZ_LITE_CACHE moves it), so a new clone reuses it.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m[lite]\033[0m %s\n' "$*"; }
die() { printf '\033[1;31m[lite] error:\033[0m %s\n' "$*" >&2; exit 1; }

serve=0 port=8000 install_only=0
if [[ "${1:-}" == install ]]; then
    install_only=1
    shift
elif [[ "${1:-}" == serve ]]; then
    serve=1
    shift
    if [[ -n "${1:-}" && "$1" != -* ]]; then port="$1"; shift; fi
fi
output=_site
build_args=("$@")
for ((i = 0; i < ${#build_args[@]}; i++)); do
    if [[ "${build_args[i]}" == --output ]]; then output="${build_args[i + 1]:-}"; fi
done

command -v npm >/dev/null || die "npm is missing: apt-get install npm (or: bash scripts/setup.sh test)"
python=""
for candidate in python3 python3.13 python3.12 python3.11 python3.10; do
    if command -v "$candidate" >/dev/null &&
        "$candidate" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
        python="$candidate"
        break
    fi
done
[[ -n "$python" || -x lite/.venv/bin/python ]] ||
    die "the build tools need Python 3.10+ with venv: apt-get install python3 python3-venv"

_hash() { cat "$@" 2>/dev/null | sha256sum | cut -d' ' -f1; }

# ---------------------------------------------------------------- build tools (PyPI, pinned)
if [[ ! -x lite/.venv/bin/python ]]; then
    say "creating lite/.venv for the build tools"
    "$python" -m venv lite/.venv
fi
py_key="$(_hash lite/requirements.txt)"
if [[ "$(cat lite/.venv/.lite-stamp 2>/dev/null)" != "$py_key" ]]; then
    say "installing the pinned build tools (jupyterlite-core, jupyterlite-pyodide-kernel 0.8.6)"
    lite/.venv/bin/python -m pip install -q --disable-pip-version-check -r lite/requirements.txt
    echo "$py_key" >lite/.venv/.lite-stamp
fi

# ---------------------------------------------------------------- Pyodide, Graphviz-WASM (npm, pinned)
npm_key="$(_hash lite/package.json lite/package-lock.json) node=$(node --version)"
if [[ "$(cat lite/node_modules/.lite-stamp 2>/dev/null)" != "$npm_key" ]]; then
    say "installing Pyodide and Graphviz-WASM (npm ci, from lite/package-lock.json)"
    npm ci --prefix lite --ignore-scripts --no-audit --no-fund --loglevel=error
    echo "$npm_key" >lite/node_modules/.lite-stamp
fi

((install_only)) && exit 0

# ---------------------------------------------------------------- the site
say "building $output/"
lite/.venv/bin/python lite/build.py "${build_args[@]}" >lite/.build.log 2>&1 ||
    { cat lite/.build.log >&2; die "the build failed (log above, also in lite/.build.log)"; }
say "$output/: $(du -sh "$output" | cut -f1), $(find "$output" -type f | wc -l) files"

if ((serve)); then
    say "serving $output/ on http://127.0.0.1:$port/ (stop it with Ctrl-C)"
    exec lite/.venv/bin/python -m http.server --bind 127.0.0.1 --directory "$output" "$port"
fi
