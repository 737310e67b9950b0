#!/usr/bin/env bash
# Set up (if needed) and run every test: ruff, then one pytest run over tests/ (unit, property,
# environment, Binder, real-browser tests) and every notebook under nbval.
#   bash scripts/test.sh                          # everything, as CI runs it
#   bash scripts/test.sh quick                    # a contributor's quick run (under a minute)
#   bash scripts/test.sh tests/test_engine.py -q  # any pytest arguments: just those
# The whole run and the quick run use one pytest worker per core (pytest-xdist), a file to a
# worker (tests/conftest.py groups them), and end with the slowest tests and each file's time.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test

echo "[test] ruff check"
.venv/bin/ruff check .

args=("$@")
workers=(-n auto)
if [[ "${1:-}" == quick ]]; then
    # what drives a browser, builds the JupyterLite site, runs a notebook or a whole tool, or
    # takes over ~2 s is left out (markers: tests/conftest.py and pyproject.toml)
    args=(tests "${workers[@]}" --durations=10
          -m "not browser and not lite and not notebooks and not slow" "${@:2}")
elif ((${#args[@]} == 0)); then
    args=(tests "${workers[@]}" --durations=30)
    shopt -s nullglob
    notebooks=(notebooks/*.ipynb)
    if ((${#notebooks[@]})); then
        # Arguments as documented in tests/test_notebooks.py (the notebooks' owner).
        args+=(notebooks --nbval --nbval-current-env)
        if [[ -f notebooks/nbval_sanitize.cfg ]]; then
            args+=(--nbval-sanitize-with notebooks/nbval_sanitize.cfg)
        fi
    fi
fi

echo "[test] pytest ${args[*]}"
rc=0
.venv/bin/python -m pytest "${args[@]}" || rc=$?
if ((rc == 5)); then
    echo "[test] error: pytest collected no tests from: ${args[*]} — nothing was checked." >&2
    exit 1
fi
exit "$rc"
