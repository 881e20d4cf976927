/* Prepared appends of Parquet files another writer produced: each footer is
 * checked against the table (names, types, nullability and field ids at
 * every level; a required column written optional must prove it holds no
 * nulls), its statistics become the registration's, and the original bytes
 * are uploaded unchanged. Every file is checked before anything is
 * uploaded. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/append.h"
#include "client/claims.h"
#include "client/tableinfo.h"
#include "objstore/objstore.h"
#include "parquet/colstats.h"
#include "parquet/infer.h"
#include "parquet/reader.h"
#include "util/arena.h"

/* One input file, mapped. */
struct input {
    const char *path;
    void *data;
    size_t size;
    json_t *registration;
};

static hl_status map_file(struct input *in, struct hl_error *err)
{
    int fd = open(in->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument", "%s: %s", in->path,
                           strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "%s: not a regular file", in->path);
    }
    in->size = (size_t)st.st_size;
    in->data = in->size ? mmap(NULL, in->size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    if (in->size && in->data == MAP_FAILED) {
        in->data = NULL;
        return client_fail(err, HL_ERR_IO, "io", "%s: cannot map it: %s", in->path,
                           strerror(errno));
    }
    return HL_OK;
}

static void unmap_file(struct input *in)
{
    if (in->data)
        munmap(in->data, in->size);
    json_decref(in->registration);
}

/* Whether a column type in the file stands for the catalog's: the same,
 * or one of the spellings other writers use for it. */
static bool type_fits(const struct lake_column *want, const struct lake_column *got,
                      const struct pq_node *node)
{
    if (want->type == got->type)
        return want->type != LT_DECIMAL ||
               (want->precision == got->precision && want->scale == got->scale);
    switch (want->type) {
    case LT_UUID: /* bare FIXED_LEN_BYTE_ARRAY(16) */
        return got->type == LT_BINARY && node && node->el->has_type &&
               node->el->type == PQ_FIXED_LEN_BYTE_ARRAY && node->el->type_length == 16;
    case LT_TIMESTAMP_S: /* Parquet has no seconds unit */ return got->type == LT_TIMESTAMP_MS;
    case LT_UINT32: /* written as INT64, as this library writes it */ return got->type == LT_LONG;
    default: return false;
    }
}

/* The Parquet node of a file column found through the inferred tree:
 * columns map to nodes by path. */
static const struct pq_node *node_of(const struct pq_schema *s, const struct lake_column *c)
{
    if (!c->parent || !c->parent->parent) {
        return pq_schema_find_top(s, c->name);
    }
    const struct pq_node *p = node_of(s, c->parent);
    if (!p)
        return NULL;
    if (p->kind == PQN_LIST || p->kind == PQN_MAP) {
        const struct pq_node *e = p->element;
        if (p->kind == PQN_LIST)
            return e;
        for (int i = 0; e && i < e->nchildren; i++) {
            if (strcmp(e->children[i]->el->name, c->name) == 0 ||
                (i == 0 && strcmp(c->name, "key") == 0) ||
                (i == 1 && strcmp(c->name, "value") == 0))
                return e->children[i];
        }
        return NULL;
    }
    return pq_node_child_named(p, c->name);
}

/* Whether every leaf under node has statistics proving no nulls in every
 * row group. */
static bool proves_no_nulls(const struct pq_file_meta *m, const struct pq_node *node)
{
    for (int l = node->first_leaf; l < node->first_leaf + node->nleaves; l++) {
        for (size_t g = 0; g < m->nrow_groups; g++) {
            const struct pq_row_group *rg = &m->row_groups[g];
            if ((size_t)l >= rg->ncolumns)
                return false;
            const struct pq_column_meta *cm = &rg->columns[l].meta;
            if (!rg->columns[l].has_meta || !cm->has_statistics || !cm->statistics.has_null_count ||
                cm->statistics.null_count != 0)
                return false;
        }
    }
    return true;
}

static hl_status mismatch(struct hl_error *err, const char *file, const struct lake_column *c,
                          const char *what)
{
    char path[512];
    lake_column_path(c, path, sizeof path);
    return client_fail(err, HL_ERR_VALIDATION, "validation",
                       "%s: column '%s' does not match the table's schema/field IDs: %s", file,
                       path, what);
}

