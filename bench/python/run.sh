#!/usr/bin/env bash
# The Python extension's append throughput (issue 20): Table.append through
# the hoglake module beside hl_table_append through the C API (append_bench),
# on the same rows, batches, table and target (file://), in the same run, and
# beside pyhoglake's published 202K rows/s. See bench/python/README.md.
#
#   bench/python/run.sh [--rows N] [--repeat N] [--out DIR] [--build-dir DIR]
#                       [--no-build] [--perf]
#   bench/python/run.sh --smoke [--build-dir DIR] [--no-build]   (the ctest)
#
#   --rows N         rows per append (default 2,000,000; smoke: 20,000)
#   --repeat N       rounds (default 3): each round runs append_bench and the
#                    Python side once each (which goes first alternates), as
#                    fresh processes, each to a fresh table; the report gives
#                    the range over the rounds
#   --out DIR        keep the logs and JSON results in DIR (default: a temporary
#                    directory, removed at the end); a previous run's are replaced
#   --build-dir DIR  the Release build (default build-release), configured and
#                    built here (hoglaked, append_bench, events_dump, libhoglake)
#                    unless --no-build; libhoglake is installed from it into
#                    DIR/py, and the extension built with pip against that
#   --perf           also profile both sides with perf record into DIR/perf: the
#                    Python side only while it appends (perf's control FIFO),
#                    append_bench whole (its generator shows as events_gen_batch)
#   --smoke          a quick correctness run: 20,000 rows, one round; the Python
#                    side reads every row back and compares it with its input.
#                    Exits 77 (skipped) when PostgreSQL or the extension's build
#                    tools (python3-dev, python3-setuptools, pip) are missing.
#
# The stack is private to the run (bench/common/stack.sh): a PostgreSQL cluster
# and hoglaked with authentication on; both sides get the bootstrap admin
# secret through HOGLAKE_TOKEN, never on a command line. The rows are written
# once by events_dump (bench/parquet's event generator, as append_bench
# streams it) to DIR/events.bin, which the Python side loads before timing.
# Exit status: 0 ok (a missed target is reported, not failed), 1 a check
# failed, 5 harness error, 77 skipped (smoke only).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

rows=""
repeat=3
out=""
smoke=0
perf=0
build=1
build_dir="$root/build-release"
while [ $# -gt 0 ]; do
  case "$1" in
    --rows | --repeat | --out | --build-dir)
      [ $# -ge 2 ] || { echo "run.sh: $1 needs a value" >&2; exit 5; } ;;
  esac
  case "$1" in
    --rows) rows=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --smoke) smoke=1; shift ;;
    --perf) perf=1; shift ;;
    -h | --help) sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 5 ;;
  esac
done
if [ "$smoke" = 1 ]; then
  rows=${rows:-20000}
  repeat=1
  perf=0
fi
rows=${rows:-2000000}
batch_rows=65536 # append_bench's default, passed to both sides
case "$rows$repeat" in *[!0-9]*) echo "run.sh: --rows and --repeat take numbers" >&2; exit 5 ;; esac
[ "$repeat" -ge 1 ] || { echo "run.sh: --repeat must be at least 1" >&2; exit 5; }
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
py=/usr/bin/python3
[ -x "$py" ] || skip_or_die "no $py"
"$py" -c 'import setuptools, pip' 2>/dev/null ||
  skip_or_die "python3 lacks setuptools or pip (apt-get install python3-setuptools python3-pip)"
[ -f "$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" ] ||
  skip_or_die "no Python.h (apt-get install python3-dev)"
command -v pkg-config >/dev/null || skip_or_die "no pkg-config"
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[ -n "$pgbin" ] && [ -x "$pgbin/initdb" ] ||
  skip_or_die "no PostgreSQL server binaries (apt-get install postgresql)"
if [ "$perf" = 1 ] && ! command -v perf >/dev/null; then
  log "--perf needs perf (apt-get install linux-perf)"
  exit 5
fi

if [ "$build" = 1 ]; then
  log "building hoglaked, append_bench, events_dump and libhoglake (Release) in $build_dir"
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  # What cmake --install copies, besides the benchmark's programs.
  if ! cmake --build "$build_dir" -j"$(nproc)" --target hoglaked append_bench events_dump \
    hoglake_shared hoglake_static hoglake_cli_docs >&2; then
    log "the Release build failed"
    exit 5
  fi
fi
hoglaked=$build_dir/src/hoglaked
append_bench=$build_dir/bench/append/append_bench
events_dump=$build_dir/bench/python/events_dump
for b in "$hoglaked" "$append_bench" "$events_dump"; do
  [ -x "$b" ] || { log "no executable $b (build it, or drop --no-build)"; exit 5; }
done

