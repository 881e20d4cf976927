-- hoglake catalog schema, version 14: a commit keeps its tables' totals itself.
--
-- Migration 10's statement triggers keep hog_table_live_totals right for
-- every path that writes file or change rows. A commit paid for them twice:
-- the insert of its change rows and the insert of its files each ran a
-- PL/pgSQL trigger that grouped a transition table and upserted the same
-- totals row (with a probe of the change rows first), about a tenth of the
-- database's time per single-file commit (bench/commit, pg_stat_statements).
-- A commit knows its own delta exactly: every file it inserts is live, and
-- its snapshot is new, so each table it names counts one more snapshot. It
-- now upserts that delta in the statement that advances the table's
-- row-id allocator, and says so with the transaction-local setting
-- hoglake.commit_totals (server/store/commit_batch.c sets it with the
-- commit's lock), under which the two insert triggers do not fire. Every
-- other writer (DDL, compaction, expiry, retirement, deletes' ended files)
-- keeps the triggers.
DROP TRIGGER hog_live_totals_files_inserted ON hog_data_file;
CREATE TRIGGER hog_live_totals_files_inserted AFTER INSERT ON hog_data_file
    REFERENCING NEW TABLE AS new_files
    FOR EACH STATEMENT
    WHEN (current_setting('hoglake.commit_totals', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION hog_live_totals_files_inserted();

DROP TRIGGER hog_live_totals_changes_inserted ON hog_snapshot_change;
CREATE TRIGGER hog_live_totals_changes_inserted AFTER INSERT ON hog_snapshot_change
    REFERENCING NEW TABLE AS new_changes
    FOR EACH STATEMENT
    WHEN (current_setting('hoglake.commit_totals', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION hog_live_totals_changes_inserted();
