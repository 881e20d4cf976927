#!/usr/bin/env bash
# Compaction benchmark: one POST .../maintenance/compact rewriting a group of
# small files, against DuckDB doing the same rewrite in the same run.
#
#   bench/maintenance/compact_bench.sh [--files N] [--rows-per-file R] [--runs K]
#       [--pg-url URL] [--hoglaked PATH] [--hoglake PATH]
#
# Creates a fresh database on the PostgreSQL at --pg-url (default
# $HOGLAKE_TEST_PG_URL), starts hoglaked on it (loops off), makes one catalog
# on file:// with a table sorted by (team_id, ts), and appends N files of R
# rows each with `hoglake append` (one file per append). Then, K times:
#   - DuckDB (threads=1) reads the same N files, adds each row's id, sorts
#     them by the sort order and writes one zstd Parquet file
#     (bench/maintenance/duckdb_compact.mjs, timed inside DuckDB);
#   - the server compacts them (one group, batch 1), timed around the HTTP
#     call (plan, claim, read, sort, write, commit);
# and prints both as MB/s of input Parquet (wall clock, and per CPU second:
# hoglaked's from /proc, DuckDB's from Node, which is steadier on a shared
# machine) and their ratios. Between runs the
# compaction is undone in SQL (the output's row dropped, the inputs made
# live again) so every run rewrites the same inputs. Checks that the output
# holds every row.
#
# hoglaked runs with authentication on (its default). The bootstrap admin
# secret it writes to its --data-dir reaches `hoglake` through
# HOGLAKE_TOKEN_FILE and curl through a header file, never a command line.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
files=64
rows=40000
runs=3
pg_url=${HOGLAKE_TEST_PG_URL:-}
hoglaked="$root/build-release/src/hoglaked"
hoglake="$root/build-release/src/hoglake"
node=$(command -v node || command -v nodejs || true)
while [ $# -gt 0 ]; do
  case "$1" in
    --files) files=$2; shift 2 ;;
    --rows-per-file) rows=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --pg-url) pg_url=$2; shift 2 ;;
    --hoglaked) hoglaked=$2; shift 2 ;;
    --hoglake) hoglake=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$pg_url" ] || { echo "set --pg-url or HOGLAKE_TEST_PG_URL" >&2; exit 2; }
[ -x "$hoglaked" ] && [ -x "$hoglake" ] ||
  { echo "no hoglaked/hoglake under build-release (build it with -DCMAKE_BUILD_TYPE=Release)" >&2; exit 2; }
[ -n "$node" ] || { echo "node is needed for the DuckDB peer" >&2; exit 2; }

# shellcheck source=bench/maintenance/server.sh
. "$here/server.sh"
bench_up compact --expiry-interval-ms 0 --compaction-interval-ms 0
cli() { "$hoglake" --server "$base" "$@"; }
cli catalog create bench --data-path "file://$work/warehouse" >/dev/null
cli namespace create bench.ns >/dev/null
cli table create bench.ns.events \
  --columns 'id:long!, team_id:long!, ts:timestamptz, name:string, amount:double' \
  --sort-by 'team_id, ts' >/dev/null

# N JSON Lines files: ids dense, teams and times scattered (so the sort
# has work), a short name, an amount.
for f in $(seq 0 $((files - 1))); do
  awk -v f="$f" -v n="$rows" 'BEGIN {
    srand(f + 1)
    for (i = 0; i < n; i++) {
      id = f * n + i
      team = int(rand() * 500)
      sec = 1767225600 + int(rand() * 86400 * 30)
      printf "{\"id\":%d,\"team_id\":%d,\"ts\":\"%s\",\"name\":\"event-%d\",\"amount\":%.2f}\n",
        id, team, strftime("%Y-%m-%dT%H:%M:%SZ", sec, 1), int(rand() * 50), rand() * 1000
    }
  }' >"$work/in.jsonl"
  cli append bench.ns.events "$work/in.jsonl" >/dev/null
done
rm -f "$work/in.jsonl"
# The appends ran as this user; hoglaked (its own user when started as
# root) writes the compacted file beside them.
chmod -R a+rwX "$work/warehouse"

sql() { psql -tA -v ON_ERROR_STOP=1 "$db_url" -c "$1"; }
sql "SELECT substr(path, 8) || E'\t' || row_id_start FROM hog_data_file WHERE end_snapshot IS NULL
     ORDER BY data_file_id" >"$work/inputs.txt"
bytes_in=$(sql "SELECT sum(file_size_bytes) FROM hog_data_file WHERE end_snapshot IS NULL")
total_rows=$((files * rows))
echo "inputs: $files files, $total_rows rows, $bytes_in bytes of Parquet"

# hoglaked's user + system CPU time so far, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)

for run in $(seq "$runs"); do
  duck=$("$node" "$here/duckdb_compact.mjs" --files "$work/inputs.txt" \
    --out "$work/duck.parquet" --order-by 'team_id, ts')
  c0=$(cpu_ticks)
  t0=$(date +%s.%N)
  result=$(curl -sf -X POST -H "@$work/auth.header" \
    "$base/v1/catalogs/bench/maintenance/compact?batch=1")
  t1=$(date +%s.%N)
  c1=$(cpu_ticks)
  [ "$(jq .groups_compacted <<<"$result")" = 1 ] || { echo "no group compacted: $result" >&2; exit 1; }
  [ "$(jq .files_in <<<"$result")" = "$files" ] || { echo "not every file: $result" >&2; exit 1; }
  out_rows=$(sql "SELECT record_count FROM hog_data_file WHERE end_snapshot IS NULL")
  [ "$out_rows" = "$total_rows" ] || { echo "output holds $out_rows rows" >&2; exit 1; }
  [ "$(jq .rows <<<"$duck")" = "$total_rows" ] || { echo "DuckDB wrote $duck" >&2; exit 1; }
  awk -v b="$bytes_in" -v a="$t0" -v z="$t1" -v ds="$(jq .seconds <<<"$duck")" \
    -v dc="$(jq .cpu_seconds <<<"$duck")" -v hc="$(( c1 - c0 ))" -v hz="$hz" \
    -v ob="$(jq .bytes_out <<<"$result")" -v db="$(jq .bytes_out <<<"$duck")" -v r="$run" 'BEGIN {
      s = z - a; hcs = hc / hz
      printf "run %d: hoglaked %.2f s wall, %.2f s CPU: %.1f MB/s, %.1f MB per CPU s (out %d bytes)\n",
        r, s, hcs, b / s / 1e6, b / hcs / 1e6, ob
      printf "       DuckDB   %.2f s wall, %.2f s CPU: %.1f MB/s, %.1f MB per CPU s (out %d bytes)\n",
        ds, dc, b / ds / 1e6, b / dc / 1e6, db
      printf "       ratio (DuckDB time / ours): %.2fx wall, %.2fx CPU\n", ds / s, dc / hcs }'
  # Undo, so the next run rewrites the same inputs.
  psql -q -v ON_ERROR_STOP=1 "$db_url" >/dev/null <<SQL
DELETE FROM hog_data_file WHERE end_snapshot IS NULL;
UPDATE hog_data_file SET end_snapshot = NULL;
DELETE FROM hog_compaction_claim;
SQL
done
