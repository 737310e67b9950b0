#!/usr/bin/env bash
# Set up (if needed) and start JupyterLab on the notebooks.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh lab
extra=()
[[ $(id -u) -eq 0 ]] && extra+=(--allow-root)
exec .venv/bin/jupyter lab "${extra[@]}" "$@" notebooks/00_start_here.ipynb
