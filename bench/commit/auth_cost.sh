#!/usr/bin/env bash
# What authentication costs a commit, in instructions: hoglaked runs under
# callgrind (collection only inside server_handle, the whole handling of a
# request once it is read), N single-file commits are sent with a bearer
# token, and callgrind's inclusive counts say how many instructions
# auth_gate took against the whole request. Instruction counts repeat from
# run to run whatever else the machine is doing, where the throughput pairs
# of run.sh --auth-compare-only swing by +-10% on a busy 2-core machine.
#
#   bench/commit/auth_cost.sh [--commits N] [--writers W] [--build-dir DIR] [--out DIR]
#
# Prints instructions per commit in auth_gate (and its part SHA-256) and in
# server_handle, and the gate's share. Needs valgrind and PostgreSQL; the
# database runs with fsync off (scripts/pg.sh): only hoglaked is counted.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
commits=300
writers=1
build_dir="$root/build-release"
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --commits) commits=$2; shift 2 ;;
    --writers) writers=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "auth_cost.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
command -v valgrind >/dev/null || { echo "auth_cost.sh: valgrind is not installed" >&2; exit 2; }
command -v callgrind_annotate >/dev/null || { echo "auth_cost.sh: callgrind_annotate is missing" >&2; exit 2; }
if [ ! -x "$build_dir/src/hoglaked" ] || [ ! -x "$build_dir/bench/commit/commit_bench" ]; then
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build_dir" -j"$(nproc)" --target hoglaked commit_bench >/dev/null
fi
work=${out:-$(mktemp -d /tmp/hoglake-authcost.XXXXXX)}
mkdir -p "$work"
chmod 755 "$work"
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  "$root/scripts/pg.sh" stop "$work/pg" >/dev/null 2>&1 || true
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=$("$root/scripts/pg.sh" start "$work/pg" "$port")

valgrind --tool=callgrind --collect-atstart=no --toggle-collect=server_handle \
  --callgrind-out-file="$work/callgrind.out" \
  "$build_dir/src/hoglaked" --database-url "$url" --data-dir "$work/data" --port 0 \
  --port-file "$work/port" --expiry-interval-ms 0 --hydrator-interval-ms 0 \
  --cleanup-interval-ms 0 --metrics-interval-ms 0 >"$work/hoglaked.log" 2>&1 &
pid=$!
for _ in $(seq 600); do [ -s "$work/port" ] && break; sleep 0.2; done
[ -s "$work/port" ] || { cat "$work/hoglaked.log" >&2; exit 1; }
server="http://127.0.0.1:$(cat "$work/port")"
hdr="$work/auth.header"
(umask 077 && printf 'Authorization: Bearer %s\n' "$(cat "$work/data/admin.token")" >"$hdr")
curl -sf -H @"$hdr" -H 'Content-Type: application/json' -X POST "$server/v1/catalogs" \
  -d '{"name":"cost","data_path":"s3://bench/cost"}' >/dev/null
curl -sf -H @"$hdr" -H 'Content-Type: application/json' -X POST \
  "$server/v1/catalogs/cost/namespaces" -d '{"name":"bench"}' >/dev/null
curl -sf -H @"$hdr" -H 'Content-Type: application/json' -X POST \
  "$server/v1/catalogs/cost/namespaces/bench/tables" \
  -d '{"name":"events","columns":[{"name":"id","type":"long","nullable":false},{"name":"ts","type":"timestamptz"},{"name":"team_id","type":"long"},{"name":"name","type":"string"}]}' >/dev/null
"$build_dir/bench/commit/commit_bench" --url "$server" --catalog cost --namespace bench \
  --table events --data-path s3://bench/cost --writers "$writers" --files 1 --warmup 5 \
  --commits "$commits" --token-file "$work/data/admin.token" >"$work/bench.json" 2>"$work/bench.txt"
kill "$pid"
wait "$pid" 2>/dev/null || true
pid=""

# Requests counted: the setup's 3 and the warm-up's, plus the measured commits.
requests=$((3 + writers * (5 + commits)))
callgrind_annotate --inclusive=yes --threshold=100 "$work/callgrind.out" >"$work/annotate.txt" 2>&1
inclusive() {
  awk -v f="$1" '!done && $0 ~ "[ :*]"f"( |$|\\[)" { gsub(",", "", $1); print $1; done = 1 }' \
    "$work/annotate.txt"
}
total=$(inclusive server_handle)
gate=$(inclusive auth_gate)
sha=$(inclusive token_secret_hash) # the gate's SHA-256 of the secret
[ -n "$total" ] && [ -n "$gate" ] || { echo "auth_cost.sh: no counts in $work/callgrind.out" >&2; exit 1; }
awk -v t="$total" -v g="$gate" -v s="${sha:-0}" -v n="$requests" -v w="$writers" 'BEGIN {
  printf "requests handled: %d (%d writer(s), single-file commits)\n", n, w
  printf "server_handle: %.0f instructions per request\n", t / n
  printf "auth_gate:     %.0f instructions per request (of which sha256: %.0f)\n", g / n, s / n
  printf "auth share of server_handle: %.2f%%\n", 100 * g / t
}' | tee "$work/auth_cost.txt"
echo "callgrind profile: $work/callgrind.out" >&2
