-- hoglake catalog schema, version 11: a file's column statistics in one value.
--
-- hog_file_column_stats held a row per file and column: 149 bytes a column
-- (24 of tuple header, 4 of line pointer, 40 of primary-key entry, about 40
-- of values), three quarters of a catalog's size with 20 columns (bench/scale
-- measured 3,932 bytes a file, 2,980 of them statistics). A file's
-- statistics are now one bytea in its own row, hog_data_file.column_stats
-- (NULL: none), about 28 bytes a column with 8-byte bounds; expiry and
-- retirement no longer cascade into a second table, and a scan reads a
-- file's statistics with the file.
--
-- The layout (src/server/store/column_stats.h): a version byte 0x01, then
-- each column in ascending field id: a flags byte (1 nan_count, 2
-- size_bytes, 4 lower bound, 8 upper bound), field_id, value_count and
-- null_count as unsigned LEB128 varints, nan_count and size_bytes as
-- varints when flagged, each flagged bound as a varint length and its bytes.
-- The server encodes and decodes it in C; the functions below are the same
-- layout in SQL, for this migration and for people reading the catalog with
-- psql: the view hog_file_column_stats keeps the old table's shape.
--
-- Existing rows move in this migration's transaction (a catalog of 8M files
-- rewrites its file table once; VACUUM reclaims the old row versions).

-- A non-negative bigint as an unsigned LEB128 varint.
CREATE FUNCTION hog_varint(v bigint) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT string_agg(set_byte('\x00'::bytea, 0,
               (((v >> (7 * i)) & 127) | CASE WHEN (v >> (7 * i)) >> 7 > 0 THEN 128 ELSE 0 END)::int),
           ''::bytea ORDER BY i)
    FROM generate_series(0, 8) AS i
    WHERE i = 0 OR v >> (7 * i) > 0
$$;

-- One column's entry (the caller puts the version byte first and the
-- entries in ascending field id).
CREATE FUNCTION hog_column_stats_entry(field_id bigint, value_count bigint, null_count bigint,
                                       nan_count bigint, size_bytes bigint,
                                       lower_bound bytea, upper_bound bytea) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT set_byte('\x00'::bytea, 0,
               (CASE WHEN nan_count IS NULL THEN 0 ELSE 1 END)
             | (CASE WHEN size_bytes IS NULL THEN 0 ELSE 2 END)
             | (CASE WHEN lower_bound IS NULL THEN 0 ELSE 4 END)
             | (CASE WHEN upper_bound IS NULL THEN 0 ELSE 8 END))
        || hog_varint(field_id) || hog_varint(value_count) || hog_varint(null_count)
        || coalesce(hog_varint(nan_count), ''::bytea)
        || coalesce(hog_varint(size_bytes), ''::bytea)
        || coalesce(hog_varint(length(lower_bound)) || lower_bound, ''::bytea)
        || coalesce(hog_varint(length(upper_bound)) || upper_bound, ''::bytea)
$$;

-- The varint at offset pos (0-based); pos moves past it.
CREATE FUNCTION hog_varint_read(v bytea, INOUT pos int, OUT value bigint)
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    b int;
    shift int := 0;
BEGIN
    value := 0;
    LOOP
        IF pos >= length(v) OR shift > 56 THEN
            RAISE EXCEPTION 'column statistics: a truncated or unreadable varint';
        END IF;
        b := get_byte(v, pos);
        pos := pos + 1;
        value := value | ((b & 127)::bigint << shift);
        EXIT WHEN b < 128;
        shift := shift + 7;
    END LOOP;
END
$$;

-- A stored value as rows, one per column, in field id order.
CREATE FUNCTION hog_column_stats_rows(stats bytea)
RETURNS TABLE (field_id bigint, value_count bigint, null_count bigint, nan_count bigint,
               size_bytes bigint, lower_bound bytea, upper_bound bytea)
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    pos int := 1;
    flags int;
    len bigint;
BEGIN
    IF length(stats) = 0 THEN
        RETURN;
    END IF;
    IF get_byte(stats, 0) <> 1 THEN
        RAISE EXCEPTION 'column statistics: unknown version %', get_byte(stats, 0);
    END IF;
    WHILE pos < length(stats) LOOP
        flags := get_byte(stats, pos);
        pos := pos + 1;
        SELECT r.pos, r.value INTO pos, field_id FROM hog_varint_read(stats, pos) r;
        SELECT r.pos, r.value INTO pos, value_count FROM hog_varint_read(stats, pos) r;
        SELECT r.pos, r.value INTO pos, null_count FROM hog_varint_read(stats, pos) r;
        nan_count := NULL;
        size_bytes := NULL;
        lower_bound := NULL;
        upper_bound := NULL;
        IF flags & 1 <> 0 THEN
            SELECT r.pos, r.value INTO pos, nan_count FROM hog_varint_read(stats, pos) r;
        END IF;
        IF flags & 2 <> 0 THEN
            SELECT r.pos, r.value INTO pos, size_bytes FROM hog_varint_read(stats, pos) r;
        END IF;
        IF flags & 4 <> 0 THEN
            SELECT r.pos, r.value INTO pos, len FROM hog_varint_read(stats, pos) r;
            lower_bound := substring(stats FROM pos + 1 FOR len::int);
            pos := pos + len::int;
        END IF;
        IF flags & 8 <> 0 THEN
            SELECT r.pos, r.value INTO pos, len FROM hog_varint_read(stats, pos) r;
            upper_bound := substring(stats FROM pos + 1 FOR len::int);
            pos := pos + len::int;
        END IF;
        IF pos > length(stats) THEN
            RAISE EXCEPTION 'column statistics: a bound runs past the value';
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;

ALTER TABLE hog_data_file ADD COLUMN column_stats bytea;

UPDATE hog_data_file d SET column_stats = s.stats
FROM (SELECT catalog_id, data_file_id,
             '\x01'::bytea || string_agg(hog_column_stats_entry(field_id, value_count, null_count,
                                             nan_count, size_bytes, lower_bound, upper_bound),
                                         ''::bytea ORDER BY field_id) AS stats
      FROM hog_file_column_stats GROUP BY catalog_id, data_file_id) s
WHERE d.catalog_id = s.catalog_id AND d.data_file_id = s.data_file_id;

DROP TABLE hog_file_column_stats;

-- The old table's shape, read-only, for queries written against it.
CREATE VIEW hog_file_column_stats AS
    SELECT d.catalog_id, d.data_file_id, s.field_id, s.value_count, s.null_count, s.nan_count,
           s.size_bytes, s.lower_bound, s.upper_bound
    FROM hog_data_file d, hog_column_stats_rows(d.column_stats) s;

-- Nothing reads a table's files in row-id order alone (the scan and
-- changefeed pages walk hog_data_file_page, which leads with
-- begin_snapshot): the index cost 50 to 70 bytes a file for no reader.
DROP INDEX hog_data_file_row_ids;
