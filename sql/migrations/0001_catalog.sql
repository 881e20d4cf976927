-- hoglake catalog schema, version 1.
--
-- Conventions:
--  * Every table is keyed by catalog_id first; foreign keys cascade so a
--    catalog delete removes everything under it.
--  * Vocabularies are CHECK constraints, not enums: extending one is a new
--    migration that replaces the constraint.
--  * Versioned rows carry begin_snapshot/end_snapshot and are read through
--    hog_visible() only. A row is visible at snapshot S iff
--    begin_snapshot <= S AND (end_snapshot IS NULL OR S < end_snapshot).
--  * Id allocators live on hog_catalog and hog_table and are advanced only
--    under the catalog's advisory transaction lock, so ids are dense and
--    ordered like commits. The allocator columns are unindexed on purpose:
--    their updates stay HOT.

-- The one visibility predicate. LANGUAGE sql + IMMUTABLE lets the planner
-- inline it, so index conditions on begin/end survive.
CREATE FUNCTION hog_visible(begin_snapshot bigint, end_snapshot bigint, at_snapshot bigint)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN begin_snapshot <= at_snapshot AND (end_snapshot IS NULL OR at_snapshot < end_snapshot);

CREATE TABLE hog_catalog (
    catalog_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name              text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
    data_path         text NOT NULL CHECK (length(data_path) BETWEEN 1 AND 512),
    last_snapshot_id  bigint NOT NULL DEFAULT 0 CHECK (last_snapshot_id >= 0),
    schema_version    bigint NOT NULL DEFAULT 0 CHECK (schema_version >= 0),
    next_table_id     bigint NOT NULL DEFAULT 1,
    next_file_id      bigint NOT NULL DEFAULT 1,
    next_namespace_id bigint NOT NULL DEFAULT 1,
    next_view_id      bigint NOT NULL DEFAULT 1,
    snapshot_retention_seconds bigint
        CHECK (snapshot_retention_seconds IS NULL OR snapshot_retention_seconds > 0),
    consumer_floor    boolean NOT NULL DEFAULT true,
    earliest_snapshot_id bigint NOT NULL DEFAULT 0 CHECK (earliest_snapshot_id >= 0),
    -- Time of the floor snapshot, kept when the rows below it are gone so a
    -- 410 can say when the floor was reached. NULL until expiry moves it.
    earliest_snapshot_time timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    CHECK (earliest_snapshot_id <= last_snapshot_id)
);

CREATE TABLE hog_snapshot (
    catalog_id     bigint NOT NULL REFERENCES hog_catalog ON DELETE CASCADE,
    snapshot_id    bigint NOT NULL CHECK (snapshot_id >= 0),
    snapshot_time  timestamptz NOT NULL DEFAULT clock_timestamp(),
    schema_version bigint NOT NULL,
    author         text,
    commit_message text,
    PRIMARY KEY (catalog_id, snapshot_id)
);

-- Typed change rows: the conflict check is an index probe, never a parse.
-- object_id is a table, namespace or view id depending on kind.
CREATE TABLE hog_snapshot_change (
    catalog_id  bigint NOT NULL,
    snapshot_id bigint NOT NULL,
    kind        text   NOT NULL CHECK (kind IN (
                    'namespace_created', 'namespace_dropped',
                    'table_created', 'table_dropped', 'table_altered',
                    'table_inserted_into', 'table_deleted_from',
                    'table_compacted',
                    'view_created', 'view_dropped')),
    object_id   bigint NOT NULL,
    FOREIGN KEY (catalog_id, snapshot_id) REFERENCES hog_snapshot ON DELETE CASCADE
);
CREATE INDEX hog_snapshot_change_conflict
    ON hog_snapshot_change (catalog_id, object_id, kind, snapshot_id);
CREATE INDEX hog_snapshot_change_by_snapshot
    ON hog_snapshot_change (catalog_id, snapshot_id);

-- Namespaces are versioned by their create/drop snapshots so listings can
-- time travel. Names are not renamable; a dropped name may be reused.
CREATE TABLE hog_namespace (
    catalog_id       bigint NOT NULL REFERENCES hog_catalog ON DELETE CASCADE,
    namespace_id     bigint NOT NULL,
    name             text   NOT NULL CHECK (name ~ '^[A-Za-z_][A-Za-z0-9_-]{0,127}$'),
    created_snapshot bigint NOT NULL,
    dropped_snapshot bigint CHECK (dropped_snapshot IS NULL OR dropped_snapshot > created_snapshot),
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (catalog_id, namespace_id)
);
CREATE UNIQUE INDEX hog_namespace_live_name
    ON hog_namespace (catalog_id, name) WHERE dropped_snapshot IS NULL;

