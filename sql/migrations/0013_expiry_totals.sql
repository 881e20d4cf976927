-- hoglake catalog schema, version 13: expiry tells the table totals'
-- trigger that it deletes whole snapshots.
--
-- A (table, snapshot) pair stops counting in snapshot_count when its last
-- table-scoped change row is deleted. Migration 10's trigger checked that
-- for every deleted pair, with one index probe per kind on rows the
-- statement had just deleted: 677 of the 950 ms that expiring 20,000
-- snapshots took (bench/scale, 0.01x). Expiry deletes every change row of
-- a range of snapshots in one statement, so each pair it deletes is gone:
-- it says so with the transaction-local setting hoglake.whole_snapshots
-- (server/store/retention.c), and the trigger then only counts the pairs.
-- Any other delete (a catalog's, by cascade) keeps the general check.
CREATE OR REPLACE FUNCTION hog_live_totals_changes_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('hoglake.whole_snapshots', true) = 'on' THEN
        UPDATE hog_table_live_totals l SET snapshot_count = l.snapshot_count - d.gone
        FROM (SELECT catalog_id, object_id, count(DISTINCT snapshot_id) AS gone
              FROM old_changes
              WHERE kind IN ('table_created', 'table_dropped', 'table_altered',
                             'table_inserted_into', 'table_deleted_from', 'table_compacted')
              GROUP BY catalog_id, object_id) d
        WHERE l.catalog_id = d.catalog_id AND l.table_id = d.object_id;
        RETURN NULL;
    END IF;
    UPDATE hog_table_live_totals l SET snapshot_count = l.snapshot_count - d.gone
    FROM (SELECT p.catalog_id, p.object_id, count(DISTINCT snapshot_id) AS gone
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
