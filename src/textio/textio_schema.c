#include "textio/textio_schema.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "textio/colspec.h"
#include "util/array.h"

struct ids {
    int64_t *v; /* per column, depth-first; 0 = not given */
    size_t n, cap;
};

static int ids_push(struct ids *ids, int64_t id)
{
    if (ARRAY_RESERVE(ids->v, ids->cap, ids->n + 1, 32) != 0)
        return -1;
    ids->v[ids->n++] = id;
    return 0;
}

/* Takes "field_id" (and the "ordinal" Column responses carry) out of every
 * ColumnDef, recording the ids depth-first. */
static int strip_ids(json_t *defs, struct ids *ids, struct error *err)
{
    size_t i;
    json_t *d;
    json_array_foreach (defs, i, d) {
        if (!json_is_object(d))
            continue;
        json_t *id = json_object_get(d, "field_id");
        int64_t v = 0;
        if (id) {
            const char *name = json_string_value(json_object_get(d, "name"));
            if (!json_is_integer(id) || json_integer_value(id) < 1 ||
                json_integer_value(id) > INT32_MAX)
                return error_fail(err, ERR_INVALID,
                                  "column '%s': field_id must be an integer from 1 to %d",
                                  name ? name : "?", INT32_MAX);
            v = json_integer_value(id);
            json_object_del(d, "field_id");
        }
        json_object_del(d, "ordinal");
        if (ids_push(ids, v) != 0)
            return error_nomem(err);
        json_t *kids = json_object_get(d, "children");
        if (json_is_array(kids) && strip_ids(kids, ids, err) != 0)
            return -1;
    }
    return 0;
}

struct collect {
    struct lake_column **cols;
    size_t n, cap;
    bool nomem;
};

static void collect_column(struct lake_column *c, void *ctx)
{
    struct collect *k = ctx;
    if (ARRAY_RESERVE(k->cols, k->cap, k->n + 1, 32) != 0) {
        k->nomem = true;
        return;
    }
    k->cols[k->n++] = c;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Gives every column its id: the given one, else the smallest unclaimed. */
static int assign_ids(struct lake_table *t, const struct ids *ids, struct error *err)
{
    struct collect k = {0};
    lake_table_walk(t, collect_column, &k);
    int64_t *used = calloc(ids->n + 1, sizeof *used);
    int rc = -1;
    if (k.nomem || !used) {
        error_nomem(err);
        goto out;
    }
    if (k.n != ids->n) {
        error_fail(err, ERR_INTERNAL, "internal error: %zu columns, %zu ids", k.n, ids->n);
        goto out;
    }
    size_t nused = 0;
    for (size_t i = 0; i < ids->n; i++)
        if (ids->v[i])
            used[nused++] = ids->v[i];
    qsort(used, nused, sizeof *used, cmp_i64);
    for (size_t i = 1; i < nused; i++) {
        if (used[i] == used[i - 1]) {
            error_fail(err, ERR_INVALID, "field_id %lld is given to two columns",
                       (long long)used[i]);
            goto out;
        }
    }
    int64_t next = 1, max = 0;
    size_t u = 0;
    for (size_t i = 0; i < k.n; i++) {
        int64_t id = ids->v[i];
        if (!id) {
            while (u < nused && used[u] <= next) {
                if (used[u] == next)
                    next++;
                u++;
            }
            id = next++;
        }
        k.cols[i]->field_id = id;
        if (id > max)
            max = id;
    }
    if (max > INT32_MAX) {
        error_fail(err, ERR_LIMIT, "too many columns for 32-bit field ids");
        goto out;
    }
    t->next_field_id = max + 1;
    rc = 0;
out:
    free(k.cols);
    free(used);
    return rc;
}

int textio_table_from_columns(const json_t *columns, struct lake_table *t, struct error *err)
{
    if (!json_is_array(columns))
        return error_fail(err, ERR_INVALID, "the schema must be an array of column definitions");
    json_t *copy = json_deep_copy(columns);
    struct ids ids = {0};
    int rc = -1;
    if (!copy) {
        error_nomem(err);
        goto out;
    }
    if (strip_ids(copy, &ids, err) != 0 || lake_table_add_columns(t, copy, err) != 0)
        goto out;
    rc = assign_ids(t, &ids, err);
out:
    json_decref(copy);
    free(ids.v);
    return rc;
}

int textio_table_from_spec(const char *spec, struct lake_table *t, struct error *err)
{
    while (isspace((unsigned char)*spec))
        spec++;
    json_t *cols;
    json_error_t jerr;
    if (spec[0] == '@') {
        cols = json_load_file(spec + 1, 0, &jerr);
        if (!cols)
            return error_fail(
                err, json_error_code(&jerr) == json_error_cannot_open_file ? ERR_IO : ERR_MALFORMED,
                "%s: %s (line %d)", spec + 1, jerr.text, jerr.line);
    } else if (spec[0] == '[') {
        cols = json_loads(spec, 0, &jerr);
        if (!cols)
            return error_fail(err, ERR_MALFORMED, "invalid JSON schema: %s (column %d)", jerr.text,
                              jerr.column);
    } else {
        cols = colspec_parse_columns(spec, err);
        if (!cols)
            return -1;
    }
    int rc = textio_table_from_columns(cols, t, err);
    json_decref(cols);
    return rc;
}
