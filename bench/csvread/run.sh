#!/usr/bin/env bash
# The CSV read benchmark: `hoglake read TABLE --format csv > FILE` beside DuckDB
# (threads=1) running COPY (SELECT * FROM read_parquet(...)) TO FILE (FORMAT csv)
# over the same Parquet files, each a fresh process. See bench/csvread/README.md.
#
#   bench/csvread/run.sh [--rows N] [--rounds N] [--out DIR] [--build-dir DIR]
#                        [--read-threads N] [--hoglaked PATH] [--hoglake PATH]
#                        [--append-bench PATH]
#   bench/csvread/run.sh --smoke [--hoglaked PATH] [--hoglake PATH] [--append-bench PATH]
#
#   --rows N             rows of the event table (default 2,000,000; smoke: 20,000)
#   --rounds N           timed rounds (default 5); odd rounds run hoglake first, even
#                        rounds DuckDB first
#   --read-threads N     hoglake's --read-threads (default: its own, the CPUs; DuckDB
#                        always runs with threads=1)
#   --out DIR            keep the warehouse, both CSVs, logs and results in DIR (default:
#                        a temporary directory, removed at the end)
#   --build-dir DIR      the Release build (default build-release; configured and built
#                        here unless --hoglaked, --hoglake and --append-bench are given)
#   --smoke              a quick correctness run (one round; the ctest): both CSVs must
#                        hold the same rows; no timing is judged. Exits 77 (skipped) when
#                        node, @duckdb/node-api or PostgreSQL is missing.
#
# The stack is private to the run (bench/common/stack.sh): a PostgreSQL cluster and
# hoglaked, authentication on; the CLI and append_bench get the bootstrap secret
# through HOGLAKE_TOKEN, never on a command line.
# Exit status: 0 ok (a missed target is reported, not failed), 1 a check failed,
# 5 harness error, 77 skipped (smoke only).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

rows=""
rounds=5
out=""
smoke=0
build_dir="$root/build-release"
hoglaked=""
hoglake=""
append_bench=""
read_threads=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --hoglaked) hoglaked=$2; shift 2 ;;
    --hoglake) hoglake=$2; shift 2 ;;
    --append-bench) append_bench=$2; shift 2 ;;
    --read-threads) read_threads=(--read-threads "$2"); shift 2 ;;
    --smoke) smoke=1; shift ;;
    -h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 5 ;;
  esac
done
if [ "$smoke" = 1 ]; then
  rows=${rows:-20000}
  rounds=1
fi
rows=${rows:-2000000}
log() { echo "run.sh: $*" >&2; }
skip_or_die() {
  if [ "$smoke" = 1 ]; then
    log "SKIPPED: $*"
    exit 77
  fi
  log "$*"
  exit 5
}

# ---- tools ----
command -v node >/dev/null || skip_or_die "node is not installed"
tools_dir=${HOGLAKE_TOOLS_DIR:-$root/tools}
[ -f "$tools_dir/node_modules/@duckdb/node-api/package.json" ] ||
  skip_or_die "no @duckdb/node-api in $tools_dir/node_modules (run: npm ci --prefix tools)"
export HOGLAKE_TOOLS_DIR=$tools_dir
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[ -n "$pgbin" ] && [ -x "$pgbin/initdb" ] ||
  skip_or_die "no PostgreSQL server binaries (apt-get install postgresql)"

