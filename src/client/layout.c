/* expected_table_info: the layout a caller shaped its data for (columns,
 * partition spec, sort order) compared with a fresh read of the table. A
 * difference is the refusal the server would give the commit had the
 * change landed after the read (409 ddl_since_read_snapshot, re-prepare);
 * found before the upload, it costs no orphaned objects. Totals,
 * comments and properties are not layout and are not compared. */
#include <string.h>

#include "client/internal.h"

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool columns_equal(const struct hl_column *a, const struct hl_column *b, size_t n);

static bool column_equal(const struct hl_column *a, const struct hl_column *b)
{
    return a->field_id == b->field_id && same_text(a->name, b->name) &&
           same_text(a->type, b->type) && a->nullable == b->nullable &&
           a->precision == b->precision && a->scale == b->scale && a->nchildren == b->nchildren &&
           columns_equal(a->children, b->children, a->nchildren);
}

static bool columns_equal(const struct hl_column *a, const struct hl_column *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!column_equal(&a[i], &b[i]))
            return false;
    }
    return true;
}

static bool spec_equal(const struct hl_table_details *a, const struct hl_table_details *b)
{
    if (a->spec_id != b->spec_id || a->npartition_fields != b->npartition_fields)
        return false;
    for (size_t i = 0; i < a->npartition_fields; i++) {
        const struct hl_partition_field *x = &a->partition_fields[i], *y = &b->partition_fields[i];
        if (x->source_field_id != y->source_field_id || !same_text(x->transform, y->transform) ||
            x->transform_param != y->transform_param)
            return false;
    }
    return true;
}

static bool sort_equal(const struct hl_table_details *a, const struct hl_table_details *b)
{
    if (a->sort_id != b->sort_id || a->nsort_fields != b->nsort_fields)
        return false;
    for (size_t i = 0; i < a->nsort_fields; i++) {
        const struct hl_sort_field *x = &a->sort_fields[i], *y = &b->sort_fields[i];
        if (x->source_field_id != y->source_field_id || x->descending != y->descending ||
            x->nulls_first != y->nulls_first)
            return false;
    }
    return true;
}

hl_status client_layout_check(const json_t *info, const struct hl_table_details *expected,
                              struct hl_error *err)
{
    struct hl_table_details live;
    hl_status st = client_details_decode(info, &live, err);
    if (st != HL_OK)
        return st;
    const char *what = NULL;
    if (live.ncolumns != expected->ncolumns ||
        !columns_equal(live.columns, expected->columns, live.ncolumns))
        what = "columns";
    else if (!spec_equal(&live, expected))
        what = "partition spec";
    else if (!sort_equal(&live, expected))
        what = "sort order";
    if (what) {
        st = client_fail(err, HL_ERR_DDL_SINCE_READ, "ddl_since_read_snapshot",
                         "table '%s': its %s changed since the expected table info was read "
                         "(now at snapshot %lld); re-read it and prepare again",
                         live.name ? live.name : "?", what, (long long)live.read_snapshot_id);
        if (err)
            err->re_prepare = true;
    }
    hl_table_details_clear(&live);
    return st;
}
