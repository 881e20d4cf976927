-- hoglake catalog schema, version 18: retirement marks a table and then
-- reclaims its files in place, outside the catalog lock.
--
-- Retirement used to move every file row of a dropped table into the
-- removal queue under the catalog lock, a page at a time: at 17.6-20.9 us
-- a row in the 1x bench/scale catalog (a 1.2M-file table held every commit
-- of its catalog for 21-25 s in all), then cleanup claimed, checked and
-- settled each queue row again. A retired table's file rows are already a
-- list of what to delete, and nothing can read them (the drop is at or
-- below the floor) or register their paths again (the commit path refuses
-- a path any file row names). So retirement now only marks the table
-- under the lock (retired_at, one row) and deletes its objects, then its
-- rows, page by page without the lock; a page's transaction holds the
-- table's row (FOR NO KEY UPDATE SKIP LOCKED), so two servers never work
-- the same table and a server that dies mid-page leaves it to the next.
-- Tables a version-17 server left half retired are marked by the next run
-- like any other eligible table.
ALTER TABLE hog_table ADD COLUMN retired_at timestamptz;
ALTER TABLE hog_table ADD CONSTRAINT hog_table_retired_dropped
    CHECK (retired_at IS NULL OR dropped_snapshot IS NOT NULL);
CREATE INDEX hog_table_retired ON hog_table (catalog_id, retired_at, table_id)
    WHERE retired_at IS NOT NULL;
-- The mark, under the lock, finds the dropped tables not yet marked
-- without walking every table of the catalog (54,500 in the 1x catalog).
CREATE INDEX hog_table_dropped ON hog_table (catalog_id, dropped_snapshot)
    WHERE dropped_snapshot IS NOT NULL AND retired_at IS NULL;
