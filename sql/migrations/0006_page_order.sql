-- hoglake catalog schema, version 6: indexes in the order reads are paged.
--
-- GET .../files, .../scan and .../changes answer in pages of at most
-- `limit` entries, each resuming after the previous page's last key (a
-- keyset, never an OFFSET). A page must cost what it returns, not what the
-- table holds, so each listing walks an index in its page order from the
-- key and stops after the page:
--
--  * Data files in (begin_snapshot, row_id_start, data_file_id), the order
--    of the scan plan, the changefeed and the default file listing. The
--    changefeed index on (catalog_id, table_id, begin_snapshot) alone made
--    PostgreSQL read and sort every file of a commit for each page: all of
--    a 100,000-file commit for every page of it. The new index has the old
--    one as its prefix, so it replaces it.
--  * Deletion vectors of one commit in delete_file_id order (the
--    changefeed's second listing), replacing the changefeed index likewise.
--  * The vector of a data file at any snapshot. Only a partial index over
--    live vectors existed, which a time-travel read cannot use: each scan
--    page then hashed every vector of the catalog (measured: 280 ms for a
--    page of 1,000 files beside 50,000 vectors, 16 ms with this index). It
--    also serves the cascade from hog_data_file when expiry purges files.
CREATE INDEX hog_data_file_page
    ON hog_data_file (catalog_id, table_id, begin_snapshot, row_id_start, data_file_id);
DROP INDEX hog_data_file_changefeed;

CREATE INDEX hog_delete_file_page
    ON hog_delete_file (catalog_id, table_id, begin_snapshot, delete_file_id);
DROP INDEX hog_delete_file_changefeed;

CREATE INDEX hog_delete_file_target
    ON hog_delete_file (catalog_id, data_file_id, begin_snapshot);
