#include "server/commit/commit_req.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/http/api.h"
#include "util/buf.h"
#include "util/jsonx.h"
#include "util/strutil.h"

/* ---- reading ---- */

struct reader {
    const struct commit_rules *rules;
    struct arena *a;
    struct api_error *err;
    char where[160];
};

/* ---- the endpoints ---- */

const struct commit_rules commit_rules_plain = {0};
const struct commit_rules commit_rules_prepared = {.needs_key = true};
const struct commit_rules commit_rules_deletes = {
    .needs_key = true,
    .needs_read_snapshot = true,
    .needs_table_uuids = true,
    .needs_deletes = true,
    .refuses_appends = true,
    .zero_row_deletes = true,
    .unchanged_tables = true,
};
const struct commit_rules commit_rules_mutations = {
    .needs_key = true,
    .needs_read_snapshot = true,
    .needs_table_uuids = true,
    .needs_deletes = true,
    .unchanged_tables = true,
    .explicit_row_ids = true,
};
const struct commit_rules commit_rules_uploads = {
    .needs_key = true,
    .needs_read_snapshot = true,
    .needs_table_uuids = true,
    .claims_by_key = true,
};
const struct commit_rules commit_rules_transaction = {
    .needs_key = true,
    .needs_read_snapshot = true,
    .needs_table_uuids = true,
    .unchanged_tables = true,
    .pending_deletes = true,
    .explicit_row_ids = true,
};

static int shape(struct reader *r, const json_t *obj, const struct jfield *fields, size_t n)
{
    struct error e;
    if (jsonx_read_object(obj, r->where, fields, n, &e) != 0)
        return api_bad_request(r->err, "%s", e.msg);
    return 0;
}

static int nomem(struct reader *r)
{
    return api_nomem(r->err);
}

static const char *dup_string(struct reader *r, const json_t *v)
{
    return v && json_is_string(v) ? arena_strndup(r->a, json_string_value(v), json_string_length(v))
                                  : NULL;
}

/* A non-negative integer member, with the contract's upper bound. */
static int count(struct reader *r, const json_t *v, const char *name, int64_t max, int64_t *out)
{
    json_int_t x = json_integer_value(v);
    if (x < 0 || x > max)
        return api_validation(r->err, "%s.%s must be between 0 and %lld, got %lld", r->where, name,
                              (long long)max, (long long)x);
    *out = (int64_t)x;
    return 0;
}

static int read_stat(struct reader *r, const json_t *obj, struct commit_stat *s)
{
    json_t *fid, *vc, *nc, *nan, *size, *lo, *hi;
    const struct jfield fields[] = {
        {"field_id", JF_INT, true, false, &fid},      {"value_count", JF_INT, true, false, &vc},
        {"null_count", JF_INT, true, false, &nc},     {"nan_count", JF_INT, false, true, &nan},
        {"size_bytes", JF_INT, false, true, &size},   {"lower_bound", JF_STRING, false, true, &lo},
        {"upper_bound", JF_STRING, false, true, &hi},
    };
    if (shape(r, obj, fields, sizeof fields / sizeof fields[0]) != 0)
        return -1;
    memset(s, 0, sizeof *s);
    json_int_t id = json_integer_value(fid);
    if (id < 1 || id > INT32_MAX)
        return api_validation(r->err, "%s.field_id must be a column's field id, got %lld", r->where,
                              (long long)id);
    s->field_id = (int64_t)id;
    if (count(r, vc, "value_count", INT64_MAX, &s->value_count) != 0 ||
        count(r, nc, "null_count", INT64_MAX, &s->null_count) != 0)
        return -1;
    if (nan && !json_is_null(nan)) {
        s->has_nan_count = true;
        if (count(r, nan, "nan_count", INT64_MAX, &s->nan_count) != 0)
            return -1;
    }
    if (size && !json_is_null(size)) {
        s->has_size_bytes = true;
        if (count(r, size, "size_bytes", INT64_MAX, &s->size_bytes) != 0)
            return -1;
    }
    if (lo && !json_is_null(lo) && !(s->lower_b64 = dup_string(r, lo)))
        return nomem(r);
    if (hi && !json_is_null(hi) && !(s->upper_b64 = dup_string(r, hi)))
        return nomem(r);
    return 0;
}

