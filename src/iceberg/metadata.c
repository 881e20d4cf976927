/* Iceberg table metadata: create, load, commit a snapshot, serialize (see
 * metadata.h). Every change works on a deep copy of the document and
 * replaces the model only once the copy has been re-validated, so a failed
 * change leaves the model untouched. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg/metadata.h"
#include "util/strutil.h"
#include "util/random.h"

enum {
    METADATA_LOG_DEFAULT_MAX = 100,        /* write.metadata.previous-versions-max default */
    UNPARTITIONED_LAST_PARTITION_ID = 999, /* what Java writes: ids start at 1000 */
    PICK_TRIES = 64,
};

#define SNAPSHOT_ID_LIMIT (INT64_C(1) << 53) /* stays exact in JavaScript */

/* The top-level keys this module knows, in the order they are written. */
static const char *const known_keys[] = {
    "format-version",
    "table-uuid",
    "location",
    "last-sequence-number",
    "last-updated-ms",
    "last-column-id",
    "current-schema-id",
    "schemas",
    "default-spec-id",
    "partition-specs",
    "last-partition-id",
    "default-sort-order-id",
    "sort-orders",
    "properties",
    "current-snapshot-id",
    "next-row-id",
    "refs",
    "snapshots",
    "statistics",
    "partition-statistics",
    "snapshot-log",
    "metadata-log",
};

/* ------------------------------------------------------------ validation */

/* Always -1, visibly so: callers' outputs are unset on that path, and the
 * optimiser must see it cannot return 0. */
static int malformed(struct error *err, const char *what, const char *why)
{
    error_fail(err, ERR_MALFORMED, "table metadata: %s %s", what, why);
    return -1;
}

/* An integer member; absent is an error when required. Reals are refused:
 * ids and counts are exact integers in Iceberg metadata. */
static int get_int(const json_t *obj, const char *key, bool required, int64_t *out, bool *present,
                   const char *where, struct error *err)
{
    char what[320];
    snprintf(what, sizeof what, "%s%s\"%s\"", where, where[0] ? "." : "", key);
    const json_t *v = json_object_get(obj, key);
    if (present)
        *present = v != NULL;
    if (!v)
        return required ? malformed(err, what, "is missing") : 0;
    if (!json_is_integer(v))
        return malformed(err, what, "is not an integer");
    *out = json_integer_value(v);
    return 0;
}

static int get_string(const json_t *obj, const char *key, const char **out, const char *where,
                      struct error *err)
{
    char what[320];
    snprintf(what, sizeof what, "%s%s\"%s\"", where, where[0] ? "." : "", key);
    const json_t *v = json_object_get(obj, key);
    if (!v)
        return malformed(err, what, "is missing");
    if (!json_is_string(v))
        return malformed(err, what, "is not a string");
    *out = json_string_value(v);
    return 0;
}

/* A member that must be an array (absent allowed when !required). */
static int get_array(const json_t *obj, const char *key, bool required, const json_t **out,
                     struct error *err)
{
    char what[160];
    snprintf(what, sizeof what, "\"%s\"", key);
    const json_t *v = json_object_get(obj, key);
    *out = v;
    if (!v)
        return required ? malformed(err, what, "is missing") : 0;
    return json_is_array(v) ? 0 : malformed(err, what, "is not an array");
}

/* The entry of list whose id_key equals id, or NULL. */
static const json_t *find_by_id(const json_t *list, const char *id_key, int64_t id)
{
    size_t i;
    const json_t *e;
    json_array_foreach (list, i, e) {
        const json_t *v = json_object_get(e, id_key);
        if (json_is_integer(v) && json_integer_value(v) == id)
            return e;
    }
    return NULL;
}

/* Checks every entry of a list of objects (schemas, specs, orders) for an
 * integer id and a "fields" array, and resolves the default id. */
static int check_id_list(const json_t *doc, const char *list_key, const char *id_key,
                         const char *default_key, const json_t **chosen, struct error *err)
{
    const json_t *list;
    if (get_array(doc, list_key, true, &list, err) != 0)
        return -1;
    size_t i;
    const json_t *e;
    json_array_foreach (list, i, e) {
        char where[80];
        snprintf(where, sizeof where, "%s[%zu]", list_key, i);
        int64_t id;
        if (!json_is_object(e))
            return malformed(err, where, "is not an object");
        if (get_int(e, id_key, true, &id, NULL, where, err) != 0)
            return -1;
        if (find_by_id(list, id_key, id) != e) {
            char what[120];
            snprintf(what, sizeof what, "\"%s\" %" PRId64, id_key, id);
            return malformed(err, what, "is listed twice");
        }
        if (!json_is_array(json_object_get(e, "fields")))
            return malformed(err, where, "has no \"fields\" array");
    }
    int64_t def;
    if (get_int(doc, default_key, true, &def, NULL, "", err) != 0)
        return -1;
    if (!(*chosen = find_by_id(list, id_key, def))) {
        char what[120];
        snprintf(what, sizeof what, "\"%s\" %" PRId64, default_key, def);
        return malformed(err, what, "names no entry");
    }
    return 0;
}

