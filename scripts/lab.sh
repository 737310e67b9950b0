#!/usr/bin/env bash
# Set up (if needed) and start JupyterLab on the notebooks, opened at the start notebook.
#   bash scripts/lab.sh                                  # then open the URL it prints
#   bash scripts/lab.sh --no-browser --ip=127.0.0.1 --port=8899 --IdentityProvider.token=abc
# Every argument is passed through to `jupyter lab`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh lab

extra=()
if [[ $(id -u) -eq 0 ]]; then extra+=(--allow-root); fi
# Root the file browser at the repository (as on Binder, so URLs match: lab/tree/notebooks/...)
# and open the start notebook.
start=notebooks/00_start_here.ipynb
[[ -f "$start" ]] || start=notebooks
# Trust the committed notebooks (ours), so their drawings and players show before a re-run;
# JupyterLab hides an untrusted notebook's SVG and widget outputs.
.venv/bin/jupyter trust notebooks/*.ipynb >/dev/null
echo "[lab] starting JupyterLab on $start (stop it with Ctrl-C)"
exec .venv/bin/jupyter lab --ServerApp.root_dir="$PWD" "${extra[@]}" "$@" "$start"
