#!/usr/bin/env bash
# Set up everything autograd_viz needs on Debian/Ubuntu: graphviz's `dot`, a venv
# in .venv with the package and its extras. Safe and fast to re-run.
#   bash scripts/setup.sh            # the lab: JupyterLab, notebooks' packages
#   bash scripts/setup.sh test       # also what the tests need
set -euo pipefail
cd "$(dirname "$0")/.."
want="${1:-lab}"

apt_packages=()
command -v dot >/dev/null || apt_packages+=(graphviz)
if [[ "$want" == test ]]; then
    [[ -x /usr/bin/chromium ]] || apt_packages+=(chromium)
    command -v npm >/dev/null || apt_packages+=(npm)
fi
if ((${#apt_packages[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "Missing system packages: ${apt_packages[*]}. Run: sudo apt-get install -y ${apt_packages[*]}" >&2
        exit 1
    fi
    echo "Installing system packages: ${apt_packages[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_packages[@]}" >/dev/null
fi

python=$(command -v python3)
if [[ ! -x .venv/bin/python ]]; then
    "$python" -m venv .venv
fi
stamp=".venv/.installed-$want"
if [[ ! -f "$stamp" || pyproject.toml -nt "$stamp" ]]; then
    .venv/bin/python -m pip install -q --upgrade pip
    extras="lab"
    [[ "$want" == test ]] && extras="lab,test"
    .venv/bin/python -m pip install -q -e ".[$extras]"
    touch "$stamp"
fi