static int read_file(struct reader *r, const json_t *obj, struct commit_file *f)
{
    json_t *path, *records, *size, *footer, *stats, *parts, *splits, *explicit_ids;
    const struct jfield fields[] = {
        {"path", JF_STRING, true, false, &path},
        {"record_count", JF_INT, true, false, &records},
        {"file_size_bytes", JF_INT, true, false, &size},
        {"footer_size", JF_INT, false, true, &footer},
        {"column_stats", JF_ARRAY, false, true, &stats},
        {"partition_values", JF_ARRAY, false, true, &parts},
        {"split_offsets", JF_ARRAY, false, true, &splits},
        {"explicit_row_ids", JF_BOOL, false, true, &explicit_ids},
    };
    if (shape(r, obj, fields, sizeof fields / sizeof fields[0]) != 0)
        return -1;
    memset(f, 0, sizeof *f);
    if (!(f->path = dup_string(r, path)))
        return nomem(r);
    if (count(r, records, "record_count", COMMIT_MAX_RECORD_COUNT, &f->record_count) != 0 ||
        count(r, size, "file_size_bytes", INT64_MAX, &f->file_size_bytes) != 0)
        return -1;
    f->explicit_row_ids = explicit_ids && json_is_true(explicit_ids);
    /* Rows that keep their ids are an update's rewrite: only endpoints
     * that delete the old rows in the same snapshot take them. */
    if (f->explicit_row_ids && !r->rules->explicit_row_ids)
        return api_validation(r->err,
                              "%s.explicit_row_ids is only accepted by the mutations and "
                              "transaction endpoints",
                              r->where);
    if (footer && !json_is_null(footer)) {
        f->has_footer_size = true;
        if (count(r, footer, "footer_size", INT64_MAX, &f->footer_size) != 0)
            return -1;
        /* The footer sits before its 4-byte length and the 4-byte magic. */
        if (f->footer_size > f->file_size_bytes - 8)
            return api_validation(
                r->err, "%s.footer_size %lld does not fit in a %lld-byte Parquet file", r->where,
                (long long)f->footer_size, (long long)f->file_size_bytes);
    }
    size_t base = strlen(r->where);
    if (stats && !json_is_null(stats)) {
        f->has_stats = true;
        f->nstats = json_array_size(stats);
        f->stats = arena_calloc(r->a, f->nstats ? f->nstats : 1, sizeof *f->stats);
        if (!f->stats)
            return nomem(r);
        for (size_t i = 0; i < f->nstats; i++) {
            snprintf(r->where + base, sizeof r->where - base, ".column_stats[%zu]", i);
            if (read_stat(r, json_array_get(stats, i), &f->stats[i]) != 0)
                return -1;
        }
        r->where[base] = '\0';
    }
    if (parts && !json_is_null(parts)) {
        f->has_partition_values = true;
        f->npartition_values = json_array_size(parts);
        f->partition_values =
            arena_calloc(r->a, f->npartition_values ? f->npartition_values : 1, sizeof(char *));
        if (!f->partition_values)
            return nomem(r);
        for (size_t i = 0; i < f->npartition_values; i++) {
            const json_t *v = json_array_get(parts, i);
            if (json_is_null(v))
                continue;
            if (!json_is_string(v))
                return api_bad_request(r->err, "%s.partition_values[%zu] must be a string or null",
                                       r->where, i);
            if (json_string_length(v) > COMMIT_MAX_PARTITION_VALUE_BYTES)
                return api_validation(
                    r->err, "%s.partition_values[%zu] is %zu bytes, longer than %d", r->where, i,
                    json_string_length(v), COMMIT_MAX_PARTITION_VALUE_BYTES);
            if (!(f->partition_values[i] = dup_string(r, v)))
                return nomem(r);
        }
    }
    if (splits && !json_is_null(splits)) {
        size_t n = json_array_size(splits);
        if (n < 1 || n > COMMIT_MAX_SPLITS)
            return api_validation(r->err, "%s.split_offsets must hold 1 to %d offsets, got %zu",
                                  r->where, COMMIT_MAX_SPLITS, n);
        f->split_offsets = arena_calloc(r->a, n, sizeof *f->split_offsets);
        if (!f->split_offsets)
            return nomem(r);
        f->nsplit_offsets = n;
        for (size_t i = 0; i < n; i++) {
            const json_t *v = json_array_get(splits, i);
            if (!json_is_integer(v))
                return api_bad_request(r->err, "%s.split_offsets[%zu] must be an integer", r->where,
                                       i);
            json_int_t x = json_integer_value(v);
            if (x < 0 || x >= f->file_size_bytes || (i > 0 && x <= f->split_offsets[i - 1]))
                return api_validation(r->err,
                                      "%s.split_offsets must increase strictly within [0, "
                                      "file_size_bytes); offset %zu is %lld",
                                      r->where, i, (long long)x);
            f->split_offsets[i] = (int64_t)x;
        }
    }
    return 0;
}

