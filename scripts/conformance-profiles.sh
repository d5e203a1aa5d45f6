#!/usr/bin/env bash
# The vendor profiles' own conformance clients (conformance/ in this repository), each against a server of its
# own: for each of PROFILE=isgweb and PROFILE=crm4m a fresh store and port, seeded through the admin CLI, the
# built service started on it, then the client:
#   isgweb  conformance/isgweb/client.php  PHP SoapClient (SOAP 1.1 and 1.2), as the WordPress ISGweb plugin calls it
#   crm4m   conformance/crm4m/client.py    Python zeep (SOAP 1.1 and 1.2), as CRM4M's .NET and Spring clients read it
# Prints "PASS <client>/<check>" or "FAIL <client>/<check>: <detail>" per check, then "N passed, M failed".
# Exits 0 only when nothing failed; a missing toolchain (php with its soap and xml extensions, /usr/bin/python3
# with zeep) or a build that is not there is a failure, never a skip.
#
# Usage: scripts/conformance-profiles.sh [path/to/shared/conformance]
#   The path (default ../shared/conformance beside the checkout) is only where install.sh is, for the hint when
#   a toolchain is missing. Needs a built dist/ (npm run build), node, curl and coreutils' timeout.
# Env: PROFILES="isgweb crm4m" (subset/order)   CLIENT_TIMEOUT=120 (seconds per client)   KEEP_WORK=1 (keep the
#   stores and server logs in the work directory). The service and the clients run with a clean environment
#   (env -i), so settings exported by the caller (scripts/conformance.sh's SOAP_NAMESPACE, RESULT_FORMAT, ...)
#   do not override the profiles'.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
conformance="${1:-$here/../shared/conformance}"
profiles="${PROFILES:-isgweb crm4m}"
client_timeout="${CLIENT_TIMEOUT:-120}"
PY=/usr/bin/python3

start=$(date +%s)
passn=0; failn=0
emit() {  # one result line -> stdout and counters; INFO lines go to stderr
  case "$1" in
    PASS\ *) passn=$((passn + 1)); echo "$1" ;;
    FAIL\ *) failn=$((failn + 1)); echo "$1" ;;
    INFO\ *) echo "$1" >&2 ;;
  esac
}
fail() { emit "FAIL $1: $(printf '%s' "$2" | tr '\r\n\t' '   ' | cut -c1-400)"; }

work="$(mktemp -d "${TMPDIR:-/tmp}/asmx-profiles.XXXXXX")"
server_pid=
stop_server() {
  [ -n "$server_pid" ] || return 0
  kill "$server_pid" 2>/dev/null
  for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$server_pid" 2>/dev/null
  wait "$server_pid" 2>/dev/null
  server_pid=
}
cleanup() {
  stop_server
  if [ "${KEEP_WORK:-0}" = 1 ]; then echo "INFO profiles/work: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

install_hint="bash $conformance/install.sh"
[ -f "$conformance/install.sh" ] || install_hint="apt-get install php-cli php-soap php-xml python3-zeep"

# The environment of the service, its CLI and the clients: nothing from the caller's but PATH, HOME and TMPDIR.
clean_env=(env -i PATH="$PATH" HOME="${HOME:-/tmp}" TMPDIR="${TMPDIR:-/tmp}" LANG=C.UTF-8)

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# run_client NAME LOG cmd...   runs one client under a timeout and forwards its PASS/FAIL lines; a crash, a
# timeout or no result line at all is a FAIL line of its own.
run_client() {
  local c="$1" log="$2" rc nres=0 line; shift 2
  timeout -k 5 "$client_timeout" "$@" >"$log.out" 2>"$log.err" </dev/null; rc=$?
  while IFS= read -r line; do
    case "$line" in PASS\ *|FAIL\ *) emit "$line"; nres=$((nres + 1)) ;; esac
  done <"$log.out"
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    fail "$c/timeout" "did not finish within ${client_timeout}s; last reported: '$(grep -E '^(PASS|FAIL) ' "$log.out" | tail -1 | cut -c1-80)' (stderr: $(tail -c 200 "$log.err"))"
  elif [ $rc -ne 0 ]; then
    fail "$c/exit" "exit status $rc: $(tail -c 300 "$log.err")"
  elif [ $nres -eq 0 ]; then
    fail "$c/no-output" "produced no PASS/FAIL lines (stderr: $(tail -c 300 "$log.err"))"
  fi
}

# Toolchains, before anything is started.
toolchain_ok() {  # PROFILE -> 0 when its client can run, else a FAIL line
  case "$1" in
    isgweb)
      command -v php >/dev/null 2>&1 || { fail isgweb-php/toolchain "php not installed ($install_hint)"; return 1; }
      php -r 'exit(extension_loaded("soap") && extension_loaded("simplexml") && extension_loaded("dom") && extension_loaded("xml") ? 0 : 1);' 2>/dev/null ||
        { fail isgweb-php/toolchain "PHP soap, simplexml, dom or xml extension not loaded ($install_hint)"; return 1; } ;;
    crm4m)
      [ -x "$PY" ] && "$PY" -c 'import zeep' 2>/dev/null ||
        { fail crm4m-zeep/toolchain "python3-zeep not importable by $PY ($install_hint)"; return 1; } ;;
  esac
}

