-- hoglake catalog schema, version 17: the statements that delete file rows
-- delete what hangs off them, instead of a cascade a row at a time.
--
-- Only retirement and expiry delete data file rows, a page of thousands
-- at a time, under the catalog lock every commit waits for. Each deleted
-- row fired two ON DELETE CASCADE triggers (its partition values, its
-- deletion vectors) and each queued path a foreign-key check on its
-- catalog: three internal queries a row. Retiring 100,000 rows of a
-- 1.2M-file table in the 1x bench/scale catalog took 1.78 s with them and
-- 1.02 s without (17.8 and 10.2 us a row; the same statement, warm).
--
-- Both statements now delete a page's partition values and deletion
-- vectors themselves, in the statement that deletes the page, so nothing
-- is left pointing at a deleted file; the test harness checks that on
-- every test database. Inserts keep their integrity from the commit path,
-- which writes a file's partition values with the file and checks a
-- deletion vector's target is live under the catalog lock; the queue's
-- rows name the catalog the statement holds the lock of.
ALTER TABLE hog_file_partition_value
    DROP CONSTRAINT hog_file_partition_value_catalog_id_data_file_id_fkey;
ALTER TABLE hog_delete_file
    DROP CONSTRAINT hog_delete_file_catalog_id_data_file_id_fkey;
ALTER TABLE hog_file_removal
    DROP CONSTRAINT hog_file_removal_catalog_id_fkey;
