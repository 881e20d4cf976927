-- hoglake catalog schema, version 8: upload claims are reclaimed.
--
-- A writer claims a path before it uploads there (hog_upload). A claim
-- its writer abandons, or whose lease runs out, is queued for removal with
-- reason upload_abandoned; cleanup deletes the object, if any, after its
-- usual reference check. The constraint also keeps orphan_sweep, the
-- reason of the orphan sweep's queue rows (version 7).
ALTER TABLE hog_file_removal DROP CONSTRAINT hog_file_removal_reason_check;
ALTER TABLE hog_file_removal ADD CONSTRAINT hog_file_removal_reason_check
    CHECK (reason IN ('snapshot_expiry', 'table_drop_gc', 'compaction_staging', 'trino_upload',
                      'orphan_sweep', 'upload_abandoned'));
-- Abandoned claims not queued yet, for schedule-expired.
CREATE INDEX hog_upload_unscheduled ON hog_upload (catalog_id, upload_id)
    WHERE state = 'abandoned' AND last_scheduled_at IS NULL;