[ -f "$here/dist/cli/index.js" ] || { fail profiles/build "no $here/dist/cli/index.js: run npm run build"; echo "$passn passed, $failn failed"; exit 1; }
for tool in node curl timeout; do
  command -v "$tool" >/dev/null 2>&1 || { fail profiles/toolchain "$tool not installed"; echo "$passn passed, $failn failed"; exit 1; }
done

caller_password=conformance-s3cret
username=ada
user_password=Correct-Horse-Battery-9
email=ada@example.org
role_id=3f2504e0-4f89-11d3-9a0c-0305e82c3301   # a GUID, as CRM4M's web role ids are
role_name=Member

run_profile() {
  local profile="$1" base_path client_name port data log member_id
  case "$profile" in
    isgweb) base_path=/iservices; client_name=isgweb-php ;;
    crm4m) base_path=/DesktopModules/MX; client_name=crm4m-zeep ;;
    *) fail "profiles/$profile" "no such profile (known: isgweb crm4m)"; return ;;
  esac
  toolchain_ok "$profile" || return
  port="$(free_port)" || { fail "$profile/port" "could not find a free port"; return; }
  data="$work/$profile/data"; log="$work/$profile"; mkdir -p "$data"
  local svc_env=("${clean_env[@]}" PROFILE="$profile" DATA_DIR="$data" PORT="$port" HOST=127.0.0.1 COOKIE_DOMAIN=.example.org LOG_LEVEL=warn)
  cli() { "${svc_env[@]}" node "$here/dist/cli/index.js" "$@" 2>>"$log/cli.err"; }

  # Seed: a caller with a known password, one member with a password (under crm4m a GUID id, issued by the
  # CLI, a member with a web role whose id is a GUID).
  local added
  if ! cli callers add conformance --password "$caller_password" --json >/dev/null; then
    fail "$profile/seed" "callers add failed: $(tail -c 300 "$log/cli.err")"; return
  fi
  if [ "$profile" = crm4m ]; then
    added="$(cli members add --username "$username" --email "$email" --first-name Ada --last-name Lovelace \
      --is-member yes --role "$role_id:$role_name" --json)"
  else
    added="$(cli members add --id 10042 --username "$username" --email "$email" --first-name Ada --last-name Lovelace --json)"
  fi || { fail "$profile/seed" "members add failed: $(tail -c 300 "$log/cli.err")"; return; }
  member_id="$(node -e 'console.log(JSON.parse(process.argv[1]).id)' "$added" 2>/dev/null)"
  [ -n "$member_id" ] || { fail "$profile/seed" "members add printed no id: $added"; return; }
  cli members set-password "$member_id" --password "$user_password" >/dev/null ||
    { fail "$profile/seed" "members set-password failed: $(tail -c 300 "$log/cli.err")"; return; }

  local base="http://127.0.0.1:$port$base_path"
  # Started directly (env execs node), so that $! is the server's own pid and stop_server ends it.
  "${svc_env[@]}" node "$here/dist/cli/index.js" serve >"$log/server.log" 2>&1 &
  server_pid=$!
  local up=0
  for _ in $(seq 1 75); do
    curl -fs -o /dev/null -m 5 "$base/Authentication.asmx?WSDL" && { up=1; break; }
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.2
  done
  if [ $up -ne 1 ]; then
    fail "$profile/server-start" "no WSDL at $base/Authentication.asmx?WSDL within 15 s: $(tail -c 300 "$log/server.log")"
    stop_server; return
  fi

  local client_env=(BASE="$base" PASSWORD="$caller_password" USERNAME="$username" USER_PASSWORD="$user_password"
    MEMBER_ID="$member_id" EMAIL="$email")
  case "$profile" in
    isgweb) run_client "$client_name" "$log/client" "${clean_env[@]}" "${client_env[@]}" NS=http://ibridge.isgsolutions.com/Authentication/ \
      php -d default_socket_timeout=20 "$here/conformance/isgweb/client.php" ;;
    crm4m) run_client "$client_name" "$log/client" "${clean_env[@]}" "${client_env[@]}" NS=http://webportalbridge.ptassoc.com/Authentication/ \
      ROLE_ID="$role_id" ROLE_NAME="$role_name" "$PY" "$here/conformance/crm4m/client.py" ;;
  esac
  kill -0 "$server_pid" 2>/dev/null || fail "$profile/server-alive" "the server exited during the run: $(tail -c 300 "$log/server.log")"
  stop_server
}

for profile in $profiles; do run_profile "$profile"; done

echo "INFO profiles/elapsed: $(( $(date +%s) - start ))s" >&2
echo "$passn passed, $failn failed"
[ "$failn" -eq 0 ]
