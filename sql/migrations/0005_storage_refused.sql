-- hoglake catalog schema, version 5: removals the server refused.
--
-- Cleanup deletes a queued path only through a view of the store confined
-- to the catalog's data path: never outside it, never through a symbolic
-- link, only a regular file. A path it refuses is drained 'refused' (and
-- audited): waiting will not make it safe, so it is never retried.
ALTER TABLE hog_file_removal DROP CONSTRAINT hog_file_removal_drained_outcome_check;
ALTER TABLE hog_file_removal ADD CONSTRAINT hog_file_removal_drained_outcome_check
    CHECK (drained_outcome IN ('deleted', 'absent', 'registered', 'refused'));
