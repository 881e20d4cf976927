#!/usr/bin/env bash
# Expiry benchmark: one POST .../maintenance/expire removing a long history.
#
#   bench/maintenance/expire_bench.sh [--snapshots N] [--files-every K]
#       [--pg-url URL] [--hoglaked PATH]
#
# Creates a fresh database on the PostgreSQL at --pg-url (default
# $HOGLAKE_TEST_PG_URL), starts hoglaked on it (expiry loop off), makes one
# catalog with one table, then writes N data-commit snapshots with SQL in the
# shape commits leave them (one snapshot row and one table_inserted_into
# change row each, stamped a day ago), plus one data file every K snapshots
# that a later snapshot ended (so phase B purges and queues N/K paths). It
# sets a 60 s retention and times one expiry with batch = head, which removes
# every snapshot but head. Prints the result and snapshots/s; checks that the
# floor reached head and that every ended file was queued.
#
# The peer, in the same run: an identical history in a second catalog,
# expired by the bare SQL an expiry boils down to (delete the change rows
# and snapshots below head, delete the ended files and queue their paths,
# move the floor) in one psql transaction; the ratio is ours over it.
#
# hoglaked runs with authentication on (its default); curl sends the
# bootstrap admin secret it wrote to its --data-dir, from a header file.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
snapshots=200000
files_every=10
pg_url=${HOGLAKE_TEST_PG_URL:-}
hoglaked="$root/build-release/src/hoglaked"
while [ $# -gt 0 ]; do
  case "$1" in
    --snapshots) snapshots=$2; shift 2 ;;
    --files-every) files_every=$2; shift 2 ;;
    --pg-url) pg_url=$2; shift 2 ;;
    --hoglaked) hoglaked=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$pg_url" ] || { echo "set --pg-url or HOGLAKE_TEST_PG_URL" >&2; exit 2; }
[ -x "$hoglaked" ] || { echo "no hoglaked at $hoglaked (build build-release first)" >&2; exit 2; }

dbname="hl_expire_bench_$$"
db_url="${pg_url%/*}/$dbname"
work=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  psql -q "$pg_url" -c "DROP DATABASE IF EXISTS $dbname" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
psql -q "$pg_url" -c "CREATE DATABASE $dbname" >/dev/null

"$hoglaked" --database-url "$db_url" --port 0 --port-file "$work/port" \
  --data-dir "$work" --file-roots /tmp/expire-bench --expiry-interval-ms 0 --expiry-purge-budget-ms 3600000 \
  --log-level warn >"$work/log" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { cat "$work/log" >&2; exit 1; }
base="http://127.0.0.1:$(cat "$work/port")"
# The database is new: hoglaked wrote the bootstrap admin secret before
# listening. curl reads it from a 0600 header file, not from its argv.
[ -s "$work/admin.token" ] || { echo "hoglaked wrote no admin.token" >&2; exit 1; }
(umask 077 && printf 'Authorization: Bearer %s\n' "$(head -1 "$work/admin.token")" >"$work/auth.header")
post() {
  curl -sf -X "$1" -H 'Content-Type: application/json' -H "@$work/auth.header" ${3:+-d "$3"} "$base$2"
}

# seed CATALOG: the history described above, in CATALOG's single table.
seed() {
  psql -q -v ON_ERROR_STOP=1 -v cat="$1" "$db_url" >/dev/null <<SQL
SELECT catalog_id AS c, last_snapshot_id AS h, schema_version AS sv, next_file_id AS f
  FROM hog_catalog WHERE name = :'cat' \gset
SELECT table_id AS t FROM hog_table WHERE catalog_id = :c \gset
INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version)
  SELECT :c, :h + g, now() - interval '1 day', :sv FROM generate_series(1, $snapshots) g;
INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)
  SELECT :c, :h + g, 'table_inserted_into', :t FROM generate_series(1, $snapshots) g;
INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot, end_snapshot,
    path, record_count, file_size_bytes, row_id_start)
  SELECT :c, :f + g, :t, :h + g, :h + g + 1,
         'file:///tmp/expire-bench/' || :'cat' || '/f' || g || '.parquet', 1, 1, g
  FROM generate_series(1, $snapshots - 1, $files_every) g;
UPDATE hog_catalog SET last_snapshot_id = :h + $snapshots,
    next_file_id = :f + $snapshots + 1 WHERE catalog_id = :c;
UPDATE hog_snapshot SET snapshot_time = now() - interval '1 day' WHERE catalog_id = :c;
SQL
}
for c in bench peer; do
  post POST /v1/catalogs "{\"name\":\"$c\",\"data_path\":\"file:///tmp/expire-bench/$c\"}" >/dev/null
  post POST /v1/catalogs/$c/namespaces '{"name":"ns"}' >/dev/null
  post POST /v1/catalogs/$c/namespaces/ns/tables \
    '{"name":"t","columns":[{"name":"id","type":"long"}]}' >/dev/null
  seed $c
done
psql -q "$db_url" -c "VACUUM ANALYZE" >/dev/null
post PATCH /v1/catalogs/bench/options '{"snapshot_retention_seconds":60}' >/dev/null
head=$(psql -tA "$db_url" -c "SELECT last_snapshot_id FROM hog_catalog WHERE name = 'bench'")
files=$(psql -tA "$db_url" -c "SELECT count(*) FROM hog_data_file f JOIN hog_catalog c
  USING (catalog_id) WHERE c.name = 'bench'")

t0=$(date +%s.%N)
result=$(post POST "/v1/catalogs/bench/maintenance/expire?batch=$head")
t1=$(date +%s.%N)
echo "$result"
expired=$(jq .snapshots_expired <<<"$result")
queued=$(jq .data_files_queued <<<"$result")
floor=$(jq .new_earliest_snapshot_id <<<"$result")
awk -v n="$expired" -v f="$queued" -v a="$t0" -v b="$t1" 'BEGIN {
  printf "expired %d snapshots and queued %d files in %.3f s: %.0f snapshots/s\n", n, f, b - a, n / (b - a) }'
[ "$floor" = "$head" ] || { echo "floor $floor did not reach head $head" >&2; exit 1; }
[ "$queued" = "$files" ] || { echo "queued $queued of $files ended files" >&2; exit 1; }

# The peer: the bare SQL on the identical "peer" catalog, one transaction.
peer_head=$(psql -tA "$db_url" -c "SELECT last_snapshot_id FROM hog_catalog WHERE name = 'peer'")
p0=$(date +%s.%N)
psql -q -v ON_ERROR_STOP=1 "$db_url" >/dev/null <<SQL
BEGIN;
SELECT catalog_id AS c FROM hog_catalog WHERE name = 'peer' \gset
DELETE FROM hog_snapshot_change WHERE catalog_id = :c AND snapshot_id < $peer_head;
DELETE FROM hog_snapshot WHERE catalog_id = :c AND snapshot_id < $peer_head;
WITH gone AS (DELETE FROM hog_data_file WHERE catalog_id = :c AND end_snapshot <= $peer_head
              RETURNING path)
INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)
  SELECT :c, path, 'data', 'snapshot_expiry' FROM gone;
UPDATE hog_catalog SET earliest_snapshot_id = $peer_head WHERE catalog_id = :c;
COMMIT;
SQL
p1=$(date +%s.%N)
awk -v n="$expired" -v a="$t0" -v b="$t1" -v c="$p0" -v d="$p1" 'BEGIN {
  printf "peer (bare SQL, one transaction): %.3f s, %.0f snapshots/s; ratio (expiry / peer) = %.2fx\n",
         d - c, n / (d - c), (d - c) / (b - a) }'