-- Immutable table identity. table_uuid survives renames and changes on
-- drop + recreate: consumers key their cursors to it.
CREATE TABLE hog_table (
    catalog_id        bigint NOT NULL REFERENCES hog_catalog ON DELETE CASCADE,
    table_id          bigint NOT NULL,
    table_uuid        uuid   NOT NULL DEFAULT gen_random_uuid(),
    created_snapshot  bigint NOT NULL,
    dropped_snapshot  bigint CHECK (dropped_snapshot IS NULL OR dropped_snapshot > created_snapshot),
    next_field_id     bigint NOT NULL DEFAULT 1,
    replaced_table_id bigint CHECK (replaced_table_id IS NULL OR replaced_table_id <> table_id),
    retirement_eligible_at timestamptz,
    PRIMARY KEY (catalog_id, table_id),
    UNIQUE (catalog_id, table_uuid)
);
CREATE INDEX hog_table_replacement_lineage
    ON hog_table (catalog_id, replaced_table_id) WHERE replaced_table_id IS NOT NULL;

-- The versioned, mutable part of a table: name, namespace, comment,
-- properties.
CREATE TABLE hog_table_version (
    catalog_id     bigint NOT NULL,
    table_id       bigint NOT NULL,
    begin_snapshot bigint NOT NULL,
    end_snapshot   bigint,
    namespace_id   bigint NOT NULL,
    name           text   NOT NULL CHECK (name ~ '^[A-Za-z_][A-Za-z0-9_-]{0,127}$'),
    comment        text   CHECK (comment IS NULL OR length(comment) <= 16384),
    properties     jsonb  NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(properties) = 'object'),
    PRIMARY KEY (catalog_id, table_id, begin_snapshot),
    FOREIGN KEY (catalog_id, table_id) REFERENCES hog_table ON DELETE CASCADE,
    -- Not cascading: a namespace row must never vanish under versioned
    -- history. Deferred so a whole-catalog cascade, which reaches both
    -- sides in unspecified order, still passes.
    FOREIGN KEY (catalog_id, namespace_id) REFERENCES hog_namespace
        DEFERRABLE INITIALLY DEFERRED,
    CHECK (end_snapshot IS NULL OR end_snapshot > begin_snapshot)
);
CREATE UNIQUE INDEX hog_table_version_live_name
    ON hog_table_version (catalog_id, namespace_id, name) WHERE end_snapshot IS NULL;
CREATE INDEX hog_table_version_by_namespace
    ON hog_table_version (catalog_id, namespace_id);
CREATE INDEX hog_table_version_live
    ON hog_table_version (catalog_id, table_id) WHERE end_snapshot IS NULL;

-- Versioned column definitions. field_id is the identity written into
-- Parquet files; a rename keeps it. parent_field_id is NULL at top level.
CREATE TABLE hog_column (
    catalog_id      bigint NOT NULL,
    table_id        bigint NOT NULL,
    field_id        bigint NOT NULL CHECK (field_id >= 1),
    begin_snapshot  bigint NOT NULL,
    end_snapshot    bigint,
    name            text   NOT NULL CHECK (name ~ '^[A-Za-z_][A-Za-z0-9_-]{0,127}$'),
    -- The 27 wire types, in the wire enum's order; new types are appended.
    col_type        text   NOT NULL CHECK (col_type IN (
                        'boolean', 'int8', 'int16', 'int', 'long',
                        'uint8', 'uint16', 'uint32', 'uint64',
                        'float', 'double', 'decimal', 'date', 'time',
                        'timestamp_s', 'timestamp_ms', 'timestamp', 'timestamp_ns',
                        'timestamptz', 'string', 'json', 'uuid', 'binary',
                        'variant', 'list', 'struct', 'map')),
    type_params     jsonb,
    nullable        boolean NOT NULL DEFAULT true,
    ordinal         int    NOT NULL CHECK (ordinal >= 0),
    parent_field_id bigint CHECK (parent_field_id IS NULL OR parent_field_id < field_id),
    comment         text   CHECK (comment IS NULL OR length(comment) <= 16384),
    PRIMARY KEY (catalog_id, table_id, field_id, begin_snapshot),
    FOREIGN KEY (catalog_id, table_id) REFERENCES hog_table ON DELETE CASCADE,
    CHECK (end_snapshot IS NULL OR end_snapshot > begin_snapshot),
    CHECK ((col_type = 'decimal') = (type_params ? 'precision'))
);
CREATE INDEX hog_column_live
    ON hog_column (catalog_id, table_id) WHERE end_snapshot IS NULL;
