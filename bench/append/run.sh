#!/usr/bin/env bash
# The writer-path benchmark: hl_table_append end to end (encode + upload +
# commit) through libhoglake, to file:// and to moto, beside DuckDB (threads=1)
# writing the same rows to Parquet. See bench/append/README.md.
#
#   bench/append/run.sh [--rows N] [--repeat N] [--encode-threads N] [--out DIR]
#                       [--build-dir DIR] [--perf] [--hoglaked PATH] [--append-bench PATH]
#                       [--pq-bench PATH]
#   bench/append/run.sh --smoke [--hoglaked PATH] [--append-bench PATH]   (the ctest)
#
#   --rows N             rows per append (default 2,000,000; smoke: 20,000)
#   --repeat N           appends per target, each to a fresh table; the fastest counts
#                        (default 3). DuckDB's COPY is repeated as often.
#   --encode-threads N   1 to 16 (default 1: only the single-thread appends). With N > 1,
#                        the file:// appends run again with hl_append_options.encode_threads
#                        = N (catalog bench_file_threads), reported as their own row and
#                        ratios; the DuckDB ratio and its target stay single-thread
#   --out DIR            keep the warehouse, logs and JSON results in DIR (default: a
#                        temporary directory, removed at the end)
#   --build-dir DIR      the Release build (default build-release; configured and built
#                        here unless --hoglaked, --append-bench and --pq-bench are given)
#   --perf               also profile the file:// and moto appends with perf record
#                        (call graphs) into DIR/perf; generation shows up there as
#                        events_gen_batch, the rest is the library
#   --smoke              a quick correctness run: appends to file:// and to moto, then
#                        DuckDB must read the file:// append back with the right row
#                        count; no timing is judged, pq_bench is not run. Exits 77
#                        (skipped) when node, @duckdb/node-api, PostgreSQL or moto is
#                        missing.
#
# The stack is private to the run: a PostgreSQL cluster (scripts/pg.sh: fsync off),
# hoglaked (authentication on, its default; --data-dir DIR/hoglaked, where it
# writes the bootstrap admin secret admin.token), and moto (scripts/s3.sh, which
# also starts s3rver, unused here). append_bench gets the secret through
# HOGLAKE_TOKEN (libhoglake reads it), never on a command line.
# Exit status: 0 ok (a missed target is reported, not failed), 1 a check failed,
# 5 harness error, 77 skipped (smoke only).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

rows=""
repeat=3
encode_threads=1
out=""
smoke=0
perf=0
build_dir="$root/build-release"
hoglaked=""
append_bench=""
pq_bench=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --encode-threads) encode_threads=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --hoglaked) hoglaked=$2; shift 2 ;;
    --append-bench) append_bench=$2; shift 2 ;;
    --pq-bench) pq_bench=$2; shift 2 ;;
    --smoke) smoke=1; shift ;;
    --perf) perf=1; shift ;;
    -h | --help) sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 5 ;;
  esac
done
case "$encode_threads" in
  [1-9] | 1[0-6]) ;;
  *) echo "run.sh: --encode-threads: '$encode_threads' is not a thread count from 1 to 16" >&2; exit 5 ;;
esac
if [ "$smoke" = 1 ]; then
  rows=${rows:-20000}
  repeat=1
  perf=0
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
python3 -c 'import importlib.util as u, sys; sys.exit(u.find_spec("moto") is None)' 2>/dev/null ||
  skip_or_die "python3 has no moto"
if [ "$perf" = 1 ] && ! command -v perf >/dev/null; then
  log "--perf needs perf (apt-get install linux-perf)"
  exit 5
fi

