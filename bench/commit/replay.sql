-- pgbench script: the statements hoglaked sends for one single-file append
-- commit with an idempotency key and a read_snapshot (src/server/commit/commit.c),
-- in its order and with its SQL text, one round trip each. run.sh runs it
-- with -M extended (what hoglaked does: PQexecParams, parsed and planned
-- every time) and -M prepared, with -D cat=NAME -D cid=N -D tid=N
-- -D tidarr={N} -D lockkey=K -D dp=DATA_PATH. Only the values differ: the
-- key is md5(...)::uuid and the path array an ARRAY[...] built here,
-- because pgbench cannot format strings. The history it leaves passes
-- check.sql like a real one.
\set r random(1, 9000000000000000000)
SELECT catalog_id, name, data_path, last_snapshot_id, schema_version, earliest_snapshot_id,
 (extract(epoch FROM earliest_snapshot_time) * 1000000)::bigint, snapshot_retention_seconds,
 consumer_floor FROM hog_catalog WHERE name = :cat;
BEGIN;
SELECT set_config('lock_timeout', '30000', true);
SELECT pg_advisory_xact_lock(:lockkey::bigint);
SELECT last_snapshot_id AS head, earliest_snapshot_id AS earliest FROM hog_catalog
 WHERE catalog_id = :cid \gset
SELECT fingerprint, snapshot_id, schema_version FROM hog_commit_receipt
 WHERE catalog_id = :cid AND idempotency_key = md5(:r::text || '-' || :client_id::text)::uuid;
SELECT t.table_id, t.table_uuid::text FROM hog_namespace n
 JOIN hog_table_version v ON v.catalog_id = n.catalog_id AND v.namespace_id = n.namespace_id
 JOIN hog_table t ON t.catalog_id = v.catalog_id AND t.table_id = v.table_id
 WHERE n.catalog_id = :cid AND n.name = 'bench' AND n.dropped_snapshot IS NULL
  AND v.name = 'events' AND v.end_snapshot IS NULL AND t.dropped_snapshot IS NULL;
SELECT DISTINCT object_id, kind IN ('table_dropped', 'table_altered')
 FROM hog_snapshot_change WHERE catalog_id = :cid AND snapshot_id > :head - 8
  AND object_id = ANY(:tidarr::bigint[]) AND kind IN ('table_dropped', 'table_altered');
SELECT s.spec_id, (SELECT count(*) FROM hog_partition_field f
  WHERE f.catalog_id = s.catalog_id AND f.table_id = s.table_id AND f.spec_id = s.spec_id)
 FROM hog_partition_spec s WHERE s.catalog_id = :cid AND s.table_id = :tid
  AND s.end_snapshot IS NULL;
SELECT field_id, col_type, coalesce((type_params->>'precision')::int, 0),
 coalesce((type_params->>'scale')::int, 0) FROM hog_column
 WHERE catalog_id = :cid AND table_id = :tid AND end_snapshot IS NULL ORDER BY field_id;
SELECT path FROM hog_file_removal WHERE catalog_id = :cid AND drained_at IS NULL
 AND path = ANY(ARRAY[:dp::text || '/data/bench/events/replay-' || :client_id::text || '-'
                      || :r::text || '.parquet']) LIMIT 1;
UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + 1, next_file_id = next_file_id + 1
 WHERE catalog_id = :cid RETURNING last_snapshot_id AS snap, next_file_id - 1 AS fid,
 schema_version AS sv \gset
INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version, author,
 commit_message) VALUES (:cid, :snap, clock_timestamp(), :sv, 'replay', 'replay');
INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)
 SELECT :cid, :snap, u.kind, u.id FROM unnest('{table_inserted_into}'::text[], :tidarr::bigint[])
 AS u(kind, id);
UPDATE hog_table_stats s SET next_row_id = s.next_row_id + u.recs,
 record_count = s.record_count + u.recs, file_size_bytes = s.file_size_bytes + u.bytes
 FROM unnest(:tidarr::bigint[], '{100000}'::bigint[], '{2804096}'::bigint[]) AS u(tid, recs, bytes)
 WHERE s.catalog_id = :cid AND s.table_id = u.tid
  AND s.next_row_id <= 9223372036854775807 - u.recs
  AND s.file_size_bytes <= 9223372036854775807 - u.bytes
 RETURNING s.table_id AS rtid, s.next_row_id - u.recs AS rid \gset
INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot, path,
 record_count, file_size_bytes, footer_size, row_id_start, stats_state, spec_id, split_offsets,
 explicit_row_ids, column_stats)
 SELECT :cid, u.id, u.tid, :snap, u.path, u.recs, u.size, u.footer, u.rid, u.state, u.spec,
 u.splits::bigint[], false, u.stats
 FROM unnest(ARRAY[:fid]::bigint[], :tidarr::bigint[],
  ARRAY[:dp::text || '/data/bench/events/replay-' || :client_id::text || '-' || :r::text
        || '.parquet'], '{100000}'::bigint[], '{2804096}'::bigint[], '{2048}'::bigint[],
  ARRAY[:rid]::bigint[], '{provided}'::text[], '{NULL}'::bigint[], '{NULL}'::text[],
  -- the four columns of statistics commit_bench sends, encoded (column_stats.h)
  ARRAY['\x010e01a08d060080b51808010000000000000008a0860100000000000e02a08d0600a0c21e080000b0b8a30e06000800d6d2c1a30e06000e03a08d0600a08d060801000000000000000833000000000000000204a08d068827c0ee6d']::bytea[])
 AS u(id, tid, path, recs, size, footer, rid, state, spec, splits, stats);
INSERT INTO hog_commit_receipt (catalog_id, idempotency_key, fingerprint, snapshot_id,
 schema_version) VALUES (:cid, md5(:r::text || '-' || :client_id::text)::uuid,
 '\x01'::bytea || sha256(:r::text::bytea), :snap, :sv);
COMMIT;