-- Writers order Parquet fields by ordinal: a duplicate live ordinal among
-- siblings would silently reorder data, so the database refuses it.
CREATE UNIQUE INDEX hog_column_live_ordinal
    ON hog_column (catalog_id, table_id, parent_field_id, ordinal) NULLS NOT DISTINCT
    WHERE end_snapshot IS NULL;

-- Per-table gross append counters and the row-id allocator. Read paths
-- never use these as totals; totals come from live file rows.
CREATE TABLE hog_table_stats (
    catalog_id      bigint NOT NULL,
    table_id        bigint NOT NULL,
    record_count    bigint NOT NULL DEFAULT 0 CHECK (record_count >= 0),
    file_size_bytes bigint NOT NULL DEFAULT 0 CHECK (file_size_bytes >= 0),
    next_row_id     bigint NOT NULL DEFAULT 0 CHECK (next_row_id >= 0),
    PRIMARY KEY (catalog_id, table_id),
    FOREIGN KEY (catalog_id, table_id) REFERENCES hog_table ON DELETE CASCADE
);

-- ---- Partitioning and sort order (versioned headers + ordered fields) ----

CREATE TABLE hog_partition_spec (
    catalog_id     bigint NOT NULL,
    table_id       bigint NOT NULL,
    spec_id        bigint NOT NULL CHECK (spec_id >= 0),
    begin_snapshot bigint NOT NULL,
    end_snapshot   bigint,
    PRIMARY KEY (catalog_id, table_id, spec_id),
    FOREIGN KEY (catalog_id, table_id) REFERENCES hog_table ON DELETE CASCADE,
    CHECK (end_snapshot IS NULL OR end_snapshot > begin_snapshot)
);
CREATE UNIQUE INDEX hog_partition_spec_live
    ON hog_partition_spec (catalog_id, table_id) WHERE end_snapshot IS NULL;

CREATE TABLE hog_partition_field (
    catalog_id      bigint NOT NULL,
    table_id        bigint NOT NULL,
    spec_id         bigint NOT NULL,
    key_index       int    NOT NULL CHECK (key_index >= 0),
    source_field_id bigint NOT NULL,
    transform       text   NOT NULL CHECK (transform IN
                        ('identity', 'bucket', 'truncate', 'year', 'month', 'day', 'hour')),
    transform_param int    CHECK (transform_param IS NULL OR transform_param > 0),
    PRIMARY KEY (catalog_id, table_id, spec_id, key_index),
    FOREIGN KEY (catalog_id, table_id, spec_id) REFERENCES hog_partition_spec ON DELETE CASCADE,
    CHECK ((transform IN ('bucket', 'truncate')) = (transform_param IS NOT NULL))
);

CREATE TABLE hog_sort_spec (
    catalog_id     bigint NOT NULL,
    table_id       bigint NOT NULL,
    sort_id        bigint NOT NULL CHECK (sort_id >= 0),
    begin_snapshot bigint NOT NULL,
    end_snapshot   bigint,
    PRIMARY KEY (catalog_id, table_id, sort_id),
    FOREIGN KEY (catalog_id, table_id) REFERENCES hog_table ON DELETE CASCADE,
    CHECK (end_snapshot IS NULL OR end_snapshot > begin_snapshot)
);
CREATE UNIQUE INDEX hog_sort_spec_live
    ON hog_sort_spec (catalog_id, table_id) WHERE end_snapshot IS NULL;

CREATE TABLE hog_sort_field (
    catalog_id      bigint NOT NULL,
    table_id        bigint NOT NULL,
    sort_id         bigint NOT NULL,
    key_index       int    NOT NULL CHECK (key_index >= 0),
    source_field_id bigint NOT NULL,
    direction       text   NOT NULL CHECK (direction IN ('asc', 'desc')),
    null_order      text   NOT NULL CHECK (null_order IN ('nulls_first', 'nulls_last')),
    PRIMARY KEY (catalog_id, table_id, sort_id, key_index),
    FOREIGN KEY (catalog_id, table_id, sort_id) REFERENCES hog_sort_spec ON DELETE CASCADE
);

