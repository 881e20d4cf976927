-- hoglake catalog schema, version 10: each table's totals, kept as it changes.
--
-- A table's record_count, file_count, file_size_bytes and snapshot_count
-- (GET .../tables/{t} and every TableSummary of a namespace listing) were
-- aggregates over its live file rows and its change rows, on every read:
-- a cost that grew with the table (10.8 ms for a table of 12,000 files, a
-- second at 1.2M) and, for a listing, with the namespace (845 ms for 54,000
-- empty tables; 126 ms for 500 tables holding 100,000 files). bench/scale
-- measured both.
--
-- hog_table_live_totals holds them at the head, maintained by statement
-- triggers on the rows they count, so every path that adds or ends a file
-- or records a change (commits, deletes, truncates, compaction, expiry,
-- retirement) keeps them right without knowing about them, and a
-- statement's rows cost one grouped update per table. changed_snapshot is
-- the last snapshot that changed them: a read at any snapshot at or after
-- it takes them as they are; a read further back (time travel) computes
-- them, as before, with hog_table_totals_at. The triggers and the backfill
-- run in this migration's transaction, so no write falls between them.

CREATE TYPE hog_table_totals AS (records bigint, files bigint, bytes bigint, snapshots bigint);

-- Totals at a snapshot, from the rows (the definition the table keeps).
CREATE FUNCTION hog_table_totals_at(p_catalog bigint, p_table bigint, p_snapshot bigint)
RETURNS hog_table_totals LANGUAGE sql STABLE AS $$
    SELECT ROW(f.records, f.files, f.bytes, c.snapshots)::hog_table_totals
    FROM (SELECT coalesce(sum(d.record_count), 0)::bigint AS records, count(*) AS files,
                 coalesce(sum(d.file_size_bytes), 0)::bigint AS bytes
          FROM hog_data_file d WHERE d.catalog_id = p_catalog AND d.table_id = p_table
          AND hog_visible(d.begin_snapshot, d.end_snapshot, p_snapshot)) f,
         (SELECT count(DISTINCT sc.snapshot_id) AS snapshots FROM hog_snapshot_change sc
          WHERE sc.catalog_id = p_catalog AND sc.object_id = p_table
          AND sc.snapshot_id <= p_snapshot AND sc.kind IN ('table_created', 'table_dropped',
              'table_altered', 'table_inserted_into', 'table_deleted_from', 'table_compacted')) c
$$;

CREATE TABLE hog_table_live_totals (
    catalog_id       bigint NOT NULL,
    table_id         bigint NOT NULL,
    record_count     bigint NOT NULL DEFAULT 0,
    file_count       bigint NOT NULL DEFAULT 0,
    file_size_bytes  bigint NOT NULL DEFAULT 0,
    snapshot_count   bigint NOT NULL DEFAULT 0,
    changed_snapshot bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (catalog_id, table_id),
    -- Deferred: a table's first change row may be written before its
    -- hog_table row within the creating transaction.
    FOREIGN KEY (catalog_id, table_id) REFERENCES hog_table ON DELETE CASCADE
        DEFERRABLE INITIALLY DEFERRED
);

-- Files: a live row (end_snapshot NULL) counts. Inserts add the live rows;
-- updates add the new live rows and take away the old ones (a transition
-- table pairs no rows, and need not: the sums by table are what change);
-- deletes take away the live rows deleted. changed_snapshot moves to every
-- snapshot where a row appears or ends (a row may be written already ended,
-- as a history rewrite does).
CREATE FUNCTION hog_live_totals_files_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO hog_table_live_totals AS l
        (catalog_id, table_id, record_count, file_count, file_size_bytes, changed_snapshot)
    SELECT catalog_id, table_id,
           coalesce(sum(record_count) FILTER (WHERE end_snapshot IS NULL), 0),
           count(*) FILTER (WHERE end_snapshot IS NULL),
           coalesce(sum(file_size_bytes) FILTER (WHERE end_snapshot IS NULL), 0),
           max(greatest(begin_snapshot, coalesce(end_snapshot, 0)))
    FROM new_files GROUP BY catalog_id, table_id
    ON CONFLICT (catalog_id, table_id) DO UPDATE SET
        record_count = l.record_count + EXCLUDED.record_count,
        file_count = l.file_count + EXCLUDED.file_count,
        file_size_bytes = l.file_size_bytes + EXCLUDED.file_size_bytes,
        changed_snapshot = greatest(l.changed_snapshot, EXCLUDED.changed_snapshot);
    RETURN NULL;