static int read_dv(struct reader *r, const json_t *obj, struct commit_dv *d)
{
    json_t *target, *target_path, *path, *deletes, *size, *removes;
    const struct jfield fields[] = {
        {"data_file_id", JF_INT, true, false, &target},
        {"data_file_path", JF_STRING, false, true, &target_path},
        {"path", JF_STRING, true, false, &path},
        {"delete_count", JF_INT, true, false, &deletes},
        {"file_size_bytes", JF_INT, true, false, &size},
        {"removes_file", JF_BOOL, false, true, &removes},
    };
    if (shape(r, obj, fields, sizeof fields / sizeof fields[0]) != 0)
        return -1;
    /* Naming the target by path is for a DV on a file added by the same
     * transaction (the transaction endpoint). */
    bool by_path = target_path && !json_is_null(target_path);
    if (by_path && !r->rules->pending_deletes)
        return api_validation(r->err,
                              "%s.data_file_path is only accepted by the transaction "
                              "endpoint",
                              r->where);
    memset(d, 0, sizeof *d);
    d->removes_file = removes && json_is_true(removes);
    /* A file this commit appends and deletes whole is better not appended. */
    if (d->removes_file && by_path)
        return api_validation(
            r->err, "%s.removes_file cannot remove a file the same commit appends", r->where);
    if (!(d->path = dup_string(r, path)))
        return nomem(r);
    if (count(r, target, "data_file_id", INT64_MAX, &d->data_file_id) != 0 ||
        count(r, size, "file_size_bytes", INT64_MAX, &d->file_size_bytes) != 0 ||
        count(r, deletes, "delete_count", COMMIT_MAX_RECORD_COUNT, &d->delete_count) != 0)
        return -1;
    if (d->delete_count == 0)
        return api_validation(r->err, "%s.delete_count must be positive", r->where);
    if (!by_path)
        return 0;
    if (d->data_file_id != 0)
        return api_validation(r->err,
                              "%s names its target by data_file_path, so its data_file_id must be "
                              "0, got %lld",
                              r->where, (long long)d->data_file_id);
    /* Resolved once the groups are merged (merge_groups): the table's
     * appended files are all known then. */
    d->targets_append = true;
    return (d->target_path = dup_string(r, target_path)) ? 0 : nomem(r);
}

/* A new table entry for one group, at the end: entries naming the same
 * table are merged once every group is read (merge_groups). A search per
 * group would be quadratic in the groups of a body. */
static struct commit_table *group_entry(struct reader *r, struct commit_request *c, const char *ns,
                                        const char *name, size_t *cap)
{
    if (c->ntables == *cap) {
        size_t n = *cap ? *cap * 2 : 4;
        struct commit_table *t = arena_calloc(r->a, n, sizeof *t);
        if (!t)
            return NULL;
        if (c->ntables)
            memcpy(t, c->tables, c->ntables * sizeof *t);
        c->tables = t;
        *cap = n;
    }
    struct commit_table *t = &c->tables[c->ntables++];
    memset(t, 0, sizeof *t);
    t->namespace_name = ns;
    t->name = name;
    return t;
}