static hl_status compare_columns(const struct lake_column *want, const struct lake_column *got,
                                 const struct pq_schema *s, const struct pq_file_meta *m,
                                 const char *file, bool allow_optional, struct hl_error *err)
{
    if (want->nchildren != got->nchildren)
        return mismatch(err, file, want, "a different number of fields");
    for (size_t i = 0; i < want->nchildren; i++) {
        const struct lake_column *w = want->children[i], *g = got->children[i];
        const struct pq_node *node = node_of(s, g);
        if (!node)
            return mismatch(err, file, w, "not found in the file");
        bool container = lake_type_is_container(w->type);
        if (strcmp(w->name, g->name) != 0)
            return mismatch(err, file, w, "another name, or another position");
        /* The file's own field id, not one inferred for it. */
        if (!node->el->has_field_id || node->el->field_id != w->field_id)
            return mismatch(err, file, w, "another field id, or none");
        if (!type_fits(w, g, node))
            return mismatch(err, file, w, lake_type_name(g->type));
        if (!w->nullable && g->nullable && !allow_optional)
            return mismatch(err, file, w,
                            "required in the table, optional in the file (allow_optional_fields "
                            "accepts it when the file's statistics prove it holds no nulls)");
        if (!w->nullable && g->nullable && !proves_no_nulls(m, node))
            return mismatch(err, file, w,
                            "required in the table, optional in the file, and the file's "
                            "statistics do not prove it holds no nulls");
        if (container) {
            hl_status st = compare_columns(w, g, s, m, file, allow_optional, err);
            if (st != HL_OK)
                return st;
        }
    }
    return HL_OK;
}

/* Reads, checks and registers one file (nothing uploaded yet). */
static hl_status check_file(struct input *in, const struct lake_table *t,
                            const char *const *partition_values, bool allow_optional,
                            struct hl_error *err)
{
    hl_status st = map_file(in, err);
    if (st != HL_OK)
        return st;
    struct pq_source src;
    pq_source_memory(&src, in->data, in->size);
    struct pq_reader *r;
    struct error pe;
    if (pq_reader_open(&src, &r, &pe) != 0)
        return client_fail(err, HL_ERR_VALIDATION, "validation", "%s: %s", in->path, pe.msg);
    const struct pq_file_meta *m = pq_reader_meta(r);
    const struct pq_schema *s = pq_reader_schema(r);
    struct arena a;
    arena_init(&a, 0);
    struct lake_table got;
    lake_table_init(&got, &a);
    const struct pq_infer_options variants = {.variants = true};
    if (pq_infer_table_with(s, &got, &variants, NULL, &pe) != 0)
        st = client_fail(err, HL_ERR_VALIDATION, "validation", "%s: %s", in->path, pe.msg);
    if (st == HL_OK)
        st = compare_columns(&t->root, &got.root, s, m, in->path, allow_optional, err);
    if (st == HL_OK && m->num_rows <= 0)
        st = client_fail(err, HL_ERR_VALIDATION, "validation",
                         "%s: a prepared file must contain rows", in->path);
    json_t *stats = NULL;
    if (st == HL_OK && !(stats = client_column_stats_json(m, s, t, &a, err)))
        st = err ? err->status : HL_ERR_NOMEM;
    if (st == HL_OK) {
        in->registration =
            json_pack("{s:I, s:I, s:I, s:o}", "record_count", (json_int_t)m->num_rows,
                      "file_size_bytes", (json_int_t)in->size, "footer_size",
                      (json_int_t)pq_reader_footer_size(r), "column_stats", stats);
        if (!in->registration)
            st = client_nomem(err);
    }
    if (st == HL_OK && t->partitioned) {
        json_t *pv = json_array();
        for (size_t i = 0; pv && i < t->nspec_fields; i++) {
            json_t *v = partition_values[i] ? json_string(partition_values[i]) : json_null();
            if (!v || json_array_append_new(pv, v) != 0) {
                json_decref(pv);
                pv = NULL;
            }
        }
        if (!pv || json_object_set_new(in->registration, "partition_values", pv) != 0)
            st = client_nomem(err);
    }
    lake_table_release(&got);
    arena_free(&a);
    pq_reader_free(r);
    return st;
}

