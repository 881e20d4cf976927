-- pgbench script: the same commit as replay.sql, with the same rows and
-- checks, batched the way a server could send it: the schema reads before
-- the lock, then under the lock one read statement (head, receipt,
-- conflict check, removal queue) and one write statement (every row, as
-- data-modifying CTEs), then COMMIT. Run with -M prepared. This is a
-- what-if for docs/benchmarks.md, not what hoglaked does.
\set r random(1, 9000000000000000000)
SELECT catalog_id, name, data_path, last_snapshot_id, schema_version, earliest_snapshot_id,
 (extract(epoch FROM earliest_snapshot_time) * 1000000)::bigint, snapshot_retention_seconds,
 consumer_floor FROM hog_catalog WHERE name = :cat;
SELECT t.table_id, t.table_uuid::text,
 (SELECT s.spec_id FROM hog_partition_spec s WHERE s.catalog_id = t.catalog_id
   AND s.table_id = t.table_id AND s.end_snapshot IS NULL),
 (SELECT string_agg(field_id || ':' || col_type, ',' ORDER BY field_id) FROM hog_column c
   WHERE c.catalog_id = t.catalog_id AND c.table_id = t.table_id AND c.end_snapshot IS NULL)
 FROM hog_namespace n
 JOIN hog_table_version v ON v.catalog_id = n.catalog_id AND v.namespace_id = n.namespace_id
 JOIN hog_table t ON t.catalog_id = v.catalog_id AND t.table_id = v.table_id
 WHERE n.catalog_id = :cid AND n.name = 'bench' AND n.dropped_snapshot IS NULL
  AND v.name = 'events' AND v.end_snapshot IS NULL AND t.dropped_snapshot IS NULL;
BEGIN;
SELECT set_config('lock_timeout', '30000', true), pg_advisory_xact_lock(:lockkey::bigint);
SELECT c.last_snapshot_id, c.earliest_snapshot_id, c.schema_version,
 (SELECT fingerprint FROM hog_commit_receipt WHERE catalog_id = :cid
   AND idempotency_key = md5(:r::text || '-' || :client_id::text)::uuid),
 (SELECT count(*) FROM hog_snapshot_change WHERE catalog_id = :cid
   AND snapshot_id > c.last_snapshot_id - 8 AND object_id = ANY(:tidarr::bigint[])
   AND kind IN ('table_dropped', 'table_altered')),
 (SELECT path FROM hog_file_removal WHERE catalog_id = :cid AND drained_at IS NULL
   AND path = ANY(ARRAY[:dp::text || '/data/bench/events/replay-' || :client_id::text || '-'
                        || :r::text || '.parquet']) LIMIT 1)
 FROM hog_catalog c WHERE c.catalog_id = :cid;
WITH c AS (UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + 1,
   next_file_id = next_file_id + 1 WHERE catalog_id = :cid
   RETURNING last_snapshot_id AS snap, next_file_id - 1 AS fid, schema_version AS sv),
 s AS (INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version, author,
   commit_message) SELECT :cid, snap, clock_timestamp(), sv, 'replay', 'replay' FROM c),
 x AS (INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)
   SELECT :cid, snap, 'table_inserted_into', :tid FROM c),
 r AS (UPDATE hog_table_stats SET next_row_id = next_row_id + 100000,
   record_count = record_count + 100000, file_size_bytes = file_size_bytes + 2804096
   WHERE catalog_id = :cid AND table_id = :tid RETURNING next_row_id - 100000 AS rid),
 f AS (INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot, path,
   record_count, file_size_bytes, footer_size, row_id_start, stats_state, column_stats)
   SELECT :cid, fid, :tid, snap, :dp::text || '/data/bench/events/replay-' || :client_id::text
     || '-' || :r::text || '.parquet', 100000, 2804096, 2048, rid, 'provided',
     -- the four columns of statistics commit_bench sends, encoded (column_stats.h)
     '\x010e01a08d060080b51808010000000000000008a0860100000000000e02a08d0600a0c21e080000b0b8a30e06000800d6d2c1a30e06000e03a08d0600a08d060801000000000000000833000000000000000204a08d068827c0ee6d'::bytea FROM c, r),
 rc AS (INSERT INTO hog_commit_receipt (catalog_id, idempotency_key, fingerprint, snapshot_id,
   schema_version) SELECT :cid, md5(:r::text || '-' || :client_id::text)::uuid,
   '\x01'::bytea || sha256(:r::text::bytea), snap, sv FROM c)
SELECT snap FROM c;
COMMIT;
