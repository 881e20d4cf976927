#include "textio/colspec_format.h"

#include <stdbool.h>

#include "lake/types.h"

static int put_type(const struct lake_column *c, struct buf *out);

/* A list's element or a map's key or value: its type, "!" when required
 * (a map key always is, and the spec says so without one). */
static int put_child(const struct lake_column *c, bool key, struct buf *out)
{
    if (put_type(c, out) != 0)
        return -1;
    return !c->nullable && !key ? buf_putc(out, '!') : 0;
}

static int put_type(const struct lake_column *c, struct buf *out)
{
    switch (c->type) {
    case LT_DECIMAL: return buf_printf(out, "decimal(%d,%d)", c->precision, c->scale);
    case LT_LIST:
        if (buf_puts(out, "list<") != 0 || put_child(c->children[0], false, out) != 0)
            return -1;
        return buf_putc(out, '>');
    case LT_MAP:
        if (buf_puts(out, "map<") != 0 || put_child(c->children[0], true, out) != 0 ||
            buf_puts(out, ", ") != 0 || put_child(c->children[1], false, out) != 0)
            return -1;
        return buf_putc(out, '>');
    case LT_STRUCT:
        if (buf_puts(out, "struct<") != 0)
            return -1;
        for (size_t i = 0; i < c->nchildren; i++) {
            const struct lake_column *f = c->children[i];
            if (buf_printf(out, "%s%s:", i ? ", " : "", f->name) != 0 ||
                put_child(f, false, out) != 0)
                return -1;
        }
        return buf_putc(out, '>');
    default: return buf_puts(out, lake_type_name(c->type));
    }
}

int colspec_format_columns(const struct lake_table *t, struct buf *out)
{
    for (size_t i = 0; i < t->root.nchildren; i++) {
        const struct lake_column *c = t->root.children[i];
        if (buf_printf(out, "%s%s:", i ? ", " : "", c->name) != 0 || put_child(c, false, out) != 0)
            return -1;
    }
    return 0;
}
