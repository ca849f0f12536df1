#!/usr/bin/env bash
# npm start: install what is missing, build, and serve the app and API on http://localhost:${PORT:-8080}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh run
npm run build
exec node apps/server/dist/main.js