-- ---- Data files, statistics, deletion vectors ----

-- The file manifest. Deletes never end a data file (deletion vectors mask
-- rows); end_snapshot comes from truncate, compaction or expiry.
CREATE TABLE hog_data_file (
    catalog_id       bigint NOT NULL,
    data_file_id     bigint NOT NULL,
    table_id         bigint NOT NULL,
    begin_snapshot   bigint NOT NULL,
    end_snapshot     bigint,
    path             text   NOT NULL,
    file_format      text   NOT NULL DEFAULT 'parquet' CHECK (file_format IN ('parquet')),
    record_count     bigint NOT NULL CHECK (record_count >= 0),
    file_size_bytes  bigint NOT NULL CHECK (file_size_bytes >= 0),
    footer_size      bigint CHECK (footer_size IS NULL OR footer_size >= 0),
    row_id_start     bigint NOT NULL CHECK (row_id_start >= 0),
    stats_state      text   NOT NULL DEFAULT 'provided'
                     CHECK (stats_state IN ('provided', 'pending', 'failed')),
    spec_id          bigint,
    -- Compaction outputs carry each row's id in the _hog_row_id column
    -- (field id 2147483646); row_id_start is then only the minimum.
    explicit_row_ids boolean NOT NULL DEFAULT false,
    -- Set by the hydrator when a leaf of the file lacks a Parquet field id.
    missing_field_ids boolean NOT NULL DEFAULT false,
    split_offsets    bigint[],
    PRIMARY KEY (catalog_id, data_file_id),
    FOREIGN KEY (catalog_id, table_id) REFERENCES hog_table ON DELETE CASCADE,
    CHECK (end_snapshot IS NULL OR end_snapshot > begin_snapshot)
);
CREATE INDEX hog_data_file_live
    ON hog_data_file (catalog_id, table_id, begin_snapshot) WHERE end_snapshot IS NULL;
CREATE INDEX hog_data_file_pending
    ON hog_data_file (catalog_id, data_file_id) INCLUDE (table_id)
    WHERE stats_state = 'pending' AND end_snapshot IS NULL;
CREATE INDEX hog_data_file_ended
    ON hog_data_file (catalog_id, end_snapshot) WHERE end_snapshot IS NOT NULL;
CREATE INDEX hog_data_file_failed
    ON hog_data_file (catalog_id, table_id) WHERE stats_state = 'failed';
CREATE INDEX hog_data_file_missing_ids
    ON hog_data_file (catalog_id, table_id) WHERE missing_field_ids;
CREATE INDEX hog_data_file_row_ids
    ON hog_data_file (catalog_id, table_id, row_id_start, data_file_id);
CREATE INDEX hog_data_file_by_size
    ON hog_data_file (catalog_id, table_id, file_size_bytes, data_file_id);
CREATE INDEX hog_data_file_changefeed
    ON hog_data_file (catalog_id, table_id, begin_snapshot);
CREATE INDEX hog_data_file_path
    ON hog_data_file (catalog_id, path);

-- Per-file, per-leaf statistics. Bounds are Iceberg single-value binary.
CREATE TABLE hog_file_column_stats (
    catalog_id   bigint NOT NULL,
    data_file_id bigint NOT NULL,
    field_id     bigint NOT NULL,
    value_count  bigint NOT NULL CHECK (value_count >= 0),
    null_count   bigint NOT NULL CHECK (null_count >= 0),
    nan_count    bigint CHECK (nan_count IS NULL OR nan_count >= 0),
    size_bytes   bigint CHECK (size_bytes IS NULL OR size_bytes >= 0),
    lower_bound  bytea,
    upper_bound  bytea,
    PRIMARY KEY (catalog_id, data_file_id, field_id),
    FOREIGN KEY (catalog_id, data_file_id) REFERENCES hog_data_file ON DELETE CASCADE
);