# ---- the work directory, the extension and the stack ----
if [ -n "$out" ]; then
  mkdir -p "$out"
  dir=$(cd "$out" && pwd)
  # A previous run's stack and results in DIR are replaced.
  rm -rf "$dir/pg" "$dir/hoglaked" "$dir/port" "$dir/warehouse" "$dir/perf" "$dir"/*.json \
    "$dir"/*.load "$dir"/*.log
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/python-bench.XXXXXX")
  chmod 755 "$dir" # hoglaked runs as its own user when started as root
fi
. "$root/bench/common/stack.sh"
cleanup() {
  bench_stack_down
  rm -f "$dir/events.bin" # as large as the rows (about 540 MB for 2M)
  if [ -z "$out" ]; then rm -rf "$dir"; fi
}
trap cleanup EXIT
trap 'exit 5' INT TERM

# libhoglake into a private prefix, the extension built against it as its
# README says (pip, offline, no build isolation), from a copy of python/ so
# that the source tree stays clean.
log "building the extension (pip) against $build_dir's libhoglake"
rm -rf "$dir/py"
mkdir -p "$dir/py"
cmake --install "$build_dir" --prefix "$dir/py/prefix" >"$dir/py/install.log" ||
  { log "cmake --install failed; see $dir/py/install.log"; exit 5; }
cp -r "$root/python" "$dir/py/src"
rm -rf "$dir/py/src/build" "$dir/py/src"/*.egg-info "$dir/py/src"/hoglake/*.so
if ! PKG_CONFIG_PATH="$dir/py/prefix/lib/pkgconfig" HOGLAKE_EXTRA_CFLAGS="" \
  "$py" -m pip install --quiet --no-build-isolation --no-deps --no-index \
  --target "$dir/py/site" "$dir/py/src" >"$dir/py/pip.log" 2>&1; then
  cat "$dir/py/pip.log" >&2
  log "the extension did not build"
  exit 5
fi
export PYTHONPATH="$dir/py/site" PYTHONDONTWRITEBYTECODE=1

bench_stack_up "$dir" "$hoglaked"
"$events_dump" --rows "$rows" --batch-rows "$batch_rows" >"$dir/events.bin" ||
  { log "events_dump failed"; exit 5; }
# On disk before the rounds, so that its writeback does not compete with them.
sync "$dir/events.bin"

load() { cut -d' ' -f1-3 /proc/loadavg; }
printf '{"cpu":"%s","nproc":%s,"python":"%s","rows":%s,"batch_rows":%s,"rounds":%s,"smoke":%s}\n' \
  "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //; s/"//g')" "$(nproc)" \
  "$("$py" -c 'import sys; print(sys.version.split()[0])')" "$rows" "$batch_rows" "$repeat" \
  "$([ "$smoke" = 1 ] && echo true || echo false)" >"$dir/env.json"

# ---- the rounds ----
# run NAME CMD...: the command's JSON to DIR/NAME.json, the load at its start
# to NAME.load. With --perf, under perf record; with perf_ctl=CTL,ACK set,
# perf starts disabled and the command enables it through those FIFOs.
run() {
  local name=$1
  shift
  if [ "$perf" = 1 ]; then
    local ctl=()
    [ -z "${perf_ctl:-}" ] || ctl=(-D -1 --control "fifo:$perf_ctl")
    set -- perf record -q -F 999 --call-graph dwarf,16384 "${ctl[@]}" \
      -o "$dir/perf/$name.data" -- "$@"
  fi
  log "$name: $*"
  load >"$dir/$name.load"
  "$@" >"$dir/$name.json" 2> >(tee "$dir/$name.log" >&2) || { log "$name failed"; exit 1; }
  if [ "$perf" = 1 ]; then
    perf report -i "$dir/perf/$name.data" --no-children --sort dso,sym --stdio -g none \
      --percent-limit 0.5 >"$dir/perf/$name.self.txt" 2>/dev/null || true
  fi
}
mkdir -p "$dir/warehouse"
py_opts=()
[ "$smoke" = 1 ] && py_opts=(--verify-rows)
perf_ctl=""
if [ "$perf" = 1 ]; then
  mkdir -p "$dir/perf"
  mkfifo "$dir/perf/ctl" "$dir/perf/ack"
  perf_ctl=$dir/perf/ctl,$dir/perf/ack
  py_opts+=(--perf-control "$perf_ctl")
fi
run_c() {
  perf_ctl="" run "c-$1" "$append_bench" --server "$url" --catalog bench_c \
    --data-path "file://$dir/warehouse/c" --rows "$rows" --batch-rows "$batch_rows" --repeat 1
}
run_py() {
  run "py-$1" "$py" "$here/append_py.py" --server "$url" --catalog bench_py \
    --data-path "file://$dir/warehouse/py" --events "$dir/events.bin" "${py_opts[@]}"
}
# The first append after the stack starts is slower (cold server and
# PostgreSQL): one small untimed append takes that. The side that goes first
# alternates between rounds.
"$append_bench" --server "$url" --catalog bench_warm --data-path "file://$dir/warehouse/warm" \
  --rows 1000 >/dev/null 2>"$dir/warm-up.log" || { log "the warm-up append failed"; exit 1; }
for round in $(seq 1 "$repeat"); do
  if [ $((round % 2)) = 1 ]; then
    run_c "$round"
    run_py "$round"
  else
    run_py "$round"
    run_c "$round"
  fi
done

status=0
"$py" "$here/report.py" "$dir" | tee "$dir/report.md" || status=${PIPESTATUS[0]}
[ "$perf" = 1 ] && echo "perf profiles: $dir/perf/*.self.txt"
[ -n "$out" ] && echo "results: $dir"
exit $status
