#!/usr/bin/env bash
# Set up everything autograd_viz needs on Debian/Ubuntu, then get out of the way.
#   bash scripts/setup.sh        # the lab: graphviz `dot`, .venv with JupyterLab + notebook packages
#   bash scripts/setup.sh test   # also what the tests need: Chromium, npm packages, PyTorch, repo2docker
# Safe and fast to re-run: each step checks first and leaves a stamp (a hash of its inputs),
# so a second run does no network work at all. Needs root (or passwordless sudo) only when a
# system package is missing; it says exactly what to install otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-lab}"
case "$mode" in
    lab | test) ;;
    *) echo "setup.sh: unknown mode '$mode'; use 'lab' or 'test'." >&2; exit 2 ;;
esac

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
die() { printf '\033[1;31m[setup] error:\033[0m %s\n' "$*" >&2; exit 1; }

# torch: the CPU build pinned here is the one this project's CI machines carry as a local wheel;
# notebook 08 compares our gradients with PyTorch's.
TORCH_SPEC="torch==2.13.0"

# ---------------------------------------------------------------- system packages (apt)
_new_enough() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; }
# PYTHON if set; else the first new-enough python3 on PATH (the venv, once made, decides).
if [[ -n "${PYTHON:-}" ]]; then
    python="$PYTHON"
    _new_enough "$python" || die "PYTHON=$python is not Python 3.10 or newer ($("$python" -V 2>&1))."
else
    python=""
    for candidate in python3 python3.13 python3.12 python3.11 python3.10; do
        if command -v "$candidate" >/dev/null && _new_enough "$candidate"; then
            python="$candidate"
            break
        fi
    done
    [[ -n "$python" ]] || die "autograd_viz needs Python 3.10 or newer (3.11+ recommended) and \
found none on PATH. Install one (apt-get install python3 python3-venv) or set PYTHON=/path/to/python3."
fi

apt_packages=()
command -v dot >/dev/null || apt_packages+=(graphviz)
# cairosvg (GIF export) loads the Cairo C library at run time; graphviz usually brings it.
{ ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | grep 'libcairo\.so\.2' >/dev/null ||
    apt_packages+=(libcairo2)
if [[ ! -x .venv/bin/python ]] && ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
    # Debian splits venv/ensurepip out of python3: python3.11-venv for 3.11 and so on.
    apt_packages+=("python$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-venv")
fi
if [[ "$mode" == test ]]; then
    [[ -x /usr/bin/chromium ]] || apt_packages+=(chromium)
    command -v node >/dev/null || apt_packages+=(nodejs)
    command -v npm >/dev/null || apt_packages+=(npm)
    command -v git >/dev/null || apt_packages+=(git)
fi

_apt_lists_fresh() {
    # Package lists exist and were refreshed within the last day.
    [[ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mtime -1 2>/dev/null | head -1)" ]]
}

if ((${#apt_packages[@]})); then
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then
        if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
            sudo=(sudo -n)
        else
            die "missing system packages: ${apt_packages[*]}.
    Install them as root, then re-run this command:
        sudo apt-get update && sudo apt-get install -y ${apt_packages[*]}"
        fi
    fi
    command -v apt-get >/dev/null || die "missing system packages: ${apt_packages[*]}, and this is not a Debian/Ubuntu system (no apt-get). Install them with your package manager and re-run."
    say "installing system packages: ${apt_packages[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt_install=("${sudo[@]}" apt-get install -y -q -o Dpkg::Use-Pty=0 "${apt_packages[@]}")
    # apt-get update only when the lists are missing or stale, or the install fails without it.
    if ! _apt_lists_fresh; then
        "${sudo[@]}" apt-get update -q
        "${apt_install[@]}" >/dev/null
    elif ! "${apt_install[@]}" >/dev/null 2>&1; then
        "${sudo[@]}" apt-get update -q
        "${apt_install[@]}" >/dev/null
    fi
fi

# ---------------------------------------------------------------- Python packages (.venv)
_hash() { cat "$@" 2>/dev/null | sha256sum | cut -d' ' -f1; }

# The test tools do not need .venv: install them beside it, in the background (on 2 cores this
# takes their minute off a fresh setup), and wait for them at the end.
_browser_npm() {
    local key stamp=tests/browser/node_modules/.setup-stamp
    key="$(_hash tests/browser/package.json tests/browser/package-lock.json) node=$(node --version)"
    if [[ "$(cat "$stamp" 2>/dev/null)" != "$key" ]]; then
        say "installing npm packages for the browser tests (npm ci, from the committed lock file)"
        # Browsers come from the system (/usr/bin/chromium): never let a package download one.
        PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 \
            npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
        echo "$key" >"$stamp"
    fi
}
background=()
if [[ "$mode" == test ]]; then
    tools_log="$(mktemp -d)"
    trap 'rm -rf "$tools_log"' EXIT
    if [[ -f tests/browser/package-lock.json ]]; then
        _browser_npm >"$tools_log/browser tests' npm packages.log" 2>&1 &
        background+=("$!:browser tests' npm packages")
    fi
    # pinned, into lite/.venv and lite/node_modules; stamped, so fast
    bash scripts/lite.sh install >"$tools_log/JupyterLite build tools.log" 2>&1 &
    background+=("$!:JupyterLite build tools")
fi

if [[ ! -x .venv/bin/python ]]; then
    say "creating .venv with $("$python" -V 2>&1)"
    "$python" -m venv .venv || die "could not create .venv. On Debian/Ubuntu: apt-get install python3-venv"
fi

extras="lab" torch=""
if [[ "$mode" == test ]]; then extras="lab,test" torch="$TORCH_SPEC"; fi
py_key="$(_hash pyproject.toml) extras=$extras torch=$torch"
py_stamp=".venv/.setup-python-$mode"
# A test setup is a superset of the lab setup: it satisfies `setup.sh lab` too.
if [[ "$mode" == lab && -f .venv/.setup-python-test ]] &&
    [[ "$(cat .venv/.setup-python-test)" == "$(_hash pyproject.toml) extras=lab,test torch=$TORCH_SPEC" ]]; then
    py_stamp=.venv/.setup-python-test
    py_key="$(cat "$py_stamp")"
fi
if [[ "$(cat "$py_stamp" 2>/dev/null)" != "$py_key" ]]; then
    say "installing Python packages into .venv (.[$extras])"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[$extras]"
    if [[ "$mode" == test ]]; then
        say "installing $TORCH_SPEC (CPU) for notebook 08's PyTorch comparison"
        .venv/bin/python -m pip install -q "$TORCH_SPEC"
    fi
    echo "$py_key" >"$py_stamp"
fi
# JupyterLab settings defaults the kit ships (PageDown/PageUp for a presenter's remote in the live
# deck). A wheel install puts them in place; an editable install skips data files: copy them.
mkdir -p .venv/share/jupyter/lab/settings/overrides.d
cp jupyter-config/lab/overrides.d/autograd-viz.json .venv/share/jupyter/lab/settings/overrides.d/

# ---------------------------------------------------------------- the test tools, started above
for job in "${background[@]}"; do  # the test tools installed beside .venv (see above)
    name="${job#*:}"
    if ! wait "${job%%:*}"; then
        cat "$tools_log/$name.log" >&2
        die "installing the $name failed (its log is above)"
    fi
    cat "$tools_log/$name.log"
done

say "ready ($mode)."