static int check_spec_fields(const json_t *specs, int format_version, struct error *err)
{
    size_t i, j;
    const json_t *spec, *f;
    json_array_foreach (specs, i, spec) {
        json_array_foreach (json_object_get(spec, "fields"), j, f) {
            char where[80];
            snprintf(where, sizeof where, "partition-specs[%zu].fields[%zu]", i, j);
            int64_t v;
            bool has_source;
            const char *s;
            if (!json_is_object(f))
                return malformed(err, where, "is not an object");
            if (get_int(f, "field-id", true, &v, NULL, where, err) != 0 ||
                get_string(f, "name", &s, where, err) != 0 ||
                get_string(f, "transform", &s, where, err) != 0 ||
                get_int(f, "source-id", false, &v, &has_source, where, err) != 0)
                return -1;
            /* v3 multi-argument transforms name "source-ids" instead. */
            if (!has_source &&
                (format_version < 3 || !json_is_array(json_object_get(f, "source-ids"))))
                return malformed(err, where, "has no \"source-id\"");
        }
    }
    return 0;
}

static int check_properties(const json_t *props, struct error *err)
{
    if (!props)
        return 0;
    if (!json_is_object(props))
        return malformed(err, "\"properties\"", "is not an object");
    const char *k;
    const json_t *v;
    json_object_foreach ((json_t *)props, k, v) {
        if (!json_is_string(v)) {
            char what[200];
            snprintf(what, sizeof what, "property \"%.150s\"", k);
            return malformed(err, what, "is not a string");
        }
    }
    return 0;
}

static int check_snapshots(const json_t *doc, struct ice_meta *m, struct error *err)
{
    const json_t *snaps;
    if (get_array(doc, "snapshots", false, &snaps, err) != 0)
        return -1;
    size_t i;
    const json_t *s;
    json_array_foreach (snaps, i, s) {
        char where[80];
        snprintf(where, sizeof where, "snapshots[%zu]", i);
        int64_t id, seq, v;
        bool has;
        const char *str;
        if (!json_is_object(s))
            return malformed(err, where, "is not an object");
        if (get_int(s, "snapshot-id", true, &id, NULL, where, err) != 0 ||
            get_int(s, "sequence-number", true, &seq, NULL, where, err) != 0 ||
            get_int(s, "timestamp-ms", true, &v, NULL, where, err) != 0 ||
            get_int(s, "parent-snapshot-id", false, &v, NULL, where, err) != 0 ||
            get_int(s, "schema-id", false, &v, NULL, where, err) != 0 ||
            get_string(s, "manifest-list", &str, where, err) != 0)
            return -1;
        if (find_by_id(snaps, "snapshot-id", id) != s) {
            char what[120];
            snprintf(what, sizeof what, "snapshot id %" PRId64, id);
            return malformed(err, what, "is listed twice");
        }
        if (seq > m->last_sequence_number)
            return malformed(err, where, "has a sequence number above last-sequence-number");
        const json_t *summary = json_object_get(s, "summary");
        if (!json_is_object(summary) || !json_is_string(json_object_get(summary, "operation")))
            return malformed(err, where, "has no summary with an operation");
        if (m->format_version >= 3) {
            if (get_int(s, "first-row-id", false, &v, &has, where, err) != 0)
                return -1;
            if (has && v < 0)
                return malformed(err, where, "has a negative first-row-id");
            if (get_int(s, "added-rows", false, &v, &has, where, err) != 0)
                return -1;
            if (has && v < 0)
                return malformed(err, where, "has negative added-rows");
        }
    }
    /* current-snapshot-id: absent, null or -1 mean none. */
    const json_t *cur = json_object_get(doc, "current-snapshot-id");
    if (cur && !json_is_null(cur)) {
        if (!json_is_integer(cur))
            return malformed(err, "\"current-snapshot-id\"", "is not an integer");
        if (json_integer_value(cur) != -1) {
            m->current_snapshot_id = json_integer_value(cur);
            m->has_current_snapshot = true;
            m->current_snapshot = find_by_id(snaps, "snapshot-id", m->current_snapshot_id);
            if (!m->current_snapshot)
                return malformed(err, "\"current-snapshot-id\"", "names no snapshot");
        }
    }
    const json_t *refs = json_object_get(doc, "refs");
    if (!refs)
        return 0;
    if (!json_is_object(refs))
        return malformed(err, "\"refs\"", "is not an object");
    const char *name;
    const json_t *ref;
    json_object_foreach ((json_t *)refs, name, ref) {
        char where[200];
        snprintf(where, sizeof where, "refs.%.150s", name);
        int64_t id;
        if (!json_is_object(ref))
            return malformed(err, where, "is not an object");
        if (get_int(ref, "snapshot-id", true, &id, NULL, where, err) != 0)
            return -1;
        if (!find_by_id(snaps, "snapshot-id", id))
            return malformed(err, where, "names no snapshot");
        if (strcmp(name, "main") == 0 && (!m->has_current_snapshot || id != m->current_snapshot_id))
            return malformed(err, "refs.main", "differs from current-snapshot-id");
    }
    return 0;
}

