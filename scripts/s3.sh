#!/usr/bin/env bash
# Two throwaway S3-compatible servers on loopback for tests and development:
#   moto     semantics (conditional writes, multipart, -N ETags); does NOT check signatures
#   s3rver   @20minutes/s3rver via scripts/s3rver_server.js; verifies SigV4 and the payload hash
#
#   scripts/s3.sh start DIR [MOTO_PORT [S3RVER_PORT]]   start both (ports default to free ones)
#   scripts/s3.sh stop DIR                              stop both, by the pids recorded in DIR
#   scripts/s3.sh env DIR                               print the export lines again
#
# `start` prints only shell `export` lines on stdout (logs and progress go to stderr):
#   env=$(scripts/s3.sh start "$D") && eval "$env"
# On failure it prints `false` instead, so `eval "$(scripts/s3.sh start "$D")" && ...` stops too.
# Exported: HOGLAKE_TEST_MOTO_ENDPOINT, HOGLAKE_TEST_S3RVER_ENDPOINT, HOGLAKE_TEST_S3_ACCESS_KEY,
# HOGLAKE_TEST_S3_SECRET_KEY, HOGLAKE_TEST_S3_BUCKET, HOGLAKE_TEST_S3_REGION. Keys and bucket
# may be preset in the environment; defaults hoglake / hoglake-secret / hoglake-test.
# Both servers start empty (moto keeps state in memory; s3rver's DIR/s3rver-data is wiped),
# with the bucket created. Logs: DIR/moto.log, DIR/s3rver.log.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
start_timeout=${HOGLAKE_TEST_S3_START_TIMEOUT:-30}   # seconds, per server
stop_timeout=5                                       # seconds before SIGKILL

access_key=${HOGLAKE_TEST_S3_ACCESS_KEY:-hoglake}
secret_key=${HOGLAKE_TEST_S3_SECRET_KEY:-hoglake-secret}
bucket=${HOGLAKE_TEST_S3_BUCKET:-hoglake-test}
region=us-east-1
empty_sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855

usage() { echo "usage: $0 start DIR [MOTO_PORT [S3RVER_PORT]] | stop DIR | env DIR" >&2; exit 2; }
log() { echo "s3.sh: $*" >&2; }

# What each server's command line contains: guards against killing a recycled pid.
pattern_of() {
  case "$1" in
    moto) echo "moto.server" ;;
    s3rver) echo "s3rver_server.js" ;;
  esac
}

# Alive = exists and is not a zombie.
alive() {
  local pid=$1 state
  [ -r "/proc/$pid/stat" ] || return 1
  state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# The recorded pid of NAME in DIR if that process is alive and still ours; else nothing.
our_pid() {
  local dir=$1 name=$2 pid cmdline
  [ -f "$dir/$name.pid" ] || return 0
  pid=$(cat "$dir/$name.pid")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  alive "$pid" || return 0
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 0
  [[ "$cmdline" == *"$(pattern_of "$name")"* ]] || return 0
  echo "$pid"
}

stop_one() {
  local dir=$1 name=$2 pid i
  [ -f "$dir/$name.pid" ] || return 0
  pid=$(our_pid "$dir" "$name")
  if [ -z "$pid" ]; then
    if [ -s "$dir/$name.pid" ] && alive "$(cat "$dir/$name.pid")" 2>/dev/null; then
      log "pid $(cat "$dir/$name.pid") in $dir/$name.pid is not $name any more; not killing it"
    fi
    rm -f "$dir/$name.pid"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < stop_timeout * 10; i++)); do
    alive "$pid" || break
    sleep 0.1
  done
  if alive "$pid"; then
    log "$name (pid $pid) ignored SIGTERM for ${stop_timeout}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 20; i++)); do alive "$pid" || break; sleep 0.1; done
  fi
  rm -f "$dir/$name.pid"
}

