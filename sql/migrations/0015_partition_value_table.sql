-- hoglake catalog schema, version 15: a file's partition values know its
-- table, and the partition filter's index leads with it.
--
-- A scan or file listing with a partition filter (one day of a table) took
-- its candidates from hog_file_partition_value_lookup on (catalog,
-- key_index, value): that day's files of every table in the catalog, each
-- then probed in hog_data_file to keep the asked table's. On the 1x
-- catalog (bench/scale: 500 tables, 10M files) one day of a 1M-file table
-- read 11,640 candidates to keep 1,090, 46,561 buffers, 192 ms p99: the
-- cost grew with the catalog, not the table. The row now carries its
-- file's table id (8 bytes a row, 8 an index entry) and the lookup index
-- is (catalog, table, key_index, value, data_file_id), so the filter reads
-- the asked table's candidates only.
--
-- Existing rows move to a new table in this migration's transaction, with
-- their keys and indexes built after the copy: an UPDATE of every row
-- would leave each index and the heap twice their size (a row version
-- per row, old and new) for as long as the catalog lives.
ALTER TABLE hog_file_partition_value RENAME TO hog_file_partition_value_v14;
ALTER INDEX hog_file_partition_value_pkey RENAME TO hog_file_partition_value_v14_pkey;

CREATE TABLE hog_file_partition_value (
    catalog_id   bigint NOT NULL,
    data_file_id bigint NOT NULL,
    key_index    int    NOT NULL CHECK (key_index >= 0),
    value        text,
    table_id     bigint NOT NULL
);

INSERT INTO hog_file_partition_value (catalog_id, data_file_id, key_index, value, table_id)
SELECT pv.catalog_id, pv.data_file_id, pv.key_index, pv.value, d.table_id
FROM hog_file_partition_value_v14 pv
JOIN hog_data_file d ON d.catalog_id = pv.catalog_id AND d.data_file_id = pv.data_file_id
ORDER BY pv.catalog_id, pv.data_file_id, pv.key_index;

DROP TABLE hog_file_partition_value_v14;

ALTER TABLE hog_file_partition_value
    ADD PRIMARY KEY (catalog_id, data_file_id, key_index),
    ADD FOREIGN KEY (catalog_id, data_file_id) REFERENCES hog_data_file ON DELETE CASCADE;

CREATE INDEX hog_file_partition_value_in_table
    ON hog_file_partition_value (catalog_id, table_id, key_index, value, data_file_id);
