/* The encoding report of an append: see variant_report.h. */
#include "client/variant_report.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "lake/shredding.h"
#include "util/arrow.h"

/* A declared column's node paths into r. */
static int declared_paths(struct hl_variant_report *r, const char *shredding)
{
    json_error_t je;
    json_t *decl = json_loads(shredding, 0, &je), *paths = NULL;
    struct error e;
    int rc = -1;
    if (decl && lake_shredding_node_paths(decl, &paths, &e) == 0) {
        size_t n = json_array_size(paths);
        r->paths = calloc(n ? n : 1, sizeof *r->paths);
        rc = r->paths ? 0 : -1;
        for (size_t i = 0; rc == 0 && i < n; i++) {
            if (!(r->paths[i].path = strdup(json_string_value(json_array_get(paths, i)))))
                rc = -1;
            r->npaths += rc == 0;
        }
    } else if (decl) {
        rc = 0; /* a declaration the writer refuses: the append fails anyway */
    }
    json_decref(paths);
    json_decref(decl);
    return rc;
}

hl_status client_variant_report_init(struct hl_append_result *res, const struct lake_table *t,
                                     struct hl_error *err)
{
    if (res->variant)
        return HL_OK;
    size_t n = 0;
    for (size_t i = 0; i < t->root.nchildren; i++)
        n += t->root.children[i]->type == LT_VARIANT;
    if (n == 0)
        return HL_OK;
    if (!(res->variant = calloc(n, sizeof *res->variant)))
        return client_nomem(err);
    for (size_t i = 0; i < t->root.nchildren; i++) {
        const struct lake_column *c = t->root.children[i];
        if (c->type != LT_VARIANT)
            continue;
        struct hl_variant_report *r = &res->variant[res->nvariant++];
        r->field_id = c->field_id;
        if (!(r->column = strdup(c->name)) ||
            (c->shredding && declared_paths(r, c->shredding) != 0))
            return client_nomem(err);
    }
    return HL_OK;
}

static struct hl_variant_report *report_of(struct hl_append_result *res, int64_t field_id)
{
    for (size_t k = 0; k < res->nvariant; k++)
        if (res->variant[k].field_id == field_id)
            return &res->variant[k];
    return NULL;
}

static int64_t nulls_of(const struct ArrowArray *a)
{
    const uint8_t *valid = a->n_buffers > 0 ? a->buffers[0] : NULL;
    if (!valid || a->null_count == 0)
        return 0;
    int64_t n = 0;
    for (int64_t i = 0; i < a->length; i++)
        n += !arrow_bit(valid, a->offset + i);
    return n;
}

void client_variant_report_batch(struct hl_append_result *res, const struct lake_table *t,
                                 const struct ArrowArray *batch,
                                 const struct rows_variant_invalid *invalid)
{
    for (size_t i = 0; i < t->root.nchildren && (int64_t)i < batch->n_children; i++) {
        struct hl_variant_report *r = report_of(res, t->root.children[i]->field_id);
        if (!r || t->root.children[i]->type != LT_VARIANT)
            continue;
        r->rows += batch->length;
        r->sql_null += nulls_of(batch->children[i]);
        if (!invalid)
            continue;
        const int64_t *by = invalid[i].by_reason;
        r->invalid_json += by[RV_INVALID_JSON];
        r->duplicate_key += by[RV_DUPLICATE_KEY];
        r->nesting_too_deep += by[RV_NESTING_TOO_DEEP];
        r->number_out_of_range += by[RV_NUMBER_OUT_OF_RANGE];
    }
}

void client_variant_report_file(struct hl_append_result *res, const struct pq_write_result *w)
{
    for (size_t k = 0; k < w->nvariant; k++) {
        const struct pq_variant_counts *vc = &w->variant[k];
        struct hl_variant_report *r = report_of(res, vc->field_id);
        if (!r || r->npaths != vc->ngroups)
            continue;
        for (size_t g = 0; g < vc->ngroups; g++) {
            r->paths[g].typed += vc->groups[g].typed;
            r->paths[g].fallback += vc->groups[g].fallback;
            r->paths[g].variant_null += vc->groups[g].variant_null;
            r->paths[g].missing += vc->groups[g].missing;
        }
    }
}

void client_variant_report_free(struct hl_append_result *res)
{
    for (size_t k = 0; k < res->nvariant; k++) {
        struct hl_variant_report *r = &res->variant[k];
        for (size_t g = 0; g < r->npaths; g++)
            free(r->paths[g].path);
        free(r->paths);
        free(r->column);
    }
    free(res->variant);
    res->variant = NULL;
    res->nvariant = 0;
}