/* Fills the views of m from doc (not taking it) or fails. */
static int parse(json_t *doc, struct ice_meta *m, struct error *err)
{
    memset(m, 0, sizeof *m);
    if (!json_is_object(doc))
        return malformed(err, "the document", "is not a JSON object");
    int64_t fv;
    if (get_int(doc, "format-version", true, &fv, NULL, "", err) != 0)
        return -1;
    if (fv != 2 && fv != 3)
        return error_fail(err, ERR_UNSUPPORTED,
                          "table metadata: format version %" PRId64
                          " is not supported (this writer handles 2 and 3)",
                          fv);
    m->format_version = (int)fv;
    int64_t v;
    if (get_string(doc, "table-uuid", &m->table_uuid, "", err) != 0 ||
        get_string(doc, "location", &m->location, "", err) != 0 ||
        get_int(doc, "last-sequence-number", true, &m->last_sequence_number, NULL, "", err) != 0 ||
        get_int(doc, "last-updated-ms", true, &m->last_updated_ms, NULL, "", err) != 0 ||
        get_int(doc, "last-column-id", true, &m->last_column_id, NULL, "", err) != 0 ||
        get_int(doc, "last-partition-id", true, &v, NULL, "", err) != 0)
        return -1;
    if (!str_is_uuid(m->table_uuid))
        return malformed(err, "\"table-uuid\"", "is not a UUID");
    if (!m->location[0])
        return malformed(err, "\"location\"", "is empty");
    if (m->last_sequence_number < 0)
        return malformed(err, "\"last-sequence-number\"", "is negative");
    if (m->format_version >= 3) {
        if (get_int(doc, "next-row-id", true, &m->next_row_id, NULL, "", err) != 0)
            return -1;
        if (m->next_row_id < 0)
            return malformed(err, "\"next-row-id\"", "is negative");
    }
    if (check_id_list(doc, "schemas", "schema-id", "current-schema-id", &m->current_schema, err) !=
            0 ||
        check_id_list(doc, "partition-specs", "spec-id", "default-spec-id", &m->default_spec,
                      err) != 0 ||
        check_id_list(doc, "sort-orders", "order-id", "default-sort-order-id",
                      &m->default_sort_order, err) != 0 ||
        check_spec_fields(json_object_get(doc, "partition-specs"), m->format_version, err) != 0 ||
        check_properties(json_object_get(doc, "properties"), err) != 0 ||
        check_snapshots(doc, m, err) != 0)
        return -1;
    const json_t *log;
    if (get_array(doc, "snapshot-log", false, &log, err) != 0 ||
        get_array(doc, "metadata-log", false, &log, err) != 0)
        return -1;
    m->doc = doc;
    return 0;
}

/* Replaces m's document by doc (taken) when doc validates; otherwise
 * releases doc and leaves m as it was. */
static int adopt(struct ice_meta *m, json_t *doc, struct error *err)
{
    struct ice_meta next;
    if (parse(doc, &next, err) != 0) {
        json_decref(doc);
        return -1;
    }
    json_decref(m->doc);
    *m = next;
    return 0;
}

/* ------------------------------------------------------------ create / load */

static int64_t max_partition_field_id(const json_t *spec)
{
    int64_t max = UNPARTITIONED_LAST_PARTITION_ID;
    size_t i;
    const json_t *f;
    json_array_foreach (json_object_get(spec, "fields"), i, f) {
        const json_t *id = json_object_get(f, "field-id");
        if (json_is_integer(id) && json_integer_value(id) > max)
            max = json_integer_value(id);
    }
    return max;
}

/* The highest "id", "element-id", "key-id" or "value-id" anywhere in v. */
static int64_t max_field_id(const json_t *v)
{
    int64_t max = 0;
    if (json_is_array(v)) {
        size_t i;
        const json_t *e;
        json_array_foreach (v, i, e) {
            int64_t m = max_field_id(e);
            max = m > max ? m : max;
        }
    } else if (json_is_object(v)) {
        const char *k;
        const json_t *e;
        json_object_foreach ((json_t *)v, k, e) {
            int64_t m = 0;
            if (json_is_integer(e) && (strcmp(k, "id") == 0 || strcmp(k, "element-id") == 0 ||
                                       strcmp(k, "key-id") == 0 || strcmp(k, "value-id") == 0))
                m = json_integer_value(e);
            else if (json_is_object(e) || json_is_array(e))
                m = max_field_id(e);
            max = m > max ? m : max;
        }
    }
    return max;
}

