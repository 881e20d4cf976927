#!/usr/bin/env bash
# Variant columns against DuckDB (issue 18). See bench/variant/README.md.
#
#   bench/variant/run.sh [--rows N] [--repeat N] [--out DIR] [--build-dir DIR] [--threads N]
#
#   --rows N        event property rows to generate (default 1,000,000)
#   --repeat N      timed repetitions of each phase, both sides (default 3)
#   --out DIR       keep the input, the files and the JSON results in DIR (default: a
#                   temporary directory, removed at the end)
#   --build-dir DIR the Release build (default build-release; configured and built here)
#   --threads N     DuckDB's threads (default 1: ours encodes and writes on one)
#
# Both sides take the same JSON Lines file of PostHog-like properties (about
# 1 KB and 26 keys a row). hoglake (variant_bench): encode only; read +
# encode + shred into a 12-field declaration + write Parquet; read the file
# back and decode every value to JSON. DuckDB (duckdb_peer.mjs): COPY the
# file's objects cast to VARIANT into Parquet; read its file back, and ours,
# casting every value to JSON. The report prints ranges over repetitions,
# medians and the ratios, the machine's load, and checks that both sides
# read the same rows and the same JSON bytes from our file.
# Exit status: 0 ok (a missed target is reported, not failed), 1 a check
# failed, 5 harness error.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

rows=1000000
repeat=3
out=""
build_dir="$root/build-release"
threads=1
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 5 ;;
  esac
done
log() { echo "run.sh: $*" >&2; }
command -v node >/dev/null || { log "node is not installed"; exit 5; }
export HOGLAKE_TOOLS_DIR=${HOGLAKE_TOOLS_DIR:-$root/tools}

log "building (Release) in $build_dir"
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j"$(nproc)" --target variant_bench >&2

if [ -n "$out" ]; then
  mkdir -p "$out"
  dir=$(cd "$out" && pwd)
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/variant-bench.XXXXXX")
fi
cleanup() { if [ -z "$out" ]; then rm -rf "$dir"; fi; }
trap cleanup EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }

log "generating $rows rows"
"$build_dir/bench/variant_bench" gen "$dir/props.jsonl" --rows "$rows"
load_start=$(load)
log "hoglake: encode, write, read ($repeat times)"
"$build_dir/bench/variant_bench" run "$dir/props.jsonl" --out "$dir/ours.parquet" \
  --repeat "$repeat" >"$dir/ours.json"
log "DuckDB (threads=$threads): write, read ($repeat times)"
node "$here/duckdb_peer.mjs" --jsonl "$dir/props.jsonl" --out "$dir" --ours "$dir/ours.parquet" \
  --threads "$threads" --repeat "$repeat" >"$dir/duckdb.json"
load_end=$(load)
node "$here/report.mjs" "$dir/ours.json" "$dir/duckdb.json" "$load_start" "$load_end" \
  "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