static int read_groups(struct reader *r, const json_t *groups, bool deletes,
                       struct commit_request *c, size_t *cap)
{
    const char *kind = deletes ? "deletes" : "appends";
    for (size_t g = 0; g < json_array_size(groups); g++) {
        snprintf(r->where, sizeof r->where, "%s[%zu]", kind, g);
        json_t *ns, *table, *uuid, *files;
        const struct jfield fields[] = {
            {"namespace", JF_STRING, true, false, &ns},
            {"table", JF_STRING, true, false, &table},
            {"expected_table_uuid", JF_STRING, false, true, &uuid},
            {"files", JF_ARRAY, true, false, &files},
        };
        if (shape(r, json_array_get(groups, g), fields, sizeof fields / sizeof fields[0]) != 0)
            return -1;
        const char *uuid_s = uuid && json_is_string(uuid) ? json_string_value(uuid) : NULL;
        if (uuid_s && !str_is_uuid(uuid_s))
            return api_bad_request(r->err, "%s.expected_table_uuid must be a UUID", r->where);
        if (!uuid_s && r->rules->needs_table_uuids)
            return api_validation(r->err,
                                  "%s.expected_table_uuid is required by this endpoint: every "
                                  "group names the table incarnation it read",
                                  r->where);
        size_t nf = json_array_size(files);
        if (nf == 0 && !deletes)
            return api_validation(r->err, "%s.files must hold at least one file", r->where);
        const char *ns_s = dup_string(r, ns), *name_s = dup_string(r, table);
        if (!ns_s || !name_s)
            return nomem(r);
        if (api_check_ident("namespace", ns_s, r->err) != 0 ||
            api_check_ident("table", name_s, r->err) != 0)
            return -1;
        struct commit_table *t = group_entry(r, c, ns_s, name_s, cap);
        if (!t)
            return nomem(r);
        if (uuid_s) {
            char lower[37];
            str_lower(lower, sizeof lower, uuid_s);
            const char **u = arena_calloc(r->a, 1, sizeof *u);
            if (!u || !(*u = arena_strdup(r->a, lower)))
                return nomem(r);
            t->expected_uuids = u;
            t->nexpected = 1;
        }
        size_t base = strlen(r->where);
        if (deletes) {
            t->in_deletes = true;
            struct commit_dv *dvs = arena_calloc(r->a, nf ? nf : 1, sizeof *dvs);
            if (!dvs)
                return nomem(r);
            for (size_t i = 0; i < nf; i++) {
                snprintf(r->where + base, sizeof r->where - base, ".files[%zu]", i);
                if (read_dv(r, json_array_get(files, i), &dvs[i]) != 0)
                    return -1;
            }
            t->dvs = dvs;
            t->ndvs = nf;
            c->ndvs += nf;
        } else {
            struct commit_file *fs = arena_calloc(r->a, nf, sizeof *fs);
            if (!fs)
                return nomem(r);
            for (size_t i = 0; i < nf; i++) {
                snprintf(r->where + base, sizeof r->where - base, ".files[%zu]", i);
                if (read_file(r, json_array_get(files, i), &fs[i]) != 0)
                    return -1;
                c->has_partition_values |= fs[i].has_partition_values;
            }
            t->files = fs;
            t->nfiles = nf;
            c->nfiles += nf;
        }
    }
    return 0;
}

/* ---- merging groups by table ---- */

/* A group's entry, for sorting by table and then by position. */
struct entry_key {
    const struct commit_table *t;
    size_t at;
};

/* Orders entries by namespace, then name (compared exactly). */
static int cmp_table_names(const struct commit_table *x, const struct commit_table *y)
{
    int c = strcmp(x->namespace_name, y->namespace_name);
    return c ? c : strcmp(x->name, y->name);
}

