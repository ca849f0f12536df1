#!/usr/bin/env bash
# The engine's tests: Debian's python3 with Debian's torch, never the python3 first on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_WAIT_POLICY=PASSIVE PYTHONPATH=engine PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 -m pytest -q -p no:cacheprovider engine/tests "$@"
