-- hoglake catalog schema, version 16: the consumer listing walks an index
-- in its own order, a page at a time.
--
-- GET .../consumers answered every offset of the catalog in one response,
-- ordered by consumer id bytewise: a writer's offsets (one per consumer
-- and table incarnation) made it as large as they liked. It now answers in
-- pages that resume after the last (consumer id, table uuid) returned; the
-- primary key orders consumer ids by the database's collation, not
-- bytewise, so each page needs this index to start where the last ended
-- without sorting the catalog's offsets.
CREATE INDEX hog_consumer_offset_listing
    ON hog_consumer_offset (catalog_id, (consumer_id COLLATE "C"), table_uuid);
