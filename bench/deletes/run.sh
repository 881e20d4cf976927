#!/usr/bin/env bash
# Row-level deletes against DuckDB (issue 17). See bench/deletes/README.md.
#
#   bench/deletes/run.sh [--rows N] [--repeat N] [--out DIR] [--build-dir DIR] [--perf]
#
#   --rows N        rows in the table (default 10,000,000)
#   --repeat N      deletes of 1% each, and DuckDB DELETEs of the same (default 3)
#   --out DIR       keep the warehouse, logs and JSON results in DIR (default: a
#                   temporary directory, removed at the end)
#   --build-dir DIR the Release build (default build-release; configured and built here)
#   --perf          profile deletes_bench with perf record (call graphs) into DIR/perf
#
# The table: bench/parquet's event table (pq_bench gen-and-write), ordered by
# (session_id, ts) by DuckDB, appended with `hoglake append` (our writer:
# row groups of 128 MiB, pages of 1 MiB or 20,000 rows, page index), declared
# sorted by session_id. Then deletes_bench deletes 1% of the rows per
# repetition by a predicate on `value` and dry-runs a point lookup on
# session_id, and DuckDB (threads=1, and threads=nproc) runs the same DELETEs
# on the same rows loaded into a table of an on-disk database, and the same
# lookup over the same files. The report prints ranges over the repetitions.
# Exit status: 0 ok (a missed target is reported, not failed), 1 a check
# failed, 5 harness error.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

rows=10000000
repeat=3
out=""
build_dir="$root/build-release"
perf=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --perf) perf=1; shift ;;
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 5 ;;
  esac
done
log() { echo "run.sh: $*" >&2; }

command -v node >/dev/null || { log "node is not installed"; exit 5; }
export HOGLAKE_TOOLS_DIR=${HOGLAKE_TOOLS_DIR:-$root/tools}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[ -n "$pgbin" ] && [ -x "$pgbin/initdb" ] || { log "no PostgreSQL server binaries"; exit 5; }

log "building (Release) in $build_dir"
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j"$(nproc)" --target hoglaked hoglake_cli deletes_bench pq_bench >&2
hoglaked=$build_dir/src/hoglaked
cli=$build_dir/src/hoglake

if [ -n "$out" ]; then
  mkdir -p "$out"
  dir=$(cd "$out" && pwd)
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/deletes-bench.XXXXXX")
  chmod 755 "$dir" # hoglaked runs as its own user when started as root
fi
. "$root/bench/common/stack.sh"
cleanup() {
  bench_stack_down
  if [ -z "$out" ]; then rm -rf "$dir"; fi
}
trap cleanup EXIT
trap 'exit 5' INT TERM
bench_stack_up "$dir" "$hoglaked"
export HOGLAKE_URL=$url
load() { cut -d' ' -f1-3 /proc/loadavg; }
load_start=$(load)

peer=(node "$here/duckdb_peer.mjs")
log "generating $rows rows"
"$build_dir/bench/pq_bench" gen-and-write "$dir/events.parquet" --rows "$rows" >"$dir/gen.json"
"${peer[@]}" --sort "$dir/events.parquet" --out "$dir/sorted.parquet" >"$dir/sort.json"
rm -f "$dir/events.parquet"
lookup=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).lookup)' \
  "$dir/sort.json")

log "loading the table"
"$cli" catalog create bench --data-path "file://$dir/warehouse/bench" >/dev/null
"$cli" namespace create bench.b >/dev/null
"$cli" table create bench.b.events --sort-by session_id --columns \
  'session_id:string, event_id:long, ts:timestamptz, event:string, value:double, properties:string' \
  >/dev/null
"$cli" append bench.b.events "$dir/sorted.parquet" >"$dir/append.log"
rm -f "$dir/sorted.parquet"

log "hoglake: $repeat deletes of 1%, one point lookup"
profile=()
if [ "$perf" = 1 ]; then
  mkdir -p "$dir/perf"
  profile=(perf record -q -F 999 --call-graph dwarf,16384 -o "$dir/perf/deletes.data" --)
fi
"${profile[@]}" "$build_dir/bench/deletes/deletes_bench" --server "$url" --catalog bench --namespace b \
  --table events --repeat "$repeat" --lookup "$lookup" >"$dir/ours.json"
log "DuckDB, threads=1 and threads=$(nproc)"
"${peer[@]}" --ours "$dir/ours.json" --db "$dir/peer1.duckdb" --threads 1 --repeat "$repeat" \
  >"$dir/duck1.json"
"${peer[@]}" --ours "$dir/ours.json" --db "$dir/peerN.duckdb" --threads "$(nproc)" \
  --repeat "$repeat" >"$dir/duckN.json"
rm -f "$dir"/peer*.duckdb*
if [ "$perf" = 1 ]; then
  perf report -i "$dir/perf/deletes.data" --no-children --sort dso,sym --stdio -g none \
    --percent-limit 0.5 >"$dir/perf/deletes.self.txt" 2>/dev/null || true
fi

printf '{"cpu":"%s","nproc":%s,"load_start":"%s","load_end":"%s","rows":%s}\n' \
  "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //; s/"//g')" "$(nproc)" "$load_start" \
  "$(load)" "$rows" >"$dir/env.json"
node "$here/report.mjs" "$dir" | tee "$dir/report.md"
[ -n "$out" ] && echo "results: $dir"
exit 0
