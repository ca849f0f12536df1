#!/usr/bin/env bash
# npm run runner: install what is missing, build the server, and run a job runner in its own process
# (README, "Running at scale"). Set RUNNER_BUILD=0 to skip the install and build on a host that has them.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${RUNNER_BUILD:-1}" != 0 ]; then
  bash scripts/bootstrap.sh run
  npm run build --workspace=packages/contracts --workspace=apps/server
fi
exec node apps/server/dist/runner-main.js
