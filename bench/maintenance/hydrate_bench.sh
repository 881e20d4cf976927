#!/usr/bin/env bash
# Hydrator benchmark: one POST .../maintenance/hydrate settling N pending
# files, against DuckDB reading the same N footers' statistics in the same
# run.
#
#   bench/maintenance/hydrate_bench.sh [--files N] [--rows R] [--runs K]
#       [--pg-url URL] [--hoglaked PATH] [--hoglake PATH]
#
# Creates a fresh database on the PostgreSQL at --pg-url (default
# $HOGLAKE_TEST_PG_URL), starts hoglaked on it (loops off), makes one catalog
# on file:// with a table of 20 columns (longs, ints, doubles, strings,
# timestamps, dates, booleans), and appends one Parquet file of R rows with
# `hoglake append`. That object is then linked N times (hard links: the
# hydrator reads regular files only, never through a symlink) and the N
# copies registered in commits of 1,000 without statistics, so they are
# `pending`, with their footer_size (one ranged read each). K times:
#   - DuckDB (threads=1) reads the N footers' column statistics
#     (parquet_metadata; bench/maintenance/duckdb_footers.mjs, timed inside
#     DuckDB);
#   - the server settles them in one pass (batch N), timed around the HTTP
#     call (claim, read the footer, compute and repair the statistics,
#     write them, commit: one transaction a file);
# and prints both as files/s (wall clock, and per CPU second: hoglaked's from
# /proc, DuckDB's from Node), their ratio, and the machine's busy CPUs over
# the pass (PostgreSQL's share included). Between runs every file is made
# pending again in SQL. Checks that every file was hydrated and holds its
# 20 columns' statistics.
#
# hoglaked runs with authentication on (its default). The bootstrap admin
# secret it writes to its --data-dir reaches `hoglake` through
# HOGLAKE_TOKEN_FILE and curl through a header file, never a command line.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
files=10000
rows=2000
runs=3
pg_url=${HOGLAKE_TEST_PG_URL:-}
hoglaked="$root/build-release/src/hoglaked"
hoglake="$root/build-release/src/hoglake"
node=$(command -v node || command -v nodejs || true)
while [ $# -gt 0 ]; do
  case "$1" in
    --files) files=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
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
[ "$files" -ge 1 ] && [ "$files" -le 10000 ] || { echo "--files is 1..10000 (one pass)" >&2; exit 2; }

# shellcheck source=bench/maintenance/server.sh
. "$here/server.sh"
bench_up hydrate --expiry-interval-ms 0 --compaction-interval-ms 0 --hydrator-interval-ms 0
cli() { "$hoglake" --server "$base" "$@"; }
post() { curl -sf -X POST -H 'Content-Type: application/json' -H "@$work/auth.header" "$@"; }
sql() { psql -tA -v ON_ERROR_STOP=1 "$db_url" -c "$1"; }

mkdir -p "$work/warehouse"
cli catalog create bench --data-path "file://$work/warehouse" >/dev/null
cli namespace create bench.ns >/dev/null
# shellcheck source=bench/maintenance/wide_rows.sh
. "$here/wide_rows.sh"
cli table create bench.ns.events --columns "$(wide_columns)" >/dev/null
wide_rows "$rows" >"$work/in.jsonl"
cli append bench.ns.events "$work/in.jsonl" >/dev/null
rm -f "$work/in.jsonl"
read -r src size footer < <(sql "SELECT substr(path, 8), file_size_bytes, footer_size
  FROM hog_data_file" | tr '|' ' ')

# N links of the one object, registered without statistics.
mkdir -p "$work/warehouse/pending"
: >"$work/list.txt"
for i in $(seq 1 "$files"); do
  ln "$src" "$work/warehouse/pending/$i.parquet"
  echo "$work/warehouse/pending/$i.parquet" >>"$work/list.txt"
done
for first in $(seq 1 1000 "$files"); do
  last=$(( first + 999 < files ? first + 999 : files ))
  awk -v a="$first" -v z="$last" -v w="$work" -v r="$rows" -v s="$size" -v f="$footer" 'BEGIN {
    printf "{\"appends\":[{\"namespace\":\"ns\",\"table\":\"events\",\"files\":["
    for (i = a; i <= z; i++)
      printf "%s{\"path\":\"file://%s/warehouse/pending/%d.parquet\",\"record_count\":%d,\"file_size_bytes\":%d,\"footer_size\":%d}",
        (i > a ? "," : ""), w, i, r, s, f
    printf "]}]}"
  }' >"$work/commit.json"
  post --data-binary "@$work/commit.json" "$base/v1/catalogs/bench/commit" >/dev/null
done
pending=$(sql "SELECT count(*) FROM hog_data_file WHERE stats_state = 'pending'")
[ "$pending" = "$files" ] || { echo "$pending files pending, not $files" >&2; exit 1; }
echo "pending: $files files of $rows rows, 20 columns, $size bytes each (footer $footer bytes)"

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
# busy and total jiffies of the whole machine
machine() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat; }
hz=$(getconf CLK_TCK)
for run in $(seq "$runs"); do
  duck=$("$node" "$here/duckdb_footers.mjs" --files "$work/list.txt")
  [ "$(jq .files <<<"$duck")" = "$files" ] || { echo "DuckDB read $duck" >&2; exit 1; }
  c0=$(cpu_ticks)
  read -r b0 all0 < <(machine)
  t0=$(date +%s.%N)
  result=$(post "$base/v1/catalogs/bench/maintenance/hydrate?batch=$files")
  t1=$(date +%s.%N)
  read -r b1 all1 < <(machine)
  c1=$(cpu_ticks)
  [ "$(jq .hydrated <<<"$result")" = "$files" ] || { echo "pass: $result" >&2; exit 1; }
  with20=$(sql "SELECT count(*) FROM hog_file_column_stats GROUP BY data_file_id
    HAVING count(*) = 20" | wc -l)
  [ "$with20" -ge "$files" ] || { echo "$with20 files hold 20 columns' statistics" >&2; exit 1; }
  awk -v n="$files" -v a="$t0" -v z="$t1" -v ds="$(jq .seconds <<<"$duck")" \
    -v dc="$(jq .cpu_seconds <<<"$duck")" -v hc="$(( c1 - c0 ))" -v hz="$hz" \
    -v busy="$(( b1 - b0 ))" -v all="$(( all1 - all0 ))" -v cpus="$(nproc)" -v r="$run" 'BEGIN {
      s = z - a; hcs = hc / hz
      printf "run %d: hoglaked %.2f s wall, %.2f s CPU: %.0f files/s, %.0f per CPU s (%.0f us a file); machine %.2f of %d CPUs busy\n",
        r, s, hcs, n / s, n / hcs, hcs * 1e6 / n, all ? busy / all * cpus : 0, cpus
      printf "       DuckDB   %.2f s wall, %.2f s CPU: %.0f files/s, %.0f per CPU s\n",
        ds, dc, n / ds, n / dc
      printf "       ratio (ours / DuckDB files/s): %.2fx wall, %.2fx CPU\n", ds / s, dc / hcs }'
  psql -q -v ON_ERROR_STOP=1 "$db_url" >/dev/null <<SQL
UPDATE hog_data_file SET stats_state = 'pending', column_stats = NULL, split_offsets = NULL,
  missing_field_ids = false WHERE path LIKE '%/pending/%';
SQL
done
