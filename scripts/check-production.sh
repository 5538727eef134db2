#!/usr/bin/env bash
# `npm run check:production` (called by .ci/run after the tests): the production install, exactly as it ships,
# in a scratch copy of the committed tree: `npm ci && npm run build && npm prune --omit=dev`, then
# `npm run start:prod` with APP_ENV=production on PostgreSQL (a scratch database it creates), and GET /healthz
# must answer 200. The scratch directory, the database and the server are removed at the end, even on failure.
# DATABASE_URL: the PostgreSQL server to create the scratch database on (default postgres://postgres@127.0.0.1:5432/test).
set -euo pipefail
cd "$(dirname "$0")/.."

base_url="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
name="ep_check_production_$$"
db_url="${base_url%/*}/${name}"
work="$(mktemp -d "${TMPDIR:-/tmp}/ep-production-XXXXXX")"
server_pid=""

# The pg client of this checkout, to create and drop the scratch database (resolved once, before any npm run).
pg_module="$(node -e 'console.log(require.resolve("pg"))')"
psql_on() { node -e '
  const pg = require(process.argv[1]);
  const client = new pg.Client({ connectionString: process.argv[2] });
  client.connect().then(() => client.query(process.argv[3])).then(() => client.end(), (e) => { console.error(e.message); process.exit(1); });
 ' "$pg_module" "$base_url" "$1"; }

cleanup() {
  local status=$?
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if ! psql_on "drop database if exists ${name} with (force)"; then
    echo "check:production: could not drop the scratch database ${name}" >&2
    [ "$status" -eq 0 ] && status=1
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

echo "check:production: the committed tree (git archive HEAD) in $work"
git archive HEAD | tar -x -C "$work"
# A node_modules in the copy (a committed symlink to another checkout's) would be emptied by npm ci there.
if [ -e "$work/node_modules" ] || [ -L "$work/node_modules" ]; then
  echo "check:production: node_modules is committed (git rm --cached node_modules); refusing to run npm ci" >&2
  exit 1
fi
psql_on "create database ${name}"
(
  cd "$work"
  npm ci --prefer-offline --no-audit --no-fund --loglevel=error
  npm run --silent build
  npm prune --omit=dev --no-audit --no-fund --loglevel=error
  if [ -e node_modules/tsx ] || [ -e node_modules/typescript ]; then
    echo "check:production: development dependencies are still installed after npm prune --omit=dev" >&2
    exit 1
  fi
)

port="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
log="$work/server.log"
(
  cd "$work"
  exec env APP_ENV=production DATABASE_URL="$db_url" HOST=127.0.0.1 PORT="$port" \
    PUBLIC_BASE_URL="http://127.0.0.1:${port}" ADMIN_TOKEN="check-production-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" \
    DATA_DIR="$work/data" npm run --silent start:prod
) >"$log" 2>&1 &
server_pid=$!

for _ in $(seq 1 240); do
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "check:production: the server exited before answering:" >&2
    cat "$log" >&2
    exit 1
  fi
  status="$(node -e 'fetch(process.argv[1]).then((r) => console.log(r.status), () => console.log(0))' "http://127.0.0.1:${port}/healthz")"
  if [ "$status" = "200" ]; then
    echo "check:production: GET /healthz 200 from npm run start:prod (APP_ENV=production, PostgreSQL, no dev dependency)"
    exit 0
  fi
  sleep 0.5
done
echo "check:production: no 200 from /healthz in 120 s:" >&2
cat "$log" >&2
exit 1
