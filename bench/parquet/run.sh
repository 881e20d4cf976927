#!/usr/bin/env bash
# The Parquet codec benchmark: hoglake's writer and reader against DuckDB's
# (threads=1) on the same generated event table. See bench/parquet/README.md.
#
#   bench/parquet/run.sh [--rows N] [--repeat N] [--out DIR] [--perf] [--no-memory]
#                        [--threads N] [--rounds N] [--build-dir DIR] [--pq-bench PATH]
#   bench/parquet/run.sh --smoke [--rows N] [--threads N] [--pq-bench PATH]   (the ctests)
#
#   --rows N         rows to generate (default 10,000,000; smoke: 20,000)
#   --repeat N       timed repetitions of each phase, the fastest counts (default 3)
#   --out DIR        keep every file and JSON result in DIR (default: a temporary
#                    directory, removed at the end)
#   --perf           also record perf profiles of the six timed phases into DIR/perf
#   --no-memory      skip the writer memory-bound runs
#   --threads N      hoglake writes on N threads (pq_write_options.threads); above 1,
#                    also measure the threaded writer against the single-thread one:
#                    --rounds N rounds (default 5), each a process with 1 thread then
#                    a process with N, whose files must be byte-identical
#   --build-dir DIR  the Release build to use (default build-release; configured and
#                    built here unless --pq-bench is given)
#   --pq-bench PATH  use this pq_bench binary and do not build
#   --smoke          a quick correctness run: both engines write and read each other's
#                    files and must agree; no timing is judged. Exits 77 (skipped) when
#                    node or tools/node_modules/@duckdb/node-api is missing.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

rows=""
repeat=3
out=""
perf=0
memory=1
smoke=0
build_dir="$root/build-release"
pq_bench=""
threads=1
rounds=5
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --perf) perf=1; shift ;;
    --no-memory) memory=0; shift ;;
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --pq-bench) pq_bench=$2; shift 2 ;;
    --smoke) smoke=1; shift ;;
    -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ "$smoke" = 1 ]; then
  rows=${rows:-20000}
  repeat=1
  memory=0
  perf=0
  rounds=1
fi
rows=${rows:-10000000}
log() { echo "run.sh: $*" >&2; }

# ---- tools ----
skip_or_die() {
  if [ "$smoke" = 1 ]; then
    log "SKIPPED: $*"
    exit 77
  fi
  log "$*"
  exit 1
}
command -v node >/dev/null || skip_or_die "node is not installed"
tools_dir=${HOGLAKE_TOOLS_DIR:-$root/tools}
if [ ! -f "$tools_dir/node_modules/@duckdb/node-api/package.json" ]; then
  if [ "$smoke" = 1 ]; then
    skip_or_die "no @duckdb/node-api in $tools_dir/node_modules (run: npm ci --prefix tools)"
  fi
  log "installing the test tools (npm ci --prefix tools)"
  npm ci --prefix "$tools_dir" --no-audit --no-fund --loglevel=error >&2
fi
export HOGLAKE_TOOLS_DIR=$tools_dir
if [ "$perf" = 1 ] && ! command -v perf >/dev/null; then
  log "--perf needs perf (apt-get install linux-perf)"
  exit 1
fi

if [ -z "$pq_bench" ]; then
  if [ "$smoke" = 1 ]; then
    pq_bench=$root/build/bench/pq_bench
  else
    log "building pq_bench (Release) in $build_dir"
    cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
    if ! cmake --build "$build_dir" -j"$(nproc)" --target pq_bench >&2; then
      log "the Release build failed; if only warnings stop it, build elsewhere without -Werror:"
      log "  cmake -S $root -B /tmp/pq-bench-build -DCMAKE_BUILD_TYPE=Release -DHOGLAKE_WERROR=OFF"
      log "  bench/parquet/run.sh --build-dir /tmp/pq-bench-build"
      exit 1
    fi
    pq_bench=$build_dir/bench/pq_bench
  fi
fi
[ -x "$pq_bench" ] || { log "no pq_bench at $pq_bench"; exit 1; }

# ---- the work directory ----
if [ -n "$out" ]; then
  mkdir -p "$out"
  dir=$(cd "$out" && pwd)
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/pq-bench.XXXXXX")
  trap 'rm -rf "$dir"' EXIT
fi
ours=$dir/hoglake.parquet
duck=$dir/duckdb.parquet
peer=(node "$here/duckdb_peer.mjs")

load() { cut -d' ' -f1-3 /proc/loadavg; }
{
  printf '{"cpu":"%s","nproc":%s,"load_start":"%s",' \
    "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //; s/"//g')" "$(nproc)" "$(load)"
  printf '"codec_sha256":"%s","pq_bench":"%s","smoke":%s,"threads":%s,"rounds":%s}\n' \
    "$(cat "$root"/src/parquet/*.[ch] | sha256sum | cut -c1-16)" "$pq_bench" \
    "$([ "$smoke" = 1 ] && echo true || echo false)" "$threads" "$rounds"
} >"$dir/env.json"

