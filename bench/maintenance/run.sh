#!/usr/bin/env bash
# The maintenance benchmarks in one run, each against a peer in the same run
# (docs/benchmarks.md has the figures and how each one works):
#   expiry      expire_bench.sh   snapshots/s, against the bare SQL of the same expiry
#   cleanup     run_cleanup.sh    paths/s on file:// and moto, against rm -rf
#   month       month_bench.sh    a simulated month: unreferenced bytes (must be 0) and the
#                                 orphan sweep's s per 10,000 objects, against find -delete
#   compaction  compact_bench.sh  MB/s of input Parquet, against DuckDB's same rewrite
#   hydrator    hydrate_bench.sh  files/s settled from 10,000 pending, against DuckDB reading
#                                 the same footers' statistics
# then a summary with the issue's targets (expiry >= 50,000 snapshots/s,
# cleanup >= 5,000 paths/s on file://). Targets are reported, not enforced:
# the machines here are shared and noisy.
#
#   bench/maintenance/run.sh
#
# Needs HOGLAKE_TEST_PG_URL (a PostgreSQL where databases may be created),
# HOGLAKE_TEST_MOTO_ENDPOINT for cleanup's S3 leg (`scripts/s3.sh start`
# exports it; without it that leg is skipped) and node with tools/node_modules
# for DuckDB. Builds the Release binaries first.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
: "${HOGLAKE_TEST_PG_URL:?set HOGLAKE_TEST_PG_URL}"

build="$root/build-release"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHOGLAKE_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target hoglaked hoglake_cli cleanup_bench >/dev/null

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
stores="file"
[ -n "${HOGLAKE_TEST_MOTO_ENDPOINT:-}" ] && stores="file s3"

echo "== expiry"
bash "$here/expire_bench.sh" --hoglaked "$build/src/hoglaked" | tee "$out/expiry"
echo "== cleanup"
bash "$here/run_cleanup.sh" --build-dir "$build" --stores "$stores" | tee "$out/cleanup"
echo "== a month of storage"
bash "$here/month_bench.sh" --bin-dir "$build/src" | tee "$out/month"
echo "== compaction"
bash "$here/compact_bench.sh" --hoglaked "$build/src/hoglaked" --hoglake "$build/src/hoglake" |
  tee "$out/compaction"
echo "== hydrator"
bash "$here/hydrate_bench.sh" --hoglaked "$build/src/hoglaked" --hoglake "$build/src/hoglake" |
  tee "$out/hydrator"

# verdict VALUE TARGET: "met" or "missed".
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v >= t ? "met" : "missed") }'; }
expiry=$(sed -n 's/.*: \([0-9]*\) snapshots\/s$/\1/p' "$out/expiry" | head -1)
expiry_ratio=$(sed -n 's/.*ratio (expiry \/ peer) = \(.*\)$/\1/p' "$out/expiry")
file_paths=$(sed -n 's/^store=file .*paths\/s=\([0-9]*\) .*/\1/p' "$out/cleanup")
rm_ratio=$(sed -n 's/.*ratio (cleanup \/ rm -rf) = \(.*\)$/\1/p' "$out/cleanup")
s3_paths=$(sed -n 's/^store=s3 .*paths\/s=\([0-9]*\) .*/\1/p' "$out/cleanup")
echo
echo "== summary"
echo "expiry:     ${expiry} snapshots/s (target 50,000: $(verdict "$expiry" 50000));" \
  "${expiry_ratio} the bare-SQL peer"
echo "cleanup:    file:// ${file_paths} paths/s (target 5,000: $(verdict "$file_paths" 5000));" \
  "${rm_ratio} rm -rf; moto ${s3_paths:-skipped} paths/s"
grep -E '^run [0-9]+: hoglaked|ratio \(DuckDB' "$out/compaction" | sed 's/^/compaction: /'
grep -E '^unreferenced bytes|^sweep:|^ratio sweep' "$out/month" | sed 's/^/month:      /'
grep -E '^run [0-9]+: hoglaked|ratio \(ours' "$out/hydrator" | sed 's/^/hydrator:   /'