END $$;

CREATE FUNCTION hog_live_totals_files_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE hog_table_live_totals l SET
        record_count = l.record_count + d.records,
        file_count = l.file_count + d.files,
        file_size_bytes = l.file_size_bytes + d.bytes,
        changed_snapshot = greatest(l.changed_snapshot, coalesce(d.ended, 0))
    FROM (SELECT catalog_id, table_id, sum(n) AS files, sum(r) AS records, sum(b) AS bytes,
                 max(e) AS ended
          FROM (SELECT catalog_id, table_id, 1 AS n, record_count AS r, file_size_bytes AS b,
                       NULL::bigint AS e FROM new_files WHERE end_snapshot IS NULL
                UNION ALL
                SELECT catalog_id, table_id, -1, -record_count, -file_size_bytes, NULL
                FROM old_files WHERE end_snapshot IS NULL
                UNION ALL
                SELECT catalog_id, table_id, 0, 0, 0, end_snapshot
                FROM new_files WHERE end_snapshot IS NOT NULL) x
          GROUP BY catalog_id, table_id) d
    WHERE l.catalog_id = d.catalog_id AND l.table_id = d.table_id
      AND (d.files <> 0 OR d.records <> 0 OR d.bytes <> 0);
    RETURN NULL;
END $$;

CREATE FUNCTION hog_live_totals_files_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE hog_table_live_totals l SET
        record_count = l.record_count - d.records,
        file_count = l.file_count - d.files,
        file_size_bytes = l.file_size_bytes - d.bytes
    FROM (SELECT catalog_id, table_id, sum(record_count) AS records, count(*) AS files,
                 sum(file_size_bytes) AS bytes
          FROM old_files WHERE end_snapshot IS NULL GROUP BY catalog_id, table_id) d
    WHERE l.catalog_id = d.catalog_id AND l.table_id = d.table_id;
    RETURN NULL;
END $$;

-- Snapshots: a table counts each snapshot whose table-scoped changes name
-- it once, whatever their number. A (table, snapshot) pair counts when its
-- first change row is inserted and stops counting when its last is deleted
-- (expiry).
CREATE FUNCTION hog_live_totals_changes_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO hog_table_live_totals AS l (catalog_id, table_id, snapshot_count, changed_snapshot)
    SELECT p.catalog_id, p.object_id, count(*), max(p.snapshot_id)
    FROM (SELECT DISTINCT catalog_id, object_id, snapshot_id FROM new_changes
          WHERE kind IN ('table_created', 'table_dropped', 'table_altered',
                         'table_inserted_into', 'table_deleted_from', 'table_compacted')) p
    WHERE NOT EXISTS (
        SELECT 1 FROM hog_snapshot_change c
        WHERE c.catalog_id = p.catalog_id AND c.object_id = p.object_id
          AND c.snapshot_id = p.snapshot_id
          AND c.kind IN ('table_created', 'table_dropped', 'table_altered',
                         'table_inserted_into', 'table_deleted_from', 'table_compacted')
          AND NOT EXISTS (SELECT 1 FROM new_changes n WHERE n.catalog_id = c.catalog_id
                          AND n.object_id = c.object_id AND n.snapshot_id = c.snapshot_id
                          AND n.kind = c.kind))
    GROUP BY p.catalog_id, p.object_id
    ON CONFLICT (catalog_id, table_id) DO UPDATE SET
        snapshot_count = l.snapshot_count + EXCLUDED.snapshot_count,
        changed_snapshot = greatest(l.changed_snapshot, EXCLUDED.changed_snapshot);
    RETURN NULL;