int ice_meta_create(struct ice_meta *m, const struct ice_new_table *in, struct error *err)
{
    memset(m, 0, sizeof *m);
    if (in->format_version != 2 && in->format_version != 3)
        return error_fail(err, ERR_INVALID, "format version %d (2 or 3)", in->format_version);
    if (!in->table_uuid || !str_is_uuid(in->table_uuid))
        return error_fail(err, ERR_INVALID, "the table uuid is not a UUID");
    size_t loclen = in->location ? strlen(in->location) : 0;
    if (!loclen || !strstr(in->location, "://") || in->location[loclen - 1] == '/')
        return error_fail(err, ERR_INVALID,
                          "the location must be an absolute URI without a trailing '/'");
    if (!json_is_object(in->schema) || !json_is_object(in->spec) || !json_is_object(in->sort_order))
        return error_fail(err, ERR_INVALID, "schema, spec and sort order are required");
    if (in->properties && json_object_get(in->properties, "format-version"))
        return error_fail(err, ERR_INVALID, "\"format-version\" is a reserved table property");
    if (check_properties(in->properties, err) != 0)
        return error_fail(err, ERR_INVALID, "table properties must be strings");

    json_t *props = in->properties ? json_deep_copy(in->properties) : json_object();
    json_t *doc = json_pack(
        "{s:i,s:s,s:s,s:I,s:I,s:I,s:O,s:[O],s:O,s:[O],s:I,s:O,s:[O],s:o}", "format-version",
        in->format_version, "table-uuid", in->table_uuid, "location", in->location,
        "last-sequence-number", (json_int_t)0, "last-updated-ms", (json_int_t)in->now_ms,
        "last-column-id", (json_int_t)max_field_id(in->schema), "current-schema-id",
        json_object_get(in->schema, "schema-id"), "schemas", in->schema, "default-spec-id",
        json_object_get(in->spec, "spec-id"), "partition-specs", in->spec, "last-partition-id",
        (json_int_t)max_partition_field_id(in->spec), "default-sort-order-id",
        json_object_get(in->sort_order, "order-id"), "sort-orders", in->sort_order, "properties",
        props);
    if (!doc)
        return error_fail(err, ERR_INVALID,
                          "the schema, spec or sort order lacks its id (or memory ran out)");
    bool ok = true;
    if (in->format_version == 2)
        ok = json_object_set_new(doc, "current-snapshot-id", json_integer(-1)) == 0;
    else
        ok = json_object_set_new(doc, "next-row-id", json_integer(0)) == 0;
    /* Java's empty collections: the most conservative shape for readers. */
    ok = ok && json_object_set_new(doc, "refs", json_object()) == 0 &&
         json_object_set_new(doc, "snapshots", json_array()) == 0 &&
         json_object_set_new(doc, "statistics", json_array()) == 0 &&
         json_object_set_new(doc, "partition-statistics", json_array()) == 0 &&
         json_object_set_new(doc, "snapshot-log", json_array()) == 0 &&
         json_object_set_new(doc, "metadata-log", json_array()) == 0;
    if (!ok) {
        json_decref(doc);
        return error_fail(err, ERR_NOMEM, "out of memory");
    }
    if (parse(doc, m, err) != 0) {
        json_decref(doc);
        memset(m, 0, sizeof *m);
        if (err && err->code == ERR_MALFORMED)
            err->code = ERR_INVALID; /* our inputs, not a stored file, were wrong */
        return -1;
    }
    return 0;
}

int ice_meta_load(struct ice_meta *m, const char *text, size_t len, struct error *err)
{
    memset(m, 0, sizeof *m);
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc)
        return error_fail(err, ERR_MALFORMED,
                          "table metadata is not valid JSON (line %d, column %d): %s", jerr.line,
                          jerr.column, jerr.text);
    if (parse(doc, m, err) != 0) {
        json_decref(doc);
        memset(m, 0, sizeof *m); /* no view may point into the freed document */
        return -1;
    }
    return 0;
}

void ice_meta_free(struct ice_meta *m)
{
    json_decref(m->doc);
    memset(m, 0, sizeof *m);
}

static bool is_known_key(const char *k)
{
    for (size_t i = 0; i < sizeof known_keys / sizeof known_keys[0]; i++)
        if (strcmp(k, known_keys[i]) == 0)
            return true;
    return false;
}

char *ice_meta_dumps(const struct ice_meta *m)
{
    json_t *out = json_object();
    if (!out)
        return NULL;
    bool ok = true;
    for (size_t i = 0; ok && i < sizeof known_keys / sizeof known_keys[0]; i++) {
        json_t *v = json_object_get(m->doc, known_keys[i]);
        if (v)
            ok = json_object_set(out, known_keys[i], v) == 0;
    }
    const char *k;
    json_t *v;
    json_object_foreach (m->doc, k, v) {
        if (ok && !is_known_key(k))
            ok = json_object_set(out, k, v) == 0;
    }
    char *text = ok ? json_dumps(out, JSON_COMPACT) : NULL;
    json_decref(out);
    return text;
}

/* ------------------------------------------------------------ snapshots */

int64_t ice_meta_next_sequence_number(const struct ice_meta *m)
{
    return m->last_sequence_number + 1;
}

int ice_meta_pick_snapshot_id(const struct ice_meta *m, int64_t *out, struct error *err)
{
    const json_t *snaps = json_object_get(m->doc, "snapshots");
    for (int tries = 0; tries < PICK_TRIES; tries++) {
        uint64_t r;
        if (random_bytes(&r, sizeof r) != 0)
            return error_fail(err, ERR_NOMEM, "no randomness: %s", strerror(errno));
        int64_t id = (int64_t)(r & (uint64_t)(SNAPSHOT_ID_LIMIT - 1));
        if (id > 0 && !find_by_id(snaps, "snapshot-id", id)) {
            *out = id;
            return 0;
        }
    }
    return error_fail(err, ERR_INVALID, "no unused snapshot id found");
}

const char *ice_snapshot_summary(const json_t *snapshot, const char *key)
{
    return json_string_value(json_object_get(json_object_get(snapshot, "summary"), key));
}