static int cmp_entry_keys(const void *a, const void *b)
{
    const struct entry_key *x = a, *y = b;
    int c = cmp_table_names(x->t, y->t);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* An appended file's path, for finding a deletion vector's target. */
struct path_key {
    const char *path;
    size_t index;
};

static int cmp_path_keys(const void *a, const void *b)
{
    const struct path_key *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Where merged vector i of a table came from: its deletes group (the
 * entry's position less the appends groups before it) and its index in
 * that group, for its error. keys: the table's entries, in request
 * order. */
static void dv_source(const struct entry_key *keys, size_t n, size_t nappend_groups, size_t i,
                      size_t *group, size_t *index)
{
    size_t k = 0;
    while (k + 1 < n && i >= keys[k].t->ndvs) {
        i -= keys[k].t->ndvs;
        k++;
    }
    *group = keys[k].at - nappend_groups;
    *index = i;
}

/* Points each deletion vector of m (merged from its entries, keys) that
 * names its target by path at the first of m's appended files with that
 * path. A sorted index, not a search per vector: a body may hold many of
 * both. */
static int resolve_append_targets(struct reader *r, struct commit_table *m,
                                  const struct entry_key *keys, size_t n, size_t nappend_groups)
{
    struct path_key *paths = NULL;
    for (size_t i = 0; i < m->ndvs; i++) {
        struct commit_dv *d = &m->dvs[i];
        if (!d->target_path)
            continue;
        if (!paths && m->nfiles) {
            if (!(paths = arena_calloc(r->a, m->nfiles, sizeof *paths)))
                return nomem(r);
            for (size_t f = 0; f < m->nfiles; f++)
                paths[f] = (struct path_key){m->files[f].path, f};
            qsort(paths, m->nfiles, sizeof *paths, cmp_path_keys);
        }
        /* The first of equal paths: the lowest index, the one a search in
         * order would find (a path twice is refused after). */
        size_t lo = 0, hi = m->nfiles;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(paths[mid].path, d->target_path) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == m->nfiles || strcmp(paths[lo].path, d->target_path) != 0) {
            size_t group, index;
            dv_source(keys, n, nappend_groups, i, &group, &index);
            return api_validation(r->err,
                                  "deletes[%zu].files[%zu].data_file_path '%.300s' is not a file "
                                  "this commit appends to %s.%s",
                                  group, index, d->target_path, m->namespace_name, m->name);
        }
        d->append_index = paths[lo].index;
    }
    return 0;
}

/* One table from its groups' entries (keys, in request order): their
 * files, vectors and expected uuids concatenated in that order. */
static int merge_run(struct reader *r, const struct entry_key *keys, size_t n,
                     size_t nappend_groups, struct commit_table *m)
{
    *m = *keys[0].t;
    size_t nfiles = 0, ndvs = 0, nexpected = 0;
    for (size_t k = 0; k < n; k++) {
        nfiles += keys[k].t->nfiles;
        ndvs += keys[k].t->ndvs;
        nexpected += keys[k].t->nexpected;
    }
    if (n > 1) {
        m->files = arena_calloc(r->a, nfiles ? nfiles : 1, sizeof *m->files);
        m->dvs = arena_calloc(r->a, ndvs ? ndvs : 1, sizeof *m->dvs);
        m->expected_uuids =
            arena_calloc(r->a, nexpected ? nexpected : 1, sizeof *m->expected_uuids);
        if (!m->files || !m->dvs || !m->expected_uuids)
            return nomem(r);
        m->nfiles = m->ndvs = m->nexpected = 0;
        for (size_t k = 0; k < n; k++) {
            const struct commit_table *t = keys[k].t;
            if (t->nfiles)
                memcpy(m->files + m->nfiles, t->files, t->nfiles * sizeof *t->files);
            if (t->ndvs)
                memcpy(m->dvs + m->ndvs, t->dvs, t->ndvs * sizeof *t->dvs);
            if (t->nexpected)
                memcpy(m->expected_uuids + m->nexpected, t->expected_uuids,
                       t->nexpected * sizeof *t->expected_uuids);
            m->nfiles += t->nfiles;
            m->ndvs += t->ndvs;
            m->nexpected += t->nexpected;
            m->in_deletes |= t->in_deletes;
        }
    }
    return resolve_append_targets(r, m, keys, n, nappend_groups);
}

/* Merges the entries naming the same table (namespace and name compared
 * exactly), each table where its first group was: one sort, so a body of
 * many groups costs n log n, not a search per group. The first
 * nappend_groups entries are the appends groups, the rest the deletes
 * groups, in request order. */
static int merge_groups(struct reader *r, struct commit_request *c, size_t nappend_groups)
{
    size_t n = c->ntables;
    if (n == 0)
        return 0;
    struct entry_key *keys = arena_calloc(r->a, n, sizeof *keys);
    struct commit_table *merged = arena_calloc(r->a, n, sizeof *merged);
    bool *first = arena_calloc(r->a, n, sizeof *first);
    if (!keys || !merged || !first)
        return nomem(r);
    for (size_t i = 0; i < n; i++)
        keys[i] = (struct entry_key){&c->tables[i], i};
    qsort(keys, n, sizeof *keys, cmp_entry_keys);
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo + 1; hi < n && cmp_table_names(keys[hi].t, keys[lo].t) == 0; hi++)
            ;
        first[keys[lo].at] = true;
        if (merge_run(r, keys + lo, hi - lo, nappend_groups, &merged[keys[lo].at]) != 0)
            return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (first[i])
            c->tables[k++] = merged[i];
    c->ntables = k;
    return 0;
}

static int cmp_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One object, one registration: a path twice in a commit would count its
 * rows twice. */
static int check_duplicate_paths(struct reader *r, const struct commit_request *c)
{
    size_t n = c->nfiles + c->ndvs, k = 0;
    const char **paths = arena_calloc(r->a, n ? n : 1, sizeof *paths);
    if (!paths)
        return nomem(r);
    for (size_t t = 0; t < c->ntables; t++) {
        for (size_t i = 0; i < c->tables[t].nfiles; i++)
            paths[k++] = c->tables[t].files[i].path;
        for (size_t i = 0; i < c->tables[t].ndvs; i++)
            paths[k++] = c->tables[t].dvs[i].path;
    }
    qsort(paths, n, sizeof *paths, cmp_strings);
    for (size_t i = 1; i < n; i++)
        if (strcmp(paths[i], paths[i - 1]) == 0)
            return api_validation(r->err, "path '%.300s' appears twice in the commit", paths[i]);
    return 0;
}

/* ---- the fingerprint ---- */

/* The canonical form (contract §4.6): the request without its key, null
 * members and empty group lists dropped, expected_table_uuid lower-cased,
 * the groups, the files in each group and each file's statistics sorted by
 * their own canonical text (bytewise); partition values keep their order.
 * Written compact with object members sorted by name: exactly what
 * json_dumps(JSON_COMPACT | JSON_SORT_KEYS) writes for that normalized
 * request, built in one pass so that each element is written once however
 * deep the sorting goes. Hashed with SHA-256 behind a version byte. */

/* The arrays whose elements are sorted (each is one of the request's
 * lists of groups, files or statistics: the body is validated first). */
static bool sorted_list(const char *key)
{
    return key && (strcmp(key, "appends") == 0 || strcmp(key, "deletes") == 0 ||
                   strcmp(key, "files") == 0 || strcmp(key, "column_stats") == 0);
}

static int canon_value(const json_t *v, const char *key, bool top, struct buf *out);

/* A string as jansson writes it: the common case (nothing to escape)
 * directly, anything else through jansson itself. */
static int canon_string(const char *s, size_t n, struct buf *out)
{
    bool plain = true;
    for (size_t i = 0; i < n && plain; i++)
        plain = (unsigned char)s[i] >= 0x20 && s[i] != '"' && s[i] != '\\';
    if (plain)
        return buf_putc(out, '"') || buf_append(out, s, n) || buf_putc(out, '"') ? -1 : 0;
    json_t *j = json_stringn(s, n);
    char *text = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    json_decref(j);
    int rc = text ? buf_puts(out, text) : -1;
    free(text);
    return rc;
}

struct member {
    const char *key;
    const json_t *value;
};

static int cmp_members(const void *a, const void *b)
{
    return strcmp(((const struct member *)a)->key, ((const struct member *)b)->key);
}

static int canon_object(const json_t *v, bool top, struct buf *out)
{
    size_t n = json_object_size(v), k = 0;
    struct member *m = calloc(n ? n : 1, sizeof *m);
    if (!m)
        return -1;
    const char *key;
    json_t *member;
    json_object_foreach ((json_t *)v, key, member) {
        bool empty_list = top && (strcmp(key, "appends") == 0 || strcmp(key, "deletes") == 0) &&
                          json_array_size(member) == 0;
        if (json_is_null(member) || empty_list || (top && strcmp(key, "idempotency_key") == 0))
            continue;
        m[k++] = (struct member){key, member};
    }
    qsort(m, k, sizeof *m, cmp_members);
    int rc = buf_putc(out, '{');
    for (size_t i = 0; i < k && rc == 0; i++) {
        if (i)
            rc = buf_putc(out, ',');
        if (rc == 0)
            rc = canon_string(m[i].key, strlen(m[i].key), out);
        if (rc == 0)
            rc = buf_putc(out, ':');
        char lower[64];
        if (rc == 0 && strcmp(m[i].key, "expected_table_uuid") == 0 && json_is_string(m[i].value) &&
            str_lower(lower, sizeof lower, json_string_value(m[i].value)))
            rc = canon_string(lower, strlen(lower), out);
        else if (rc == 0)
            rc = canon_value(m[i].value, m[i].key, false, out);
    }
    free(m);
    return rc == 0 ? buf_putc(out, '}') : -1;
}

static int cmp_texts(const void *a, const void *b)
{
    return strcmp(((const struct buf *)a)->data, ((const struct buf *)b)->data);
}

/* A sorted list: each element written once into its own text, the texts
 * sorted, then joined. */
static int canon_sorted(const json_t *v, struct buf *out)
{
    size_t n = json_array_size(v);
    struct buf *texts = calloc(n ? n : 1, sizeof *texts);
    if (!texts)
        return -1;
    int rc = 0;
    /* calloc made every text an empty buf; each gets at least "{}". */
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = canon_value(json_array_get(v, i), NULL, false, &texts[i]);
    if (rc == 0)
        qsort(texts, n, sizeof *texts, cmp_texts);
    if (rc == 0)
        rc = buf_putc(out, '[');
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (i)
            rc = buf_putc(out, ',');
        if (rc == 0)
            rc = buf_append(out, texts[i].data, texts[i].len);
    }
    for (size_t i = 0; i < n; i++)
        buf_free(&texts[i]);
    free(texts);
    return rc == 0 ? buf_putc(out, ']') : -1;
}