END $$;

CREATE FUNCTION hog_live_totals_changes_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE hog_table_live_totals l SET snapshot_count = l.snapshot_count - d.gone
    FROM (SELECT p.catalog_id, p.object_id, count(*) AS gone
          FROM (SELECT DISTINCT catalog_id, object_id, snapshot_id FROM old_changes
                WHERE kind IN ('table_created', 'table_dropped', 'table_altered',
                               'table_inserted_into', 'table_deleted_from',
                               'table_compacted')) p
          WHERE NOT EXISTS (
              SELECT 1 FROM hog_snapshot_change c
              WHERE c.catalog_id = p.catalog_id AND c.object_id = p.object_id
                AND c.snapshot_id = p.snapshot_id
                AND c.kind IN ('table_created', 'table_dropped', 'table_altered',
                               'table_inserted_into', 'table_deleted_from', 'table_compacted'))
          GROUP BY p.catalog_id, p.object_id) d
    WHERE l.catalog_id = d.catalog_id AND l.table_id = d.object_id;
    RETURN NULL;
END $$;

CREATE TRIGGER hog_live_totals_files_inserted AFTER INSERT ON hog_data_file
    REFERENCING NEW TABLE AS new_files
    FOR EACH STATEMENT EXECUTE FUNCTION hog_live_totals_files_inserted();
CREATE TRIGGER hog_live_totals_files_updated AFTER UPDATE ON hog_data_file
    REFERENCING OLD TABLE AS old_files NEW TABLE AS new_files
    FOR EACH STATEMENT EXECUTE FUNCTION hog_live_totals_files_updated();
CREATE TRIGGER hog_live_totals_files_deleted AFTER DELETE ON hog_data_file
    REFERENCING OLD TABLE AS old_files
    FOR EACH STATEMENT EXECUTE FUNCTION hog_live_totals_files_deleted();
CREATE TRIGGER hog_live_totals_changes_inserted AFTER INSERT ON hog_snapshot_change
    REFERENCING NEW TABLE AS new_changes
    FOR EACH STATEMENT EXECUTE FUNCTION hog_live_totals_changes_inserted();
CREATE TRIGGER hog_live_totals_changes_deleted AFTER DELETE ON hog_snapshot_change
    REFERENCING OLD TABLE AS old_changes
    FOR EACH STATEMENT EXECUTE FUNCTION hog_live_totals_changes_deleted();

-- Every existing table, as its rows stand now (the triggers above already
-- hold the tables' locks, so nothing changes them meanwhile).
INSERT INTO hog_table_live_totals
    (catalog_id, table_id, record_count, file_count, file_size_bytes, snapshot_count,
     changed_snapshot)
SELECT t.catalog_id, t.table_id, coalesce(f.records, 0), coalesce(f.files, 0),
       coalesce(f.bytes, 0), coalesce(c.snapshots, 0), cat.last_snapshot_id
FROM hog_table t JOIN hog_catalog cat USING (catalog_id)
LEFT JOIN (SELECT catalog_id, table_id, sum(record_count) AS records, count(*) AS files,
                  sum(file_size_bytes) AS bytes
           FROM hog_data_file WHERE end_snapshot IS NULL GROUP BY catalog_id, table_id) f
    USING (catalog_id, table_id)
LEFT JOIN (SELECT catalog_id, object_id AS table_id, count(DISTINCT snapshot_id) AS snapshots
           FROM hog_snapshot_change
           WHERE kind IN ('table_created', 'table_dropped', 'table_altered',
                          'table_inserted_into', 'table_deleted_from', 'table_compacted')
           GROUP BY catalog_id, object_id) c
    USING (catalog_id, table_id);