/* Summary keys written by ice_meta_add_snapshot; extras may not reuse them. */
static const char *const summary_keys[] = {
    "operation",
    "added-data-files",
    "added-records",
    "added-files-size",
    "deleted-data-files",
    "deleted-records",
    "removed-files-size",
    "changed-partition-count",
    "added-delete-files",
    "removed-delete-files",
    "added-position-deletes",
    "removed-position-deletes",
    "added-position-delete-files",
    "removed-position-delete-files",
    "added-dvs",
    "removed-dvs",
    "total-records",
    "total-files-size",
    "total-data-files",
    "total-delete-files",
    "total-position-deletes",
    "total-equality-deletes",
};

static int check_counts(const struct ice_meta *m, const struct ice_snapshot_add *in,
                        struct error *err)
{
    if (in->snapshot_id <= 0 || in->snapshot_id >= SNAPSHOT_ID_LIMIT)
        return error_fail(err, ERR_INVALID, "snapshot id %" PRId64 " is outside [1, 2^53)",
                          in->snapshot_id);
    if (find_by_id(json_object_get(m->doc, "snapshots"), "snapshot-id", in->snapshot_id))
        return error_fail(err, ERR_INVALID, "snapshot id %" PRId64 " is taken", in->snapshot_id);
    if (!in->manifest_list || !strstr(in->manifest_list, "://"))
        return error_fail(err, ERR_INVALID, "the manifest list must be a full URI");
    if (in->added_data_files < 0 || in->added_records < 0 || in->added_files_size < 0 ||
        in->removed_data_files < 0 || in->deleted_records < 0 || in->removed_files_size < 0 ||
        in->added_rows < 0 || in->added_delete_files < 0 || in->removed_delete_files < 0 ||
        in->added_position_deletes < 0 || in->removed_position_deletes < 0 || in->added_dvs < 0 ||
        in->removed_dvs < 0 || in->added_dvs > in->added_delete_files ||
        in->removed_dvs > in->removed_delete_files)
        return error_fail(err, ERR_INVALID, "snapshot counts must not be negative");
    if (in->operation == ICE_OP_APPEND) {
        if (in->added_data_files < 1 || in->removed_data_files || in->deleted_records ||
            in->removed_files_size || in->added_delete_files || in->removed_delete_files)
            return error_fail(err, ERR_INVALID,
                              "an append adds at least one file and removes none");
    } else if (in->operation == ICE_OP_REPLACE) {
        if (in->removed_data_files < 1 ||
            in->added_records != in->deleted_records - in->removed_position_deletes)
            return error_fail(err, ERR_INVALID, "a replace removes files and keeps the live rows");
    } else if (in->operation == ICE_OP_OVERWRITE) {
        if (in->added_data_files < 1 && in->added_delete_files < 1)
            return error_fail(err, ERR_INVALID, "an overwrite adds at least one file");
    } else if (in->operation == ICE_OP_DELETE) {
        if (in->added_data_files || in->added_delete_files < 1)
            return error_fail(err, ERR_INVALID, "a delete adds delete files and no data file");
    } else {
        return error_fail(err, ERR_INVALID, "unknown snapshot operation");
    }
    if (m->format_version >= 3 && in->added_rows > INT64_MAX - m->next_row_id)
        return error_fail(err, ERR_INVALID, "next-row-id would overflow");
    for (size_t i = 0; i < in->nextra; i++) {
        const char *k = in->extra[i].key;
        if (!k || !k[0] || !in->extra[i].value)
            return error_fail(err, ERR_INVALID, "an extra summary key is empty");
        for (size_t j = 0; j < sizeof summary_keys / sizeof summary_keys[0]; j++)
            if (strcmp(k, summary_keys[j]) == 0)
                return error_fail(err, ERR_INVALID,
                                  "summary key \"%s\" is written by the snapshot itself", k);
    }
    return 0;
}

static bool put_count(json_t *summary, const char *key, int64_t v)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRId64, v);
    return json_object_set_new(summary, key, json_string(text)) == 0;
}

/* total-<name> = the parent's total + delta; left out when the parent has a
 * snapshot but no parseable total (another writer did not keep one). */
static int put_total(json_t *summary, const json_t *parent, const char *key, int64_t delta,
                     struct error *err)
{
    int64_t base = 0;
    if (parent) {
        const char *text = ice_snapshot_summary(parent, key);
        if (!text || !str_parse_int64(text, &base))
            return 0;
    }
    if ((delta > 0 && base > INT64_MAX - delta) || base + delta < 0)
        return error_fail(err, ERR_INVALID, "summary %s would be %s (the parent's is %" PRId64 ")",
                          key, delta > 0 ? "too large" : "negative", base);
    return put_count(summary, key, base + delta) ? 0 : error_fail(err, ERR_NOMEM, "out of memory");
}

