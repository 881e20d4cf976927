/* The Table object as libhoglake reads it (lake/tableinfo.c does the
 * reading), and the variant check of the writer path. */
#include <stdio.h>
#include <string.h>

#include "client/tableinfo.h"
#include "lake/tableinfo.h"

hl_status client_table_from_info(const json_t *info, struct lake_table *t, struct hl_error *err)
{
    struct error lerr = {0};
    if (lake_table_from_info(info, t, &lerr) == 0)
        return HL_OK;
    if (lerr.code == ERR_NOMEM)
        return client_nomem(err);
    return client_fail(err, HL_ERR_PROTOCOL, "protocol", "%s", lerr.msg);
}

static const struct lake_column *variant_below(const struct lake_column *c)
{
    if (c->type == LT_VARIANT)
        return c;
    for (size_t i = 0; i < c->nchildren; i++) {
        const struct lake_column *v = variant_below(c->children[i]);
        if (v)
            return v;
    }
    return NULL;
}

const struct lake_column *client_table_variant(const struct lake_table *t)
{
    return variant_below(&t->root);
}
