#!/usr/bin/env bash
# Runs a command against a throw-away PostgreSQL cluster (Debian's postgresql), with DATABASE_URL set.
# Usage: scripts/with-postgres.sh <command...>
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bin" ] || { echo "with-postgres: PostgreSQL is not installed (run scripts/bootstrap.sh test)" >&2; exit 1; }
port="${PGTEST_PORT:-54329}"
dir=$(mktemp -d /tmp/loupe-pg.XXXXXX)
run_as=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres:postgres "$dir"
  run_as=(runuser -u postgres --)
fi
cleanup() {
  "${run_as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
"${run_as[@]}" "$bin/initdb" -D "$dir/data" -U loupe --auth=trust -E UTF8 >/dev/null
"${run_as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off" start >/dev/null
"${run_as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U loupe loupe_test
export DATABASE_URL="postgres://loupe@127.0.0.1:$port/loupe_test"
"$@"
