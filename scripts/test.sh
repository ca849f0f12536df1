#!/usr/bin/env bash
# npm test: install what is missing, then typecheck, lint, unit, integration (SQLite and PostgreSQL),
# engine and browser tests. Prints how long each stage took.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_WAIT_POLICY=PASSIVE
start=$(date +%s)
stage() {
  local name=$1; shift
  local t0; t0=$(date +%s)
  echo "== $name"
  "$@"
  echo "== $name: ok in $(( $(date +%s) - t0 )) s"
}
stage bootstrap bash scripts/bootstrap.sh test
stage build npm run build
stage typecheck npm run typecheck
stage lint npm run lint
stage unit npm run test --if-present --workspace=packages/contracts --workspace=packages/runtime --workspace=packages/annotator --workspace=apps/web
stage "server (SQLite)" npm run test --workspace=apps/server
stage "server (PostgreSQL)" bash scripts/with-postgres.sh npm run test --workspace=apps/server
stage engine bash scripts/test-engine.sh
stage browser npm run test --workspace=e2e
echo "npm test: all stages passed in $(( $(date +%s) - start )) s"