-- Transformed partition values as wire strings, one per key index of the
-- file's spec. NULL is a null partition value.
CREATE TABLE hog_file_partition_value (
    catalog_id   bigint NOT NULL,
    data_file_id bigint NOT NULL,
    key_index    int    NOT NULL CHECK (key_index >= 0),
    value        text,
    PRIMARY KEY (catalog_id, data_file_id, key_index),
    FOREIGN KEY (catalog_id, data_file_id) REFERENCES hog_data_file ON DELETE CASCADE
);
CREATE INDEX hog_file_partition_value_lookup
    ON hog_file_partition_value (catalog_id, key_index, value, data_file_id);

-- Deletion vectors: at most one live per data file.
CREATE TABLE hog_delete_file (
    catalog_id      bigint NOT NULL,
    delete_file_id  bigint NOT NULL,
    table_id        bigint NOT NULL,
    data_file_id    bigint NOT NULL,
    begin_snapshot  bigint NOT NULL,
    end_snapshot    bigint,
    path            text   NOT NULL,
    file_format     text   NOT NULL DEFAULT 'puffin-dv' CHECK (file_format IN ('puffin-dv')),
    delete_count    bigint NOT NULL CHECK (delete_count > 0),
    file_size_bytes bigint NOT NULL CHECK (file_size_bytes >= 0),
    PRIMARY KEY (catalog_id, delete_file_id),
    FOREIGN KEY (catalog_id, table_id) REFERENCES hog_table ON DELETE CASCADE,
    FOREIGN KEY (catalog_id, data_file_id) REFERENCES hog_data_file ON DELETE CASCADE,
    CHECK (end_snapshot IS NULL OR end_snapshot > begin_snapshot)
);
CREATE UNIQUE INDEX hog_delete_file_live_target
    ON hog_delete_file (catalog_id, data_file_id) WHERE end_snapshot IS NULL;
CREATE INDEX hog_delete_file_live
    ON hog_delete_file (catalog_id, table_id) WHERE end_snapshot IS NULL;
CREATE INDEX hog_delete_file_changefeed
    ON hog_delete_file (catalog_id, table_id, begin_snapshot);
CREATE INDEX hog_delete_file_path
    ON hog_delete_file (catalog_id, path);

-- ---- Views ----

CREATE TABLE hog_view (
    catalog_id     bigint NOT NULL REFERENCES hog_catalog ON DELETE CASCADE,
    view_id        bigint NOT NULL,
    view_uuid      uuid   NOT NULL DEFAULT gen_random_uuid(),
    namespace_id   bigint NOT NULL,
    name           text   NOT NULL CHECK (name ~ '^[A-Za-z_][A-Za-z0-9_-]{0,127}$'),
    dialect        text   NOT NULL DEFAULT 'trino' CHECK (dialect ~ '^[a-z][a-z0-9_]{0,31}$'),
    sql            text   NOT NULL,
    begin_snapshot bigint NOT NULL,
    end_snapshot   bigint,
    PRIMARY KEY (catalog_id, view_id),
    FOREIGN KEY (catalog_id, namespace_id) REFERENCES hog_namespace
        DEFERRABLE INITIALLY DEFERRED,
    CHECK (end_snapshot IS NULL OR end_snapshot > begin_snapshot)
);
CREATE UNIQUE INDEX hog_view_live_name
    ON hog_view (catalog_id, namespace_id, name) WHERE end_snapshot IS NULL;
CREATE INDEX hog_view_by_namespace
    ON hog_view (catalog_id, namespace_id);

-- ---- Commits, consumers ----

-- Idempotency receipts: a replay with the same key and fingerprint returns
-- the original result without writing anything.
CREATE TABLE hog_commit_receipt (
    catalog_id      bigint NOT NULL REFERENCES hog_catalog ON DELETE CASCADE,
    idempotency_key uuid   NOT NULL,
    fingerprint     bytea  NOT NULL,
    snapshot_id     bigint NOT NULL,
    schema_version  bigint NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (catalog_id, idempotency_key)
);
CREATE INDEX hog_commit_receipt_age ON hog_commit_receipt (catalog_id, created_at);

-- Per-consumer committed offsets, keyed by table_uuid so an incarnation
-- change is visible to the consumer rather than deduced.
CREATE TABLE hog_consumer_offset (
    catalog_id         bigint NOT NULL REFERENCES hog_catalog ON DELETE CASCADE,
    consumer_id        text   NOT NULL CHECK (length(consumer_id) BETWEEN 1 AND 128),
    table_uuid         uuid   NOT NULL,
    committed_snapshot bigint NOT NULL CHECK (committed_snapshot >= 0),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (catalog_id, consumer_id, table_uuid)
);
CREATE INDEX hog_consumer_offset_floor ON hog_consumer_offset (catalog_id, committed_snapshot);