/* Uploads every file at a path claimed under the key. */
static hl_status upload_all(hl_table *t, struct input *in, size_t n, struct claims *claims,
                            struct hl_append_result *res, json_t *files, struct hl_error *err)
{
    struct objstore *store;
    hl_status st = client_store(t->ns->catalog->client, &store, err);
    for (size_t i = 0; st == HL_OK && i < n; i++) {
        char uri[4096];
        if ((st = claims_take(claims, uri, sizeof uri, err)) != HL_OK)
            break;
        if (objstore_put(store, uri, in[i].data, in[i].size, t->ns->catalog->client->upload_flags,
                         err) != 0) {
            client_error_prefix(err, "uploading %s", in[i].path);
            st = err ? err->status : HL_ERR_IO;
            break;
        }
        if (client_result_uploaded(res, uri) != 0 ||
            json_object_set_new(in[i].registration, "path", json_string(uri)) != 0 ||
            json_array_append(files, in[i].registration) != 0)
            st = client_nomem(err);
    }
    return st;
}

hl_status hl_table_prepare_files(hl_table *t, const char *const *paths, size_t nfiles,
                                 const char *const *const *partition_values,
                                 const char *idempotency_key,
                                 const struct hl_prepare_options *options, char **payload,
                                 struct hl_append_result **uploaded, struct hl_error *err)
{
    *payload = NULL;
    if (uploaded)
        *uploaded = NULL;
    if (!t || (!paths && nfiles))
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a table and file paths are required");
    if (nfiles == 0)
        return client_fail(err, HL_ERR_VALIDATION, "validation",
                           "a prepared append must contain files");
    if (!client_is_uuid(idempotency_key))
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "the idempotency key must be a UUID");
    struct hl_append_result *res = client_append_result_new();
    struct input *in = calloc(nfiles, sizeof *in);
    json_t *files = json_array();
    if (!res || !in || !files) {
        hl_append_result_free(res);
        free(in);
        json_decref(files);
        return client_nomem(err);
    }
    json_t *info = NULL;
    int64_t basis = -1;
    const char *expected;
    hl_status st = client_prepare_basis(t, options, &expected, &info, &basis, err);
    struct arena a;
    arena_init(&a, 0);
    struct lake_table table;
    lake_table_init(&table, &a);
    if (st == HL_OK)
        st = client_table_from_info(info, &table, err);
    size_t arity = table.partitioned ? table.nspec_fields : 0;
    for (size_t i = 0; st == HL_OK && i < nfiles; i++) {
        in[i].path = paths[i];
        const char *const *pv = partition_values ? partition_values[i] : NULL;
        if ((arity > 0) != (pv != NULL)) {
            st = client_fail(err, HL_ERR_VALIDATION, "validation",
                             "%s: prepared file partition arity differs from destination "
                             "(the table has %zu partition fields)",
                             paths[i], arity);
            break;
        }
        st = check_file(&in[i], &table, pv, options && options->allow_optional_fields, err);
    }
    /* Claimed in as few requests as the server takes: the count is known. */
    struct claims claims;
    struct buf prefix = BUF_INIT;
    memset(&claims, 0, sizeof claims);
    if (st == HL_OK && client_data_prefix(&prefix, t, idempotency_key) != 0)
        st = client_nomem(err);
    if (st == HL_OK)
        st = claims_init(&claims, t->ns->catalog, CLAIMS_DATA, prefix.data, nfiles, nfiles, err);
    buf_free(&prefix);
    if (st == HL_OK)
        st = upload_all(t, in, nfiles, &claims, res, files, err);
    if (st == HL_OK) {
        json_t *entry = json_pack("{s:s, s:s, s:s, s:O}", "namespace", t->ns->name, "table",
                                  t->name, "expected_table_uuid", expected, "files", files);
        json_t *body = entry ? json_pack("{s:s, s:I, s:[o]}", "idempotency_key", idempotency_key,
                                         "read_snapshot", (json_int_t)basis, "appends", entry)
                             : NULL;
        if (!body || claims_name_owner(&claims, body) != 0 ||
            !(*payload = json_dumps(body, JSON_COMPACT)))
            st = client_nomem(err);
        json_decref(body);
    }
    /* Nothing of a failed prepare can have been committed. */
    if (st != HL_OK)
        claims_discard(&claims, res, true);
    claims_free(&claims);
    for (size_t i = 0; i < nfiles; i++)
        unmap_file(&in[i]);
    free(in);
    json_decref(files);
    json_decref(info);
    lake_table_release(&table);
    arena_free(&a);
    if (uploaded)
        *uploaded = res;
    else
        hl_append_result_free(res);
    return st;
}
