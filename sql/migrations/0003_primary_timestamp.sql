-- hoglake catalog schema, version 3: a table's primary timestamp column.
--
-- The setting is versioned with the rest of the table's mutable metadata
-- (name, comment, properties): setting or clearing it ends the live
-- hog_table_version row and begins a new one, so time travel sees the value
-- each snapshot had. It holds the column's field id, not its name, so a
-- rename carries it along. NULL means the table declares none.
--
-- There is no foreign key to hog_column (whose key includes begin_snapshot);
-- the server's alter rules keep the id live instead: the column must be a
-- top-level date or timestamp column, and dropping it is refused while the
-- setting names it.
ALTER TABLE hog_table_version
    ADD COLUMN primary_timestamp_field_id bigint
        CHECK (primary_timestamp_field_id IS NULL OR primary_timestamp_field_id >= 1);