targets=()
[ -n "$hoglaked" ] || targets+=(hoglaked)
[ -n "$hoglake" ] || targets+=(hoglake_cli)
[ -n "$append_bench" ] || targets+=(append_bench)
if [ ${#targets[@]} -gt 0 ]; then
  log "building ${targets[*]} (Release) in $build_dir"
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build_dir" -j"$(nproc)" --target "${targets[@]}" >&2 ||
    { log "the Release build failed"; exit 5; }
  hoglaked=${hoglaked:-$build_dir/src/hoglaked}
  hoglake=${hoglake:-$build_dir/src/hoglake}
  append_bench=${append_bench:-$build_dir/bench/append/append_bench}
fi
for b in "$hoglaked" "$hoglake" "$append_bench"; do
  [ -x "$b" ] || { log "no executable $b"; exit 5; }
done

# ---- the work directory and the stack ----
if [ -n "$out" ]; then
  mkdir -p "$out"
  dir=$(cd "$out" && pwd)
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/csvread-bench.XXXXXX")
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

# ---- the table: N rows of the event table, one append through the stack ----
mkdir -p "$dir/warehouse"
log "appending $rows rows"
"$append_bench" --server "$url" --rows "$rows" --repeat 1 --catalog bench_csv \
  --data-path "file://$dir/warehouse" >"$dir/append.json" 2>"$dir/append.log" ||
  { cat "$dir/append.log" >&2; log "append_bench failed"; exit 1; }
field() { node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1]))[process.argv[2]])' "$@"; }
table=bench_csv.bench.$(field "$dir/append.json" table)
# The Parquet files the catalog lists for the table: what DuckDB reads.
"$hoglake" files "$table" --json >"$dir/files.json"
files=$(node -e '
  const fs = require("fs");
  const paths = JSON.parse(fs.readFileSync(process.argv[1])).map((f) => f.path);
  if (!paths.length || paths.some((p) => !p.startsWith("file://"))) process.exit(1);
  console.log(paths.map((p) => decodeURIComponent(p.slice(7))).join(","))' "$dir/files.json") ||
  { log "the table lists no local files (see $dir/files.json)"; exit 1; }

printf '{"cpu":"%s","nproc":%s,"load_start":"%s","rows":%s,"rounds":%s,"read_threads":"%s","smoke":%s,"table":"%s"}\n' \
  "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //; s/"//g')" "$(nproc)" \
  "$(cut -d' ' -f1-3 /proc/loadavg)" "$rows" "$rounds" "${read_threads[1]:-default}" \
  "$([ "$smoke" = 1 ] && echo true || echo false)" "$table" >"$dir/env.json"

# ---- the rounds ----
# timed SIDE ROUND CMD...: runs CMD as a fresh process, its stdout to
# DIR/SIDE.stdout, and appends {"side", "round", "wall_s", "cpu_s", "bytes"} (the
# size of DIR/SIDE.csv; DuckDB's peer JSON as "peer") to DIR/rounds.jsonl. The last output is removed and
# dirty pages flushed first (untimed), so that neither side pays for the
# other's writeback.
timed() {
  local side=$1 round=$2 t wall user sys
  shift 2
  rm -f "$dir/$side.csv"
  sync
  t=$({ TIMEFORMAT='%R %U %S'; time "$@" >"$dir/$side.stdout" 2>"$dir/$side.err"; } 2>&1) ||
    { cat "$dir/$side.err" >&2; log "$side failed in round $round"; exit 1; }
  read -r wall user sys <<<"$t"
  local peer=null
  [ "$side" = hoglake ] || peer=$(cat "$dir/$side.stdout")
  printf '{"side":"%s","round":%s,"wall_s":%s,"user_s":%s,"sys_s":%s,"bytes":%s,"peer":%s}\n' \
    "$side" "$round" "$wall" "$user" "$sys" "$(stat -c %s "$dir/$side.csv")" "$peer" \
    >>"$dir/rounds.jsonl"
}
# hoglake writes the CSV on stdout, as a user would redirect it; DuckDB's COPY
# writes the file itself, and the peer prints the statement's own time.
ours() { timed hoglake "$1" sh -c 'exec "$@" >"$0"' "$dir/hoglake.csv" "$hoglake" \
  ${read_threads[@]+"${read_threads[@]}"} read "$table" --format csv; }
duck() { timed duckdb "$1" node "$here/duckdb_peer.mjs" copy --files "$files" --out "$dir/duckdb.csv"; }
: >"$dir/rounds.jsonl"
for r in $(seq 1 "$rounds"); do
  log "round $r of $rounds"
  if [ $((r % 2)) = 1 ]; then ours "$r"; duck "$r"; else duck "$r"; ours "$r"; fi
done
printf '%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)" >"$dir/load_end"

# ---- the check: the same data in both ----
log "checking that both CSVs hold the same data"
node "$here/duckdb_peer.mjs" check --ours "$dir/hoglake.csv" --duck "$dir/duckdb.csv" \
  --rows "$rows" >"$dir/check.json" || { log "the check failed to run"; exit 1; }

status=0
node "$here/report.mjs" "$dir" | tee "$dir/report.md" || status=${PIPESTATUS[0]}
[ -n "$out" ] && echo "results: $dir"
exit "$status"
