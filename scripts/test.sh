#!/usr/bin/env bash
# Set up (if needed) and run every test: lint, unit and property tests, notebooks (nbval).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
.venv/bin/ruff check autograd_viz tests benchmarks
.venv/bin/python -m pytest "$@"
