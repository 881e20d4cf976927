-- hoglake catalog schema, version 9: time travel by timestamp is an index probe.
--
-- ?at_timestamp= resolves to the latest snapshot stamped at or before the
-- instant. Without an index on the stamp, PostgreSQL walked the primary key
-- backwards from the head, filtering on the time: the cost grew with how
-- far back the instant was (25 ms at 20,000 snapshots back; a second at a
-- million). Snapshot ids are allocated and stamped (clock_timestamp())
-- under the same catalog lock, so the stamps rise with the ids and the
-- latest stamp at or before the instant is also the highest id there.
CREATE INDEX hog_snapshot_time ON hog_snapshot (catalog_id, snapshot_time, snapshot_id);