targets=()
[ -n "$hoglaked" ] || targets+=(hoglaked)
[ -n "$append_bench" ] || targets+=(append_bench)
[ "$smoke" = 1 ] || [ -n "$pq_bench" ] || targets+=(pq_bench)
if [ ${#targets[@]} -gt 0 ]; then
  log "building ${targets[*]} (Release) in $build_dir"
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  if ! cmake --build "$build_dir" -j"$(nproc)" --target "${targets[@]}" >&2; then
    log "the Release build failed; if only warnings stop it, build elsewhere without -Werror:"
    log "  cmake -S $root -B /tmp/append-bench-build -DCMAKE_BUILD_TYPE=Release -DHOGLAKE_WERROR=OFF"
    log "  bench/append/run.sh --build-dir /tmp/append-bench-build"
    exit 5
  fi
  hoglaked=${hoglaked:-$build_dir/src/hoglaked}
  append_bench=${append_bench:-$build_dir/bench/append/append_bench}
  pq_bench=${pq_bench:-$build_dir/bench/pq_bench}
fi
for b in "$hoglaked" "$append_bench"; do [ -x "$b" ] || { log "no executable $b"; exit 5; }; done

# ---- the work directory and the stack ----
if [ -n "$out" ]; then
  mkdir -p "$out"
  dir=$(cd "$out" && pwd)
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/append-bench.XXXXXX")
  chmod 755 "$dir" # hoglaked runs as its own user when started as root
fi
. "$root/bench/common/stack.sh"
cleanup() {
  bench_stack_down
  if [ -z "$out" ]; then rm -rf "$dir"; fi
}
trap cleanup EXIT
trap 'exit 5' INT TERM
if [ "$encode_threads" -gt 1 ]; then
  # The threaded appends' catalog needs a data path disjoint from bench_file's (the
  # warehouse itself), and hoglaked allows file:// catalogs only under its file roots.
  mkdir -p "$dir/warehouse" "$dir/warehouse-threads"
  export HOGLAKE_FILE_ROOTS="$dir/warehouse:$dir/warehouse-threads"
fi
bench_stack_up "$dir" "$hoglaked" s3

load() { cut -d' ' -f1-3 /proc/loadavg; }
{
  printf '{"cpu":"%s","nproc":%s,"load_start":"%s","smoke":%s,' \
    "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //; s/"//g')" "$(nproc)" "$(load)" \
    "$([ "$smoke" = 1 ] && echo true || echo false)"
  printf '"writer_sha256":"%s"}\n' \
    "$(cat "$root"/src/parquet/*.[ch] "$root"/src/client/*.[ch] "$root"/src/objstore/*.[ch] |
      sha256sum | cut -c1-16)"
} >"$dir/env.json"

# ---- the runs ----
run() { # run NAME CMD...: the command's JSON goes to DIR/NAME.json
  local name=$1
  shift
  log "$name: $*"
  "$@" >"$dir/$name.json" 2> >(tee "$dir/$name.log" >&2) || { log "$name failed"; exit 1; }
}
profiled() { # profiled NAME CMD...: run, under perf record with --perf
  local name=$1
  shift
  if [ "$perf" = 0 ]; then
    run "$name" "$@"
    return
  fi
  mkdir -p "$dir/perf"
  run "$name" perf record -q -F 999 --call-graph dwarf,16384 -o "$dir/perf/$name.data" -- "$@"
  perf report -i "$dir/perf/$name.data" --no-children --sort dso,sym --stdio -g none \
    --percent-limit 0.5 >"$dir/perf/$name.self.txt" 2>/dev/null || true
  perf report -i "$dir/perf/$name.data" --children --sort sym --stdio -g none \
    --percent-limit 2 >"$dir/perf/$name.children.txt" 2>/dev/null || true
}
peer=(node "$root/bench/parquet/duckdb_peer.mjs")
mkdir -p "$dir/warehouse"
common=(--server "$url" --rows "$rows" --repeat "$repeat")
profiled ours-file "$append_bench" "${common[@]}" --catalog bench_file \
  --data-path "file://$dir/warehouse"
if [ "$encode_threads" -gt 1 ]; then
  # The same appends encoded on N threads: a figure of its own, never the DuckDB ratio's.
  profiled ours-file-threads "$append_bench" "${common[@]}" --catalog bench_file_threads \
    --data-path "file://$dir/warehouse-threads" --encode-threads "$encode_threads"
fi
profiled ours-moto "$append_bench" "${common[@]}" --catalog bench_moto \
  --data-path "s3://$HOGLAKE_TEST_S3_BUCKET/bench" --s3-endpoint "$HOGLAKE_TEST_MOTO_ENDPOINT" \
  --s3-region "$HOGLAKE_TEST_S3_REGION" --s3-access-key "$HOGLAKE_TEST_S3_ACCESS_KEY" \
  --s3-secret-key "$HOGLAKE_TEST_S3_SECRET_KEY"
ours=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).file)' \
  "$dir/ours-file.json")
case "$ours" in
  file://*) ours=${ours#file://} ;;
  *) log "the file:// append wrote $ours, not a local file"; exit 1 ;;
esac
# DuckDB reads the appended file back: every row must be there.
run read-ours "${peer[@]}" read --file "$ours" --repeat 1
if [ "$smoke" != 1 ]; then
  run codec "$pq_bench" gen-and-write "$dir/codec.parquet" --rows "$rows" --repeat "$repeat"
  rm -f "$dir/codec.parquet"
  run duck-write "${peer[@]}" write --from "$ours" --out "$dir/duckdb.parquet" --repeat "$repeat"
fi
node -e '
  const fs = require("fs"); const f = process.argv[1];
  const e = JSON.parse(fs.readFileSync(f, "utf8"));
  e.load_end = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  fs.writeFileSync(f, JSON.stringify(e) + "\n");' "$dir/env.json"

status=0
node "$here/report.mjs" "$dir" | tee "$dir/report.md" || status=${PIPESTATUS[0]}
[ "$perf" = 1 ] && echo "perf profiles: $dir/perf/*.self.txt and *.children.txt"
[ -n "$out" ] && echo "results: $dir"
exit $status
