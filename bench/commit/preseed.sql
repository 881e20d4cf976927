-- Appends :n snapshots of :f files each to table :tid of catalog :cid, as
-- if :n append commits had gone through POST /commit one after another
-- (bench/commit/run.sh; psql variables cid, tid, n, f). It writes what
-- src/server/commit/commit.c writes, under the same catalog lock:
--   * hog_snapshot rows with dense ids after the head, times strictly
--     increasing between the head's time and now, the catalog's
--     schema_version (a data commit does not bump it);
--   * one table_inserted_into change row per snapshot;
--   * :f hog_data_file rows per snapshot, ids from next_file_id in order,
--     row ranges tiling on from the table's next_row_id;
--   * statistics on four columns per file, like commit_bench's (long bounds
--     as 8-byte little-endian, as the commit path stores them), encoded by
--     migration 11's hog_column_stats_entry;
--   * one hog_commit_receipt per snapshot (version byte + SHA-256);
--   * hog_table_stats and the hog_catalog allocators advanced to match.
\set ON_ERROR_STOP on
BEGIN;
SELECT pg_advisory_xact_lock((4740871::bigint << 32) | (:cid::bigint & 4294967295));
CREATE FUNCTION pg_temp.le8(v bigint) RETURNS bytea LANGUAGE sql IMMUTABLE
RETURN decode(lpad(to_hex(v & 255), 2, '0') || lpad(to_hex((v >> 8) & 255), 2, '0') ||
              lpad(to_hex((v >> 16) & 255), 2, '0') || lpad(to_hex((v >> 24) & 255), 2, '0') ||
              lpad(to_hex((v >> 32) & 255), 2, '0') || lpad(to_hex((v >> 40) & 255), 2, '0') ||
              lpad(to_hex((v >> 48) & 255), 2, '0') || lpad(to_hex((v >> 56) & 255), 2, '0'),
              'hex');
SELECT c.last_snapshot_id AS head, c.schema_version AS sv, c.next_file_id AS nf,
       s.next_row_id AS nr, sn.snapshot_time AS t_head,
       coalesce((SELECT spec_id FROM hog_partition_spec p WHERE p.catalog_id = c.catalog_id
         AND p.table_id = :tid AND p.end_snapshot IS NULL)::text, '') AS spec
FROM hog_catalog c
JOIN hog_table_stats s ON s.catalog_id = c.catalog_id AND s.table_id = :tid
JOIN hog_snapshot sn ON sn.catalog_id = c.catalog_id AND sn.snapshot_id = c.last_snapshot_id
WHERE c.catalog_id = :cid \gset
CREATE TEMP TABLE seed ON COMMIT DROP AS
SELECT g::bigint AS k, :head + g AS snap,
       :'t_head'::timestamptz + (clock_timestamp() - :'t_head'::timestamptz) * (g::float8 / :n)
           AS at
FROM generate_series(1, :n) g;
INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version, author,
                          commit_message)
SELECT :cid, snap, at, :sv, 'preseed', 'preseed ' || k FROM seed;
INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)
SELECT :cid, snap, 'table_inserted_into', :tid FROM seed;
-- File j of snapshot k is the ((k-1)*f + j)-th preseeded file: 10,000 rows.
CREATE TEMP TABLE seed_file ON COMMIT DROP AS
SELECT :nf + (k - 1) * :f + j AS id, snap, ((k - 1) * :f + j)::bigint AS nth
FROM seed, generate_series(0, :f - 1) j;
INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot, path,
                           record_count, file_size_bytes, footer_size, row_id_start,
                           stats_state, spec_id, column_stats)
SELECT :cid, id, :tid, snap,
       (SELECT data_path FROM hog_catalog WHERE catalog_id = :cid)
           || '/data/bench/events/preseed-' || nth || '.parquet',
       10000, 284096, 2048, :nr + nth * 10000, 'provided', nullif(:'spec', '')::bigint,
       '\x01'::bytea
       || hog_column_stats_entry(1, 10000, 0, NULL, 40000, pg_temp.le8(nth * 10000),
                                 pg_temp.le8(nth * 10000 + 9999))
       || hog_column_stats_entry(2, 10000, 0, NULL, 40000,
                                 pg_temp.le8(1704067200000000 + nth * 60000000),
                                 pg_temp.le8(1704067200000000 + nth * 60000000 + 59000000))
       || hog_column_stats_entry(3, 10000, 0, NULL, 40000, pg_temp.le8(nth % 10000),
                                 pg_temp.le8(nth % 10000 + 50))
       || hog_column_stats_entry(4, 10000, 500, NULL, 40000, NULL, NULL)
FROM seed_file;
INSERT INTO hog_commit_receipt (catalog_id, idempotency_key, fingerprint, snapshot_id,
                                schema_version, created_at)
SELECT :cid, gen_random_uuid(), '\x01'::bytea || sha256(('preseed ' || :cid || ' ' || k)::bytea),
       snap, :sv, at FROM seed;
UPDATE hog_table_stats SET next_row_id = next_row_id + :n::bigint * :f * 10000,
       record_count = record_count + :n::bigint * :f * 10000,
       file_size_bytes = file_size_bytes + :n::bigint * :f * 284096
WHERE catalog_id = :cid AND table_id = :tid;
UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + :n,
       next_file_id = next_file_id + :n::bigint * :f
WHERE catalog_id = :cid;
COMMIT;