static json_t *build_summary(const struct ice_meta *m, const struct ice_snapshot_add *in,
                             struct error *err)
{
    static const char *const names[] = {[ICE_OP_APPEND] = "append",
                                        [ICE_OP_REPLACE] = "replace",
                                        [ICE_OP_OVERWRITE] = "overwrite",
                                        [ICE_OP_DELETE] = "delete"};
    json_t *s = json_pack("{s:s}", "operation", names[in->operation]);
    bool ok = s && put_count(s, "added-data-files", in->added_data_files) &&
              put_count(s, "added-records", in->added_records) &&
              put_count(s, "added-files-size", in->added_files_size);
    if (ok && in->removed_data_files)
        ok = put_count(s, "deleted-data-files", in->removed_data_files) &&
             put_count(s, "deleted-records", in->deleted_records) &&
             put_count(s, "removed-files-size", in->removed_files_size);
    if (ok && in->added_delete_files)
        ok = put_count(s, "added-delete-files", in->added_delete_files) &&
             put_count(s, "added-position-delete-files", in->added_delete_files - in->added_dvs) &&
             put_count(s, "added-position-deletes", in->added_position_deletes);
    if (ok && in->added_dvs)
        ok = put_count(s, "added-dvs", in->added_dvs);
    if (ok && in->removed_delete_files)
        ok = put_count(s, "removed-delete-files", in->removed_delete_files) &&
             put_count(s, "removed-position-delete-files",
                       in->removed_delete_files - in->removed_dvs) &&
             put_count(s, "removed-position-deletes", in->removed_position_deletes);
    if (ok && in->removed_dvs)
        ok = put_count(s, "removed-dvs", in->removed_dvs);
    if (ok && in->changed_partition_count >= 0)
        ok = put_count(s, "changed-partition-count", in->changed_partition_count);
    if (!ok) {
        json_decref(s);
        error_fail(err, ERR_NOMEM, "out of memory");
        return NULL;
    }
    const json_t *parent = m->current_snapshot;
    if (put_total(s, parent, "total-records", in->added_records - in->deleted_records, err) != 0 ||
        put_total(s, parent, "total-files-size", in->added_files_size - in->removed_files_size,
                  err) != 0 ||
        put_total(s, parent, "total-data-files", in->added_data_files - in->removed_data_files,
                  err) != 0 ||
        put_total(s, parent, "total-delete-files",
                  in->added_delete_files - in->removed_delete_files, err) != 0 ||
        put_total(s, parent, "total-position-deletes",
                  in->added_position_deletes - in->removed_position_deletes, err) != 0 ||
        put_total(s, parent, "total-equality-deletes", 0, err) != 0)
        goto fail;
    for (size_t i = 0; i < in->nextra; i++) {
        json_t *v = json_string(in->extra[i].value);
        if (!v) {
            error_fail(err, ERR_INVALID, "summary value of \"%s\" is not UTF-8", in->extra[i].key);
            goto fail;
        }
        if (json_object_set_new(s, in->extra[i].key, v) != 0) {
            error_fail(err, ERR_INVALID, "summary key \"%s\" is not UTF-8", in->extra[i].key);
            goto fail;
        }
    }
    return s;
fail:
    json_decref(s);
    return NULL;
}

/* Appends entry (taken) to doc[key], creating the array when absent. */
static bool append_to(json_t *doc, const char *key, json_t *entry)
{
    json_t *arr = json_object_get(doc, key);
    if (!entry)
        return false;
    if (!arr) {
        arr = json_array();
        if (!arr || json_object_set_new(doc, key, arr) != 0) {
            json_decref(entry);
            return false;
        }
    }
    return json_array_append_new(arr, entry) == 0;
}

static size_t metadata_log_max(const json_t *doc)
{
    const char *v = json_string_value(json_object_get(json_object_get(doc, "properties"),
                                                      "write.metadata.previous-versions-max"));
    int64_t n;
    if (v && str_parse_int64(v, &n) && n >= 1)
        return (size_t)n;
    return METADATA_LOG_DEFAULT_MAX;
}

/* Appends the version a change replaces to doc's metadata-log (written at
 * `at`), trimmed to write.metadata.previous-versions-max, oldest first. */
static bool log_previous(json_t *doc, int64_t at, const char *previous)
{
    bool ok = append_to(
        doc, "metadata-log",
        json_pack("{s:I,s:s}", "timestamp-ms", (json_int_t)at, "metadata-file", previous));
    json_t *log = json_object_get(doc, "metadata-log");
    size_t max = metadata_log_max(doc);
    while (ok && json_array_size(log) > max)
        ok = json_array_remove(log, 0) == 0;
    return ok;
}

/* Removes from doc[key] every object whose id_key is in `ids`. */
static bool drop_listed(json_t *doc, const char *key, const char *id_key, const int64_t *ids,
                        size_t n)
{
    json_t *list = json_object_get(doc, key);
    for (size_t i = json_array_size(list); i-- > 0;) {
        int64_t id = json_integer_value(json_object_get(json_array_get(list, i), id_key));
        for (size_t k = 0; k < n; k++) {
            if (ids[k] == id) {
                if (json_array_remove(list, i) != 0)
                    return false;
                break;
            }
        }
    }
    return true;
}

bool ice_meta_snapshot_pinned(const struct ice_meta *m, int64_t id)
{
    if (m->has_current_snapshot && id == m->current_snapshot_id)
        return true;
    const char *name;
    const json_t *ref;
    json_object_foreach ((json_t *)json_object_get(m->doc, "refs"), name, ref) {
        if (json_integer_value(json_object_get(ref, "snapshot-id")) == id)
            return true;
    }
    return false;
}