static int canon_value(const json_t *v, const char *key, bool top, struct buf *out)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return canon_object(v, top, out);
    case JSON_ARRAY:
        if (sorted_list(key))
            return canon_sorted(v, out);
        if (buf_putc(out, '[') != 0)
            return -1;
        for (size_t i = 0; i < json_array_size(v); i++)
            if ((i && buf_putc(out, ',') != 0) ||
                canon_value(json_array_get(v, i), NULL, false, out) != 0)
                return -1;
        return buf_putc(out, ']');
    case JSON_STRING: return canon_string(json_string_value(v), json_string_length(v), out);
    case JSON_INTEGER: return buf_printf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    default: {
        /* true, false, null and reals: as jansson writes them. */
        char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        int rc = text ? buf_puts(out, text) : -1;
        free(text);
        return rc;
    }
    }
}

static int fingerprint(const json_t *body, uint8_t out[COMMIT_FINGERPRINT_BYTES])
{
    struct buf text = BUF_INIT;
    int rc = canon_value(body, NULL, true, &text);
    out[0] = COMMIT_FINGERPRINT_VERSION;
    if (rc == 0)
        rc = sha256(text.data, text.len, out + 1);
    buf_free(&text);
    return rc;
}

/* Whether some deletes group names a table (even with no files). */
static bool any_deletes_group(const struct commit_request *c)
{
    for (size_t i = 0; i < c->ntables; i++)
        if (c->tables[i].in_deletes)
            return true;
    return false;
}

