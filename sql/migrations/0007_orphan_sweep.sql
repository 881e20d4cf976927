-- hoglake catalog schema, version 7: the orphan sweep.
--
-- The sweep lists a catalog's storage and deletes the objects nothing
-- references. It deletes only through the removal queue, so that cleanup's
-- liveness re-check and the commits' path guard stand between its listing
-- and the delete: each orphan is queued with reason 'orphan_sweep' and
-- drained at once. Its runs are recorded under the task 'orphans'.
ALTER TABLE hog_file_removal DROP CONSTRAINT hog_file_removal_reason_check;
ALTER TABLE hog_file_removal ADD CONSTRAINT hog_file_removal_reason_check
    CHECK (reason IN ('snapshot_expiry', 'table_drop_gc', 'compaction_staging', 'trino_upload',
                      'orphan_sweep'));

ALTER TABLE hog_maintenance_run DROP CONSTRAINT hog_maintenance_run_task_check;
ALTER TABLE hog_maintenance_run ADD CONSTRAINT hog_maintenance_run_task_check
    CHECK (task IN ('hydrator', 'expiry', 'cleanup', 'compaction', 'verify', 'retirement',
                    'reindex', 'orphans'));
