#!/usr/bin/env bash
# The cleanup benchmark: N real small objects queued for removal, drained by
# POST .../maintenance/cleanup passes on one hoglaked (Release) over an
# existing PostgreSQL, on file:// and on moto. Prints paths/s per store.
# See docs/benchmarks.md ("Cleanup").
#
#   bench/maintenance/run_cleanup.sh [--n N] [--batch B] [--stores "file s3"]
#                                    [--build-dir DIR]
#
#   --n N          objects per store (default 20000)
#   --batch B      rows per pass (default 5000; sub-batches of 1000 inside)
#   --stores LIST  "file", "s3" or both (default both; s3 needs moto:
#                  HOGLAKE_TEST_MOTO_ENDPOINT, as `scripts/s3.sh start` exports)
#   --build-dir D  Release build with hoglaked and cleanup_bench (default
#                  build-release; configured and built here when missing)
#
# Needs HOGLAKE_TEST_PG_URL (a server where a database may be created). The
# target is >= 5,000 paths/s on file://. hoglaked runs with authentication on
# (its default) and --data-dir in the work directory; cleanup_bench reads the
# bootstrap admin secret from there (--token-file). Exit status: 0 ok, 1 a
# run failed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

n=20000
batch=5000
stores="file s3"
build_dir="$root/build-release"
while [ $# -gt 0 ]; do
  case "$1" in
    --n) n=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --stores) stores=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    *) echo "run_cleanup.sh: unknown option $1" >&2; exit 1 ;;
  esac
done
: "${HOGLAKE_TEST_PG_URL:?set HOGLAKE_TEST_PG_URL}"

if [ ! -x "$build_dir/src/hoglaked" ] || [ ! -x "$build_dir/bench/cleanup_bench" ]; then
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DHOGLAKE_TESTS=OFF >/dev/null
  cmake --build "$build_dir" -j2 --target hoglaked cleanup_bench >/dev/null
fi

work=$(mktemp -d /tmp/hl-cleanup-bench.XXXXXX)
dbname="hl_cleanup_bench_$$"
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  psql -q "$HOGLAKE_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $dbname" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
psql -q "$HOGLAKE_TEST_PG_URL" -c "CREATE DATABASE $dbname" >/dev/null
db_url="${HOGLAKE_TEST_PG_URL%/*}/$dbname"

export AWS_ACCESS_KEY_ID="${HOGLAKE_TEST_S3_ACCESS_KEY:-hoglake}"
export AWS_SECRET_ACCESS_KEY="${HOGLAKE_TEST_S3_SECRET_KEY:-hoglake-secret}"
moto="${HOGLAKE_TEST_MOTO_ENDPOINT:-}"
region="${HOGLAKE_TEST_S3_REGION:-us-east-1}"
s3_args=()
[ -n "$moto" ] && s3_args=(--s3-endpoint "$moto" --s3-region "$region")
"$build_dir/src/hoglaked" --database-url "$db_url" --port 0 --port-file "$work/port" \
  --data-dir "$work" --log-level warn "${s3_args[@]}" >"$work/hoglaked.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { cat "$work/hoglaked.log"; exit 1; }
server="http://127.0.0.1:$(cat "$work/port")"
# The database is new: hoglaked wrote the bootstrap admin secret before listening.
[ -s "$work/admin.token" ] || { echo "run_cleanup.sh: hoglaked wrote no admin.token" >&2; exit 1; }

status=0
for store in $stores; do
  case "$store" in
    file) prefix="file://$work/warehouse"; extra=() ;;
    s3)
      [ -n "$moto" ] || { echo "run_cleanup.sh: s3 needs HOGLAKE_TEST_MOTO_ENDPOINT" >&2; exit 1; }
      prefix="s3://${HOGLAKE_TEST_S3_BUCKET:-hoglake-test}/cleanup-bench-$$"
      extra=(--s3-endpoint "$moto") ;;
    *) echo "run_cleanup.sh: unknown store $store" >&2; exit 1 ;;
  esac
  "$build_dir/bench/cleanup_bench" --server "$server" --pg "$db_url" --store "$prefix" \
    --catalog "bench_$store" --n "$n" --batch "$batch" --token-file "$work/admin.token" \
    "${extra[@]}" || status=1
done
exit $status