/* Something to commit (a statement that deleted nothing is something
 * where the endpoint takes one), and read_snapshot with deletes. */
static int check_contents(const struct commit_request *c, struct api_error *err)
{
    bool statement = c->rules->zero_row_deletes && any_deletes_group(c);
    if (c->nfiles + c->ndvs == 0 && !statement)
        return api_validation(err, "the commit has nothing to commit: no appended files and no "
                                   "deletion vectors");
    if (c->ndvs && !c->has_read_snapshot)
        return api_validation(err, "a commit with deletes needs read_snapshot");
    return 0;
}

/* What the endpoint requires of a valid body (contract §4.3 step 0). */
static int check_endpoint(const struct commit_request *c, struct api_error *err)
{
    const struct commit_rules *rules = c->rules;
    if (rules->needs_key && !c->has_key)
        return api_validation(err, "this endpoint needs an idempotency_key");
    if (rules->needs_read_snapshot && !c->has_read_snapshot)
        return api_validation(err, "this endpoint needs read_snapshot");
    if (rules->needs_deletes && !any_deletes_group(c))
        return api_validation(err, "this endpoint needs at least one deletes group");
    return 0;
}

int commit_request_parse(const json_t *body, const struct commit_rules *rules, struct arena *a,
                         struct commit_request *out, struct api_error *err)
{
    memset(out, 0, sizeof *out);
    out->rules = rules;
    struct reader r = {.rules = rules, .a = a, .err = err};
    json_t *key, *read, *appends, *deletes, *author, *message, *owner;
    const struct jfield fields[] = {
        {"idempotency_key", JF_STRING, false, true, &key},
        {"upload_owner", JF_STRING, false, true, &owner},
        {"read_snapshot", JF_INT, false, true, &read},
        {"appends", JF_ARRAY, false, true, &appends},
        {"deletes", JF_ARRAY, false, true, &deletes},
        {"author", JF_STRING, false, true, &author},
        {"message", JF_STRING, false, true, &message},
    };
    if (shape(&r, body, fields, sizeof fields / sizeof fields[0]) != 0)
        return -1;
    if (key && json_is_string(key)) {
        if (!str_is_uuid(json_string_value(key)))
            return api_bad_request(err, "idempotency_key must be a UUID");
        out->has_key = true;
        str_lower(out->key, sizeof out->key, json_string_value(key));
    }
    if (owner && json_is_string(owner)) {
        if (!str_is_uuid(json_string_value(owner)))
            return api_bad_request(err, "upload_owner must be a UUID");
        if (rules->claims_by_key)
            return api_validation(err, "upload_owner is not accepted by this endpoint: the upload "
                                       "claims' owner is the idempotency_key");
        out->has_upload_owner = true;
        str_lower(out->upload_owner, sizeof out->upload_owner, json_string_value(owner));
    }
    if (read && json_is_integer(read)) {
        out->has_read_snapshot = true;
        out->read_snapshot = (int64_t)json_integer_value(read);
        if (out->read_snapshot < 0)
            return api_validation(err, "read_snapshot must not be negative");
    }
    const struct {
        const char *member;
        const json_t *value;
    } texts[] = {{"author", author}, {"message", message}};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (texts[i].value && json_is_string(texts[i].value) &&
            json_string_length(texts[i].value) > COMMIT_MAX_TEXT_BYTES)
            return api_validation(err, "%s must be at most %d bytes", texts[i].member,
                                  COMMIT_MAX_TEXT_BYTES);
    if ((author && json_is_string(author) && !(out->author = dup_string(&r, author))) ||
        (message && json_is_string(message) && !(out->message = dup_string(&r, message))))
        return api_nomem(err);
    if (rules->refuses_appends && json_array_size(appends) > 0)
        return api_validation(err, "this endpoint takes no appends: it registers deletion "
                                   "vectors only");
    size_t cap = 0, nappend_groups;
    if (appends && json_is_array(appends) && read_groups(&r, appends, false, out, &cap) != 0)
        return -1;
    nappend_groups = out->ntables;
    if ((deletes && json_is_array(deletes) && read_groups(&r, deletes, true, out, &cap) != 0) ||
        merge_groups(&r, out, nappend_groups) != 0)
        return -1;
    if (check_contents(out, err) != 0 || check_duplicate_paths(&r, out) != 0 ||
        check_endpoint(out, err) != 0)
        return -1;
    /* The claims this commit consumes are its key's. */
    if (rules->claims_by_key) {
        out->has_upload_owner = true;
        memcpy(out->upload_owner, out->key, sizeof out->upload_owner);
    }
    if (fingerprint(body, out->fingerprint) != 0)
        return api_nomem(err);
    return 0;
}

