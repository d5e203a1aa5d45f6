#!/usr/bin/env bash
# Starts the built service on a fresh embedded store, seeds it through the admin CLI with the data the
# conformance clients expect, and runs ../shared/conformance/run.sh against it (curl, zeep, PHP SoapClient).
# Then runs scripts/conformance-profiles.sh: this repository's clients for PROFILE=isgweb and PROFILE=crm4m, each
# against a server of its own. Exits non-zero when either run had a failure.
# Usage: scripts/conformance.sh [path/to/conformance]   (default: ../shared/conformance beside the checkout)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
conformance="${1:-$here/../shared/conformance}"
[ -x "$conformance/run.sh" ] || [ -f "$conformance/run.sh" ] || { echo "conformance: no run.sh in $conformance" >&2; exit 2; }

export DATA_DIR="$(mktemp -d "${TMPDIR:-/tmp}/asmx-conformance.XXXXXX")"
export SOAP_NAMESPACE="http://membership.example.org/webservices/" RESULT_FORMAT=plain LOG_LEVEL=warn HOST=127.0.0.1
export PORT="${PORT:-$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')}"
cli() { node "$here/dist/cli/index.js" "$@"; }
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$DATA_DIR"
}
trap cleanup EXIT

cli callers add conformance --password s3cret --json >/dev/null
cli members add --id member-42 --username ada --email ada@example.org --first-name Ada --last-name Lovelace --json >/dev/null
session="$(cli sessions create member-42 --domain .example.org --json)"
TOKEN="$(node -e 'console.log(JSON.parse(process.argv[1]).token)' "$session")"
COOKIE="$(node -e 'console.log(JSON.parse(process.argv[1]).cookie)' "$session")"
export TOKEN COOKIE DOMAIN=.example.org EXPECTED=member-42 PASSWORD=s3cret NS="$SOAP_NAMESPACE"

node "$here/dist/cli/index.js" serve &
server_pid=$!
for _ in $(seq 1 50); do
  curl -fs -o /dev/null "http://127.0.0.1:$PORT/Authentication.asmx?wsdl" && break
  sleep 0.2
done
status=0
bash "$conformance/run.sh" "http://127.0.0.1:$PORT" || status=$?
{ kill "$server_pid" && wait "$server_pid"; } 2>/dev/null || true   # done with it: stop it now
server_pid=
bash "$here/scripts/conformance-profiles.sh" "$conformance" || status=$?
exit "$status"