int ice_meta_remove_snapshots(struct ice_meta *m, const int64_t *ids, size_t n, int64_t now_ms,
                              const char *previous_metadata_file, struct error *err)
{
    for (size_t k = 0; k < n; k++) {
        if (ice_meta_snapshot_pinned(m, ids[k]))
            return error_fail(err, ERR_INVALID, "snapshot %" PRId64 " is current or named by a ref",
                              ids[k]);
    }
    json_t *doc = json_deep_copy(m->doc);
    int64_t ts = now_ms > m->last_updated_ms ? now_ms : m->last_updated_ms;
    bool ok =
        doc && drop_listed(doc, "snapshots", "snapshot-id", ids, n) &&
        drop_listed(doc, "snapshot-log", "snapshot-id", ids, n) &&
        json_object_set_new(doc, "last-updated-ms", json_integer(ts)) == 0 &&
        (!previous_metadata_file || log_previous(doc, m->last_updated_ms, previous_metadata_file));
    if (!ok) {
        json_decref(doc);
        return error_fail(err, ERR_NOMEM, "out of memory (or a path is not UTF-8)");
    }
    return adopt(m, doc, err);
}

int ice_meta_add_snapshot(struct ice_meta *m, const struct ice_snapshot_add *in, struct error *err)
{
    if (check_counts(m, in, err) != 0)
        return -1;
    int64_t seq = m->last_sequence_number + 1;
    int64_t ts = in->timestamp_ms > m->last_updated_ms ? in->timestamp_ms : m->last_updated_ms;
    json_t *summary = build_summary(m, in, err);
    if (!summary)
        return -1;
    json_t *snap = json_pack("{s:I}", "snapshot-id", (json_int_t)in->snapshot_id);
    bool ok = snap != NULL;
    if (ok && m->has_current_snapshot)
        ok = json_object_set_new(snap, "parent-snapshot-id",
                                 json_integer(m->current_snapshot_id)) == 0;
    ok =
        ok && json_object_set_new(snap, "sequence-number", json_integer(seq)) == 0 &&
        json_object_set_new(snap, "timestamp-ms", json_integer(ts)) == 0 &&
        json_object_set_new(snap, "manifest-list", json_string(in->manifest_list)) == 0 &&
        json_object_set(snap, "summary", summary) == 0 &&
        json_object_set_new(
            snap, "schema-id",
            json_integer(json_integer_value(json_object_get(m->current_schema, "schema-id")))) == 0;
    if (ok && m->format_version >= 3)
        ok = json_object_set_new(snap, "first-row-id", json_integer(m->next_row_id)) == 0 &&
             json_object_set_new(snap, "added-rows", json_integer(in->added_rows)) == 0;
    json_decref(summary);

    json_t *doc = ok ? json_deep_copy(m->doc) : NULL;
    json_t *refs = doc ? json_object_get(doc, "refs") : NULL;
    if (doc)
        ok = append_to(doc, "snapshots", snap);
    else
        json_decref(snap);
    ok = ok && doc;
    if (ok && !refs) {
        refs = json_object();
        ok = refs && json_object_set_new(doc, "refs", refs) == 0;
    }
    ok = ok &&
         json_object_set_new(refs, "main",
                             json_pack("{s:I,s:s}", "snapshot-id", (json_int_t)in->snapshot_id,
                                       "type", "branch")) == 0 &&
         json_object_set_new(doc, "current-snapshot-id", json_integer(in->snapshot_id)) == 0 &&
         json_object_set_new(doc, "last-sequence-number", json_integer(seq)) == 0 &&
         json_object_set_new(doc, "last-updated-ms", json_integer(ts)) == 0 &&
         append_to(doc, "snapshot-log",
                   json_pack("{s:I,s:I}", "timestamp-ms", (json_int_t)ts, "snapshot-id",
                             (json_int_t)in->snapshot_id));
    if (ok && m->format_version >= 3)
        ok = json_object_set_new(doc, "next-row-id",
                                 json_integer(m->next_row_id + in->added_rows)) == 0;
    if (ok && in->previous_metadata_file)
        ok = log_previous(doc, m->last_updated_ms, in->previous_metadata_file);
    if (!ok) {
        json_decref(doc);
        return error_fail(err, ERR_NOMEM, "out of memory (or a path is not UTF-8)");
    }
    return adopt(m, doc, err);
}

/* ------------------------------------------------------------ sort order, schema */

/* In doc (a working copy): adds entry (copied, its id_key set to
 * max(id, fresh_floor - 1) + 1) to doc[list_key] unless an entry equal to
 * it apart from the id is listed, then points default_key at the entry.
 * *moved says whether default_key changed. */