# run NAME CMD...: runs a phase, its JSON to DIR/NAME.json. With --perf, the
# phase runs under perf record, sampling only its timed sections.
run() {
  local name=$1
  shift
  log "$name: $*"
  if [ "$perf" = 1 ] && [[ "$name" != mem-* && "$name" != scale-* ]]; then
    mkdir -p "$dir/perf"
    local ctl=$dir/perf/$name.ctl ack=$dir/perf/$name.ack
    rm -f "$ctl" "$ack"
    mkfifo "$ctl" "$ack"
    HL_BENCH_PERF_CTL=$ctl HL_BENCH_PERF_ACK=$ack \
      perf record -q -D -1 --control "fifo:$ctl,$ack" -F 499 --call-graph dwarf,16384 \
      -o "$dir/perf/$name.data" -- "$@" >"$dir/$name.json" 2>"$dir/perf/$name.log"
    rm -f "$ctl" "$ack"
    perf report -i "$dir/perf/$name.data" --no-children --sort dso,sym --stdio -g none \
      --percent-limit 0.5 >"$dir/perf/$name.self.txt" 2>/dev/null || true
    perf report -i "$dir/perf/$name.data" --children --sort sym --stdio -g none \
      --percent-limit 2 >"$dir/perf/$name.children.txt" 2>/dev/null || true
    # Each library's share of the samples: the report bounds the ratios by
    # libzstd's (a phase cannot beat its peer by more than the peer's time
    # over the compression alone).
    perf report -i "$dir/perf/$name.data" --no-children --sort dso --stdio -g none \
      >"$dir/perf/$name.dso.txt" 2>/dev/null || true
  else
    "$@" >"$dir/$name.json"
  fi
}

run ours-write "$pq_bench" gen-and-write "$ours" --rows "$rows" --repeat "$repeat" \
  --threads "$threads"
run duck-write "${peer[@]}" write --from "$ours" --out "$duck" --repeat "$repeat"
run ours-read-ours "$pq_bench" read "$ours" --repeat "$repeat"
run duck-read-duck "${peer[@]}" read --file "$duck" --repeat "$repeat"
run ours-read-duck "$pq_bench" read "$duck" --repeat "$repeat"
run duck-read-ours "${peer[@]}" read --file "$ours" --repeat "$repeat"
log "check: DuckDB compares the two files row for row"
"${peer[@]}" check --ours "$ours" --duck "$duck" >"$dir/check.json"

if [ "$threads" -gt 1 ]; then
  # The threaded writer against the single-thread one, alternating so that
  # both sides meet the same load; every file must be the same bytes. Both
  # sides take their input generated beforehand (--pregen), as DuckDB's COPY
  # takes an in-memory table: generating between the writer's calls slows
  # the writer itself (see docs/benchmarks.md), more so the threaded one.
  for r in $(seq 1 "$rounds"); do
    run "scale-1-$r" "$pq_bench" gen-and-write "$dir/scale-1.parquet" --rows "$rows" \
      --threads 1 --pregen
    run "scale-n-$r" "$pq_bench" gen-and-write "$dir/scale-n.parquet" --rows "$rows" \
      --threads "$threads" --pregen
    if cmp -s "$dir/scale-1.parquet" "$dir/scale-n.parquet"; then same=true; else same=false; fi
    echo "{\"identical\":$same}" >"$dir/scale-cmp-$r.json"
    # The control: two single-thread writers side by side, each its own
    # process, say what this machine gives two independent encoders now.
    run "scale-pair-a-$r" "$pq_bench" gen-and-write "$dir/scale-pa.parquet" --rows "$rows" \
      --threads 1 --pregen &
    pair_a=$!
    run "scale-pair-b-$r" "$pq_bench" gen-and-write "$dir/scale-pb.parquet" --rows "$rows" \
      --threads 1 --pregen &
    pair_b=$!
    wait "$pair_a"
    wait "$pair_b"
  done
  rm -f "$dir/scale-1.parquet" "$dir/scale-n.parquet" "$dir/scale-pa.parquet" "$dir/scale-pb.parquet"
fi

if [ "$memory" = 1 ]; then
  small=$((rows / 5))
  # One repetition each: repeating in one process lets the allocator's
  # retained memory add to the peak.
  run mem-small "$pq_bench" gen-and-write "$dir/mem.parquet" --rows "$small"
  run mem-full "$pq_bench" gen-and-write "$dir/mem.parquet" --rows "$rows"
  run mem-small-rg "$pq_bench" gen-and-write "$dir/mem.parquet" --rows "$small" --row-group-bytes 32M
  run mem-rg "$pq_bench" gen-and-write "$dir/mem.parquet" --rows "$rows" --row-group-bytes 32M
  rm -f "$dir/mem.parquet"
fi

# The load average at the end, for the record.
node -e '
  const fs = require("fs"); const f = process.argv[1];
  const e = JSON.parse(fs.readFileSync(f, "utf8"));
  e.load_end = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  fs.writeFileSync(f, JSON.stringify(e) + "\n");' "$dir/env.json"

status=0
node "$here/report.mjs" "$dir" || status=$?
if [ "$perf" = 1 ]; then
  echo
  echo "perf profiles (timed sections only): $dir/perf/*.self.txt and *.children.txt"
fi
[ -n "$out" ] && echo "results: $dir"
exit $status