-- ---- Object lifecycle ----

-- Upload claims: paths handed to writers before they register them.
CREATE TABLE hog_upload (
    catalog_id        bigint NOT NULL REFERENCES hog_catalog ON DELETE CASCADE,
    upload_id         uuid   NOT NULL,
    owner             uuid   NOT NULL,
    prefix            text   NOT NULL,
    path              text   NOT NULL,
    file_kind         text   NOT NULL CHECK (file_kind IN ('data', 'delete')),
    state             text   NOT NULL DEFAULT 'active'
                      CHECK (state IN ('active', 'registered', 'abandoned')),
    expires_at        timestamptz NOT NULL DEFAULT now() + interval '24 hours',
    last_scheduled_at timestamptz,
    PRIMARY KEY (catalog_id, upload_id),
    UNIQUE (catalog_id, path)
);
CREATE INDEX hog_upload_owner ON hog_upload (catalog_id, owner) WHERE state = 'active';
CREATE INDEX hog_upload_cleanup ON hog_upload (catalog_id, expires_at) WHERE state <> 'registered';

-- The removal queue. A row never authorises a delete: cleanup re-checks
-- that no file row and no active upload references the path first.
CREATE TABLE hog_file_removal (
    removal_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    catalog_id      bigint NOT NULL REFERENCES hog_catalog ON DELETE CASCADE,
    path            text   NOT NULL,
    file_kind       text   NOT NULL CHECK (file_kind IN ('data', 'delete')),
    reason          text   NOT NULL CHECK (reason IN
                        ('snapshot_expiry', 'table_drop_gc', 'compaction_staging', 'trino_upload')),
    scheduled_at    timestamptz NOT NULL DEFAULT now(),
    attempts        int    NOT NULL DEFAULT 0,
    last_attempt_at timestamptz,
    drained_at      timestamptz,
    drained_outcome text   CHECK (drained_outcome IN ('deleted', 'absent', 'registered')),
    claimed_at      timestamptz,
    claimed_by      text,
    CHECK ((drained_at IS NULL) = (drained_outcome IS NULL))
);
CREATE INDEX hog_file_removal_drain
    ON hog_file_removal (catalog_id, removal_id) WHERE drained_at IS NULL;
CREATE INDEX hog_file_removal_undrained_path
    ON hog_file_removal (catalog_id, path) WHERE drained_at IS NULL;

-- Compaction claims keep two replicas off the same file group.
CREATE TABLE hog_compaction_claim (
    catalog_id     bigint NOT NULL,
    table_id       bigint NOT NULL,
    group_key      text   NOT NULL,
    input_file_ids bigint[] NOT NULL,
    claimant       text   NOT NULL,
    claimed_at     timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL,
    PRIMARY KEY (catalog_id, table_id, group_key),
    FOREIGN KEY (catalog_id, table_id) REFERENCES hog_table ON DELETE CASCADE
);
CREATE INDEX hog_compaction_claim_expiry ON hog_compaction_claim (catalog_id, expires_at);

-- ---- Maintenance ----

CREATE TABLE hog_maintenance_run (
    run_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    catalog_id  bigint NOT NULL REFERENCES hog_catalog ON DELETE CASCADE,
    task        text   NOT NULL CHECK (task IN
                    ('hydrator', 'expiry', 'cleanup', 'compaction', 'verify', 'retirement', 'reindex')),
    run_trigger text   NOT NULL CHECK (run_trigger IN ('loop', 'manual')),
    started_at  timestamptz NOT NULL,
    finished_at timestamptz NOT NULL,
    status      text   NOT NULL CHECK (status IN ('ok', 'failed')),
    error       text,
    result      jsonb,
    CHECK ((status = 'failed') = (error IS NOT NULL))
);
CREATE INDEX hog_maintenance_run_task ON hog_maintenance_run (catalog_id, task, run_id DESC);
CREATE INDEX hog_maintenance_run_catalog ON hog_maintenance_run (catalog_id, run_id DESC);
CREATE INDEX hog_maintenance_run_global ON hog_maintenance_run (task, run_id DESC);