stop_all() {
  local dir=$1
  stop_one "$dir" s3rver
  stop_one "$dir" moto
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Installs the npm tools when missing or older than the lock file; npm's output goes to
# DIR/npm-ci.log and is shown only if it fails.
ensure_tools() {
  local dir=$1 nm=$root/tools/node_modules
  if [ ! -f "$nm/@20minutes/s3rver/package.json" ] || [ ! -f "$nm/.package-lock.json" ] ||
    [ "$root/tools/package-lock.json" -nt "$nm/.package-lock.json" ]; then
    log "installing test tools (npm ci --prefix tools)"
    npm ci --prefix "$root/tools" --no-audit --no-fund --loglevel=error >"$dir/npm-ci.log" 2>&1
  fi
}

exports_of() {
  local dir=$1 moto_port=$2 s3rver_port=$3
  printf 'export HOGLAKE_TEST_MOTO_ENDPOINT=%q\n' "http://127.0.0.1:$moto_port"
  printf 'export HOGLAKE_TEST_S3RVER_ENDPOINT=%q\n' "http://127.0.0.1:$s3rver_port"
  printf 'export HOGLAKE_TEST_S3_ACCESS_KEY=%q\n' "$access_key"
  printf 'export HOGLAKE_TEST_S3_SECRET_KEY=%q\n' "$secret_key"
  printf 'export HOGLAKE_TEST_S3_BUCKET=%q\n' "$bucket"
  printf 'export HOGLAKE_TEST_S3_REGION=%q\n' "$region"
}

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || usage

case "$cmd" in
start)
  moto_port=${3:-0}
  s3rver_port=${4:-0}
  [[ "$moto_port" =~ ^[0-9]+$ && "$s3rver_port" =~ ^[0-9]+$ ]] || usage
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)

  started=() # what this call launched: a failed start stops these, nothing else
  failed() {
    local name
    log "$1"
    if [ -n "${2:-}" ] && [ -f "$dir/$2.log" ]; then
      log "last lines of $dir/$2.log:"
      tail -n 20 "$dir/$2.log" | sed 's/^/    /' >&2
    fi
    for name in "${started[@]}"; do stop_one "$dir" "$name"; done
    echo false # makes the caller's eval fail
    exit 1
  }

  for name in moto s3rver; do
    [ -z "$(our_pid "$dir" "$name")" ] || failed "$name already running from $dir (pid $(cat "$dir/$name.pid")); run: $0 stop $dir"
    rm -f "$dir/$name.pid"
  done
  command -v node >/dev/null || failed "node not found"
  command -v curl >/dev/null || failed "curl not found"
  # find_spec, not an import: importing moto costs 0.7 s; a broken moto shows in moto.log.
  python3 -c 'import importlib.util as u, sys; sys.exit(u.find_spec("moto") is None)' ||
    failed "python3 has no moto (it comes with the machine image's Python)"
  ensure_tools "$dir" || failed "npm ci --prefix tools failed" npm-ci

  [ "$moto_port" != 0 ] || moto_port=$(free_port)
  rm -rf "$dir/s3rver-data"

  # Both start in parallel. Output to logs and stdin from /dev/null, so nothing holds the
  # caller's $(...) pipe open; $! is the server itself (no npx, no wrapper shell).
  python3 -m moto.server -H 127.0.0.1 -p "$moto_port" >"$dir/moto.log" 2>&1 </dev/null &
  echo $! >"$dir/moto.pid"
  started+=(moto)
  HOGLAKE_TEST_S3_ACCESS_KEY=$access_key HOGLAKE_TEST_S3_SECRET_KEY=$secret_key \
    node "$root/scripts/s3rver_server.js" --port "$s3rver_port" --dir "$dir/s3rver-data" \
    >"$dir/s3rver.log" 2>&1 </dev/null &
  echo $! >"$dir/s3rver.pid"
  started+=(s3rver)

  # s3rver names its port in the ready line (it may have picked it).
  deadline=$((SECONDS + start_timeout))
  while ! grep -q '^s3rver_server: ready ' "$dir/s3rver.log"; do
    alive "$(cat "$dir/s3rver.pid")" || failed "s3rver exited during start" s3rver
    [ "$SECONDS" -lt "$deadline" ] || failed "s3rver not ready after ${start_timeout}s" s3rver
    sleep 0.05
  done
  s3rver_port=$(sed -n 's|^s3rver_server: ready http://127\.0\.0\.1:\([0-9]*\) .*|\1|p' "$dir/s3rver.log" | head -1)
  [ -n "$s3rver_port" ] || failed "cannot read the port from s3rver's ready line" s3rver

  # Ready = the server itself answers: moto's own API says 200 (another process squatting
  # on the port would not), s3rver refuses this unsigned probe with 403.
  for name in moto s3rver; do
    if [ "$name" = moto ]; then
      port=$moto_port probe=/moto-api/data.json want=200
    else
      port=$s3rver_port probe=/ want=403
    fi
    deadline=$((SECONDS + start_timeout))
    while :; do
      code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port$probe" || true)
      [ "$code" != "$want" ] || break
      alive "$(cat "$dir/$name.pid")" || failed "$name exited during start (port $port)" "$name"
      [ "$SECONDS" -lt "$deadline" ] || failed "$name did not answer on 127.0.0.1:$port within ${start_timeout}s" "$name"
      sleep 0.05
    done
  done

  # The bucket, with a signed request (which also proves s3rver took our key pair).
  for name in moto s3rver; do
    if [ "$name" = moto ]; then port=$moto_port; else port=$s3rver_port; fi
    out=$(curl -sS --max-time 10 -o - -w '\n%{http_code}' -X PUT \
      --aws-sigv4 "aws:amz:$region:s3" --user "$access_key:$secret_key" \
      -H "x-amz-content-sha256: $empty_sha256" "http://127.0.0.1:$port/$bucket" 2>&1) || true
    [ "${out##*$'\n'}" = 200 ] || failed "creating bucket $bucket on $name failed: $out" "$name"
  done

  exports_of "$dir" "$moto_port" "$s3rver_port" >"$dir/env"
  log "moto on 127.0.0.1:$moto_port (pid $(cat "$dir/moto.pid")), s3rver on 127.0.0.1:$s3rver_port (pid $(cat "$dir/s3rver.pid")), bucket $bucket"
  cat "$dir/env"
  ;;
stop)
  [ -d "$dir" ] || exit 0
  stop_all "$dir"
  ;;
env)
  [ -f "$dir/env" ] || { log "no $dir/env: start the stack first"; exit 1; }
  cat "$dir/env"
  ;;
*)
  usage ;;
esac
