-- hoglake catalog schema, version 12: a namespace's tables listed from one index.
--
-- A listing (GET .../namespaces/{ns}/tables) joined each visible version row
-- to hog_table (for table_uuid) and to hog_table_live_totals (for the
-- totals): a hash join over every table of the catalog, or two index probes
-- per listed table. For a namespace of 54,000 tables that was 100 ms of
-- PostgreSQL time, and a namespace of 500 tables hashed all 54,500 tables
-- of its catalog (bench/scale).
--
-- Each table's row of hog_table_live_totals now also holds what a listing
-- shows of its live version: namespace, name, comment, table_uuid, and the
-- version's begin snapshot (listed_snapshot); all NULL once the table is
-- dropped. A listing at snapshot S walks hog_table_live_totals_listing in
-- name order, keeps the rows whose version began at or before S, and merges
-- in the few version rows that were live at S but have ended since (from
-- hog_table_version_ended_by_namespace). A trigger on hog_table_version
-- keeps the copy, in the writing transaction, whatever path writes a
-- version.

ALTER TABLE hog_table_live_totals
    ADD COLUMN namespace_id    bigint,
    ADD COLUMN name            text,
    ADD COLUMN comment         text,
    ADD COLUMN table_uuid      uuid,
    ADD COLUMN listed_snapshot bigint;

-- Not unique: hog_table_version_live_name keeps live names unique.
CREATE INDEX hog_table_live_totals_listing
    ON hog_table_live_totals (catalog_id, namespace_id, name) WHERE name IS NOT NULL;

-- The versions that have ended, by namespace and end: a listing at S reads
-- only those that ended after S (none, at the head).
CREATE INDEX hog_table_version_ended_by_namespace
    ON hog_table_version (catalog_id, namespace_id, end_snapshot) WHERE end_snapshot IS NOT NULL;

-- A version row that stops being live clears its table's copy (only if the
-- copy is still that version's); one that is live sets it. The WHEN
-- clauses keep the function off the rows that were never live: expiry
-- deletes ended versions by the thousand.
CREATE FUNCTION hog_live_listing_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.end_snapshot IS NULL THEN
        UPDATE hog_table_live_totals SET namespace_id = NULL, name = NULL, comment = NULL,
            listed_snapshot = NULL
        WHERE catalog_id = OLD.catalog_id AND table_id = OLD.table_id
          AND listed_snapshot = OLD.begin_snapshot;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.end_snapshot IS NULL THEN
        INSERT INTO hog_table_live_totals AS l
            (catalog_id, table_id, namespace_id, name, comment, table_uuid, listed_snapshot)
        SELECT NEW.catalog_id, NEW.table_id, NEW.namespace_id, NEW.name, NEW.comment,
               t.table_uuid, NEW.begin_snapshot
        FROM hog_table t WHERE t.catalog_id = NEW.catalog_id AND t.table_id = NEW.table_id
        ON CONFLICT (catalog_id, table_id) DO UPDATE SET
            namespace_id = EXCLUDED.namespace_id, name = EXCLUDED.name,
            comment = EXCLUDED.comment, table_uuid = EXCLUDED.table_uuid,
            listed_snapshot = EXCLUDED.listed_snapshot;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER hog_live_listing_inserted AFTER INSERT ON hog_table_version
    FOR EACH ROW WHEN (NEW.end_snapshot IS NULL) EXECUTE FUNCTION hog_live_listing_version();
CREATE TRIGGER hog_live_listing_updated AFTER UPDATE ON hog_table_version
    FOR EACH ROW WHEN (OLD.end_snapshot IS NULL OR NEW.end_snapshot IS NULL)
    EXECUTE FUNCTION hog_live_listing_version();
CREATE TRIGGER hog_live_listing_deleted AFTER DELETE ON hog_table_version
    FOR EACH ROW WHEN (OLD.end_snapshot IS NULL) EXECUTE FUNCTION hog_live_listing_version();

-- Every live version as it stands (the trigger above already holds the
-- table's lock, so no version is written meanwhile).
UPDATE hog_table_live_totals l SET namespace_id = v.namespace_id, name = v.name,
    comment = v.comment, table_uuid = t.table_uuid, listed_snapshot = v.begin_snapshot
FROM hog_table_version v JOIN hog_table t USING (catalog_id, table_id)
WHERE v.end_snapshot IS NULL AND l.catalog_id = v.catalog_id AND l.table_id = v.table_id;