static int choose_entry(json_t *doc, const char *list_key, const char *id_key,
                        const char *default_key, const json_t *entry, int64_t fresh_floor,
                        bool *moved, struct error *err)
{
    json_t *want = json_deep_copy(entry);
    if (!want)
        return error_fail(err, ERR_NOMEM, "out of memory");
    json_object_del(want, id_key);
    json_t *list = json_object_get(doc, list_key);
    int64_t max_id = fresh_floor - 1, found = 0;
    bool have = false, ok = true;
    size_t i;
    const json_t *e;
    json_array_foreach (list, i, e) {
        int64_t id = json_integer_value(json_object_get(e, id_key));
        max_id = id > max_id ? id : max_id;
        json_t *cmp = json_deep_copy(e);
        ok = ok && cmp && json_object_del(cmp, id_key) == 0;
        if (ok && !have && json_equal(cmp, want)) {
            have = true;
            found = id;
        }
        json_decref(cmp);
    }
    if (ok && !have) {
        found = max_id + 1;
        ok = json_object_set_new(want, id_key, json_integer(found)) == 0 &&
             json_array_append(list, want) == 0;
    }
    json_decref(want);
    int64_t before = json_integer_value(json_object_get(doc, default_key));
    if (!ok || json_object_set_new(doc, default_key, json_integer(found)) != 0)
        return error_fail(err, ERR_NOMEM, "out of memory");
    *moved = before != found;
    return 0;
}

int ice_meta_set_sort_order(struct ice_meta *m, const json_t *order, bool *changed,
                            struct error *err)
{
    const json_t *fields = json_object_get(order, "fields");
    if (!json_is_array(fields))
        return error_fail(err, ERR_INVALID, "a sort order needs a fields array");
    json_t *doc = json_deep_copy(m->doc);
    if (!doc)
        return error_fail(err, ERR_NOMEM, "out of memory");
    bool moved;
    if (json_array_size(fields) == 0) {
        /* Order id 0 is reserved for unsorted (and only for it). */
        json_t *orders = json_object_get(doc, "sort-orders");
        bool ok =
            find_by_id(orders, "order-id", 0) ||
            json_array_append_new(orders, json_pack("{s:i,s:[]}", "order-id", 0, "fields")) == 0;
        moved = json_integer_value(json_object_get(doc, "default-sort-order-id")) != 0;
        if (!ok || json_object_set_new(doc, "default-sort-order-id", json_integer(0)) != 0) {
            json_decref(doc);
            return error_fail(err, ERR_NOMEM, "out of memory");
        }
    } else if (choose_entry(doc, "sort-orders", "order-id", "default-sort-order-id", order, 1,
                            &moved, err) != 0) {
        json_decref(doc);
        return -1;
    }
    if (adopt(m, doc, err) != 0)
        return -1;
    *changed = moved;
    return 0;
}

int ice_meta_set_schema(struct ice_meta *m, const json_t *schema, bool *changed, struct error *err)
{
    if (!json_is_object(schema) || !json_is_array(json_object_get(schema, "fields")))
        return error_fail(err, ERR_INVALID, "a schema needs a fields array");
    json_t *doc = json_deep_copy(m->doc);
    if (!doc)
        return error_fail(err, ERR_NOMEM, "out of memory");
    bool moved;
    int64_t top = max_field_id(schema);
    if (choose_entry(doc, "schemas", "schema-id", "current-schema-id", schema, 0, &moved, err) !=
        0) {
        json_decref(doc);
        return -1;
    }
    if (top > m->last_column_id &&
        json_object_set_new(doc, "last-column-id", json_integer(top)) != 0) {
        json_decref(doc);
        return error_fail(err, ERR_NOMEM, "out of memory");
    }
    if (adopt(m, doc, err) != 0)
        return -1;
    *changed = moved;
    return 0;
}

int ice_meta_set_properties(struct ice_meta *m, const json_t *props, bool *changed,
                            struct error *err)
{
    if (json_object_get(props, "format-version"))
        return error_fail(err, ERR_INVALID, "\"format-version\" is not a table property");
    if (check_properties(props, err) != 0)
        return error_fail(err, ERR_INVALID, "table properties must be strings");
    json_t *doc = json_deep_copy(m->doc);
    json_t *have = doc ? json_object_get(doc, "properties") : NULL;
    if (doc && !have && json_object_set_new(doc, "properties", have = json_object()) != 0)
        have = NULL;
    bool moved = false;
    const char *k;
    json_t *v;
    json_object_foreach ((json_t *)props, k, v) {
        if (!have)
            break;
        if (json_equal(json_object_get(have, k), v))
            continue;
        moved = true;
        if (json_object_set(have, k, v) != 0)
            have = NULL;
    }
    if (!have) {
        json_decref(doc);
        return error_fail(err, ERR_NOMEM, "out of memory");
    }
    if (adopt(m, doc, err) != 0)
        return -1;
    *changed = moved;
    return 0;
}

const char *ice_meta_property(const struct ice_meta *m, const char *key)
{
    return json_string_value(json_object_get(json_object_get(m->doc, "properties"), key));
}

const json_t *ice_meta_find_summary_key(const struct ice_meta *m, const char *key)
{
    const json_t *snaps = json_object_get(m->doc, "snapshots");
    const json_t *s = m->current_snapshot;
    /* Bounded by the snapshot count, so a parent cycle cannot loop. */
    for (size_t steps = 0; s && steps <= json_array_size(snaps); steps++) {
        if (ice_snapshot_summary(s, key))
            return s;
        const json_t *parent = json_object_get(s, "parent-snapshot-id");
        s = json_is_integer(parent) ? find_by_id(snaps, "snapshot-id", json_integer_value(parent))
                                    : NULL;
    }
    return NULL;
}
