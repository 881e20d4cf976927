-- hoglake catalog schema, version 19: the partition summary, a sampled
-- aggregate of every catalog's live files by table, partition spec and
-- partition values (contract 7.5's summary sampler), read by
-- GET .../stats/partitions instead of the file rows.
--
-- Ranking partitions by compaction debt from the file rows reads every
-- live file of the catalog (9,999,310 rows in the 1x bench/scale
-- catalog): seconds. The summary sampler walks them instead in the
-- background, a batch at a time in data_file_id order, all at one
-- captured snapshot, and adds each batch into a new generation of
-- buckets; only a complete generation is published, so a reader sees one
-- consistent snapshot of the catalog's partitions, at most a refresh
-- interval (plus the walk) old.

-- One row per catalog: the published generation and the walk building
-- the next one.
CREATE TABLE hog_summary (
    catalog_id        bigint PRIMARY KEY REFERENCES hog_catalog ON DELETE CASCADE,
    -- The newest generation started (published or being built).
    generation        bigint NOT NULL DEFAULT 0 CHECK (generation >= 0),
    -- The walk in progress: the snapshot it counts at and the last
    -- data_file_id it added. All NULL when no walk is in progress.
    scan_snapshot     bigint,
    scan_after        bigint,
    scan_started_at   timestamptz,
    -- The published generation, when there is one: the snapshot its
    -- buckets count, when its walk started and ended, and its totals.
    published_generation bigint,
    published_snapshot   bigint,
    published_started_at timestamptz,
    published_at         timestamptz,
    live_files        bigint,
    live_bytes        bigint,
    live_rows         bigint,
    buckets           bigint,
    stale_spec_buckets bigint,
    CHECK ((scan_snapshot IS NULL) = (scan_after IS NULL)
           AND (scan_snapshot IS NULL) = (scan_started_at IS NULL)),
    CHECK ((published_generation IS NULL) = (published_at IS NULL)
           AND (published_generation IS NULL) = (published_snapshot IS NULL)
           AND (published_generation IS NULL) = (live_files IS NULL)),
    CHECK (published_generation IS NULL OR published_generation <= generation)
);

-- One row per (generation, table, spec, partition values): the live files
-- of that partition at the generation's snapshot. Files without a spec
-- (an unpartitioned table) have spec_id -1 and no values. "Small" is under
-- compaction's target size; debt is what compaction would take away: the
-- small files beyond the ones their bytes fill, plus the deletion vectors
-- it would fold into the rewrite.
CREATE TABLE hog_summary_bucket (
    catalog_id        bigint NOT NULL,
    generation        bigint NOT NULL,
    table_id          bigint NOT NULL,
    -- The table's namespace at the generation's snapshot (the report
    -- filters by it; names come from the head).
    namespace_id      bigint NOT NULL,
    spec_id           bigint NOT NULL CHECK (spec_id >= -1),
    partition_values  text[] NOT NULL,
    -- The spec is not the table's live one at the generation's snapshot.
    stale_spec        boolean NOT NULL,
    file_count        bigint NOT NULL CHECK (file_count > 0),
    small_count       bigint NOT NULL CHECK (small_count >= 0),
    total_bytes       bigint NOT NULL CHECK (total_bytes >= 0),
    small_bytes       bigint NOT NULL CHECK (small_bytes >= 0),
    dv_count          bigint NOT NULL CHECK (dv_count >= 0),
    record_count      bigint NOT NULL CHECK (record_count >= 0),
    last_written_snapshot bigint NOT NULL,
    debt_score        bigint NOT NULL CHECK (debt_score >= 0),
    PRIMARY KEY (catalog_id, generation, table_id, spec_id, partition_values),
    FOREIGN KEY (catalog_id) REFERENCES hog_summary ON DELETE CASCADE
);
-- The report's order: most debt first, over the catalog, one namespace
-- or one table; and the few buckets with a stale spec, counted.
CREATE INDEX hog_summary_bucket_debt
    ON hog_summary_bucket (catalog_id, generation, debt_score DESC, table_id)
    WHERE debt_score > 0;
CREATE INDEX hog_summary_bucket_namespace_debt
    ON hog_summary_bucket (catalog_id, generation, namespace_id, debt_score DESC, table_id)
    WHERE debt_score > 0;
CREATE INDEX hog_summary_bucket_table_debt
    ON hog_summary_bucket (catalog_id, generation, table_id, debt_score DESC)
    WHERE debt_score > 0;
CREATE INDEX hog_summary_bucket_stale
    ON hog_summary_bucket (catalog_id, generation, namespace_id, table_id)
    WHERE stale_spec;
