#!/usr/bin/env bash
# Set up (if needed) and run every test: ruff, then one pytest run over tests/ (unit, property,
# environment, Binder, real-browser tests) and every notebook under nbval.
#   bash scripts/test.sh                          # everything, as CI runs it
#   bash scripts/test.sh tests/test_engine.py -q  # any pytest arguments: just those
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test

echo "[test] ruff check"
.venv/bin/ruff check .

args=("$@")
if ((${#args[@]} == 0)); then
    args=(tests --durations=15)
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
