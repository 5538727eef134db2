#!/usr/bin/env bash
# `npm run check:production` (called by .ci/run after the tests): the production install, exactly as it ships,
# in a scratch copy of the committed tree: `npm ci && npm run build && npm prune --omit=dev`, then start:prod's
# command (`node dist/server/main.js`, run as docs/operations.md tells the orchestrator, with no npm in between)
# with APP_ENV=production on PostgreSQL (a scratch database it creates). GET /healthz must answer 200, one
# request with the admin token must create an account (201), and SIGTERM must stop the server cleanly (exit 0,
# its `stopped` log line). The scratch directories, the database and the server are removed at the end, even on
# failure.
# DATABASE_URL: the PostgreSQL server to create the scratch database on (default postgres://postgres@127.0.0.1:5432/test).
# CHECK_PRODUCTION_NODE: a Node version (24, or 24.22.3) to install, build and run it all on instead of the
#   machine's node: Node itself from the npm registry (the node-linux-<arch> package), unpacked in a scratch
#   directory (its own npm cache there too) and put first on PATH, so npm, the build and the server run on it.
set -euo pipefail
cd "$(dirname "$0")/.."

base_url="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
name="ep_check_production_$$"
db_url="${base_url%/*}/${name}"
work="$(mktemp -d "${TMPDIR:-/tmp}/ep-production-XXXXXX")"
node_dir=""
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
  [ -n "$node_dir" ] && rm -rf "$node_dir"
  exit "$status"
}
trap cleanup EXIT

if [ -n "${CHECK_PRODUCTION_NODE:-}" ]; then
  node_dir="$(mktemp -d "${TMPDIR:-/tmp}/ep-node-XXXXXX")"
  package="node-linux-$(node -p process.arch)@${CHECK_PRODUCTION_NODE}"
  echo "check:production: Node ${CHECK_PRODUCTION_NODE} from the registry (${package}) in $node_dir"
  tarball="$(cd "$node_dir" && npm pack "$package" --cache "$node_dir/npm-cache" --loglevel=error)"
  tar -xzf "$node_dir/$tarball" -C "$node_dir" package/bin/node
  rm -rf "$node_dir/$tarball" "$node_dir/npm-cache"
  export PATH="$node_dir/package/bin:$PATH"
  echo "check:production: Node unpacked in ${SECONDS} s"
  case "$(node --version)" in
    "v${CHECK_PRODUCTION_NODE}" | "v${CHECK_PRODUCTION_NODE}".*) ;;
    *)
      echo "check:production: asked for Node ${CHECK_PRODUCTION_NODE}, got $(node --version)" >&2
      exit 1
      ;;
  esac
fi
echo "check:production: node $(node --version), npm $(npm --version)"

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
admin_token="check-production-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
channel_key="$(node -e 'console.log(require("crypto").randomBytes(32).toString("base64"))')"
log="$work/server.log"
# start:prod's command itself: npm would not pass the SIGTERM of the clean stop on to the server.
read -ra start_prod <<<"$(cd "$work" && node -p 'require("./package.json").scripts["start:prod"]')"
(
  cd "$work"
  exec env APP_ENV=production DATABASE_URL="$db_url" HOST=127.0.0.1 PORT="$port" \
    PUBLIC_BASE_URL="http://127.0.0.1:${port}" ADMIN_TOKEN="$admin_token" CHANNEL_CREDENTIALS_KEY="$channel_key" \
    DATA_DIR="$work/data" "${start_prod[@]}"
) >"$log" 2>&1 &
server_pid=$!

healthy=""
for _ in $(seq 1 240); do
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "check:production: the server exited before answering:" >&2
    cat "$log" >&2
    exit 1
  fi
  status="$(node -e 'fetch(process.argv[1]).then((r) => console.log(r.status), () => console.log(0))' "http://127.0.0.1:${port}/healthz")"
  if [ "$status" = "200" ]; then
    healthy=1
    break
  fi
  sleep 0.5
done
if [ -z "$healthy" ]; then
  echo "check:production: no 200 from /healthz in 120 s:" >&2
  cat "$log" >&2
  exit 1
fi
echo "check:production: GET /healthz 200 from ${start_prod[*]} (APP_ENV=production, PostgreSQL, no dev dependency)"

# One authenticated request: the admin token, the validator, a write through the migrated schema.
if ! node -e '
  const [url, token] = process.argv.slice(1);
  const body = JSON.stringify({ name: "Check production", alias: "check-production" });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  fetch(url, { method: "POST", headers, body }).then(async (r) => {
    const text = await r.text();
    if (r.status !== 201 || !JSON.parse(text).id) throw new Error(`${r.status} ${text}`);
  }).catch((e) => { console.error(e.message); process.exit(1); });
 ' "http://127.0.0.1:${port}/admin/v1/accounts" "$admin_token"; then
  echo "check:production: POST /admin/v1/accounts with the admin token did not answer 201:" >&2
  cat "$log" >&2
  exit 1
fi
echo "check:production: POST /admin/v1/accounts 201 with the admin token"

# A clean stop: SIGTERM drains and exits 0 with its `stopped` line (the server gives up by itself at 15 s).
kill -TERM "$server_pid"
stopped=0
wait "$server_pid" || stopped=$?
server_pid=""
if [ "$stopped" -ne 0 ] || ! grep -q '"msg":"stopped"' "$log"; then
  echo "check:production: SIGTERM did not stop the server cleanly (exit ${stopped}):" >&2
  cat "$log" >&2
  exit 1
fi
echo "check:production: SIGTERM stopped the server cleanly (exit 0) on node $(node --version); ${SECONDS} s in all"