/* ---- paths ---- */

/* Whitespace and control characters anywhere in Unicode: C0 and C1
 * controls, DEL, and every space separator and line or paragraph break
 * (an object key that only looks like another is worse than a refusal). */
static bool space_or_control(uint32_t cp)
{
    return cp <= 0x20 || (cp >= 0x7f && cp <= 0xa0) || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200b) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f ||
           cp == 0x205f || cp == 0x3000 || cp == 0xfeff;
}

/* Valid UTF-8 without whitespace or control characters. */
static bool path_text_ok(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t k = str_utf8_seq(p + i, n - i);
        if (k == 0)
            return false;
        uint32_t cp = k == 1 ? p[i] : (uint32_t)(p[i] & (0xff >> (k + 1)));
        for (size_t j = 1; j < k; j++)
            cp = cp << 6 | (p[i + j] & 0x3f);
        if (space_or_control(cp))
            return false;
        i += k;
    }
    return true;
}

int commit_check_path(const char *data_path, const char *path, const char *what, struct error *err)
{
    size_t len = strlen(path);
    if (len > COMMIT_MAX_PATH_BYTES)
        return error_fail(err, ERR_INVALID, "%s '%.300s...' is %zu bytes, longer than %d", what,
                          path, len, COMMIT_MAX_PATH_BYTES);
    size_t dl = strlen(data_path);
    while (dl > 0 && data_path[dl - 1] == '/')
        dl--; /* a data_path may end in '/' */
    if (strncmp(path, data_path, dl) != 0 || path[dl] != '/')
        return error_fail(err, ERR_INVALID, "%s '%.300s' is not under the catalog's data_path '%s'",
                          what, path, data_path);
    if (!path_text_ok(path))
        return error_fail(err, ERR_INVALID,
                          "%s '%.300s' contains whitespace or a control character", what, path);
    /* One spelling per object: nothing a URL or path layer could decode
     * or split into another name (percent-escapes, backslashes, query and
     * fragment marks). */
    if (strpbrk(path + dl, "%\\?#"))
        return error_fail(err, ERR_INVALID,
                          "%s '%.300s' contains '%%', '\\', '?' or '#': object paths are "
                          "taken literally and must have one spelling",
                          what, path);
    const char *rel = path + dl + 1;
    if (!*rel)
        return error_fail(err, ERR_INVALID, "%s '%.300s' names no file under the data_path", what,
                          path);
    for (const char *seg = rel; *seg;) {
        const char *end = strchr(seg, '/');
        size_t n = end ? (size_t)(end - seg) : strlen(seg);
        if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.'))
            return error_fail(err, ERR_INVALID,
                              "%s '%.300s' has an empty, '.' or '..' segment after the "
                              "data_path",
                              what, path);
        if (!end)
            break;
        seg = end + 1;
        if (!*seg)
            return error_fail(err, ERR_INVALID, "%s '%.300s' ends with '/'", what, path);
    }
    return 0;
}
