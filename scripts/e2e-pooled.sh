#!/usr/bin/env bash
# The e2e suites behind PgBouncer in transaction mode (README, "At scale"): a pooler on a loopback
# port in front of 127.0.0.1:5432, a run database made on the server, the apps given the pooler as
# DATABASE_URL and the server as DATABASE_DIRECT_URL (test/support/test-app.ts). Arguments go to jest
# (e.g. spec paths to run a slice); without a spec path, the whole test/e2e directory.
#
#   scripts/e2e-pooled.sh [jest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=$(mktemp -d /tmp/e2e-pgbouncer.XXXXXX)
DB="e2e_pooled_test_$$"
SERVER=postgres://postgres@127.0.0.1:5432
cleanup() {
  scripts/pgbouncer.sh stop "$DIR"
  psql -q "$SERVER/postgres" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null || true
}
trap cleanup EXIT
scripts/pgbouncer.sh start "$DIR"
# shellcheck disable=SC1091
source "$DIR/env"
psql -q "$SERVER/postgres" -c "CREATE DATABASE $DB" >/dev/null
export TEST_DATABASE_URL="$PGBOUNCER_URL/$DB" TEST_DATABASE_DIRECT_URL="$SERVER/$DB" TEST_DATABASE_POOL_MODE=transaction
# Without a spec path among the arguments (CI passes only --json options), the whole e2e directory.
if ! printf '%s\n' "$@" | grep -q '^test/'; then set -- "$@" test/e2e; fi
npx jest --config jest.config.js "$@"
