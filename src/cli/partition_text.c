#include "cli/partition_text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/base64.h"
#include "util/timefmt.h"

/* The column of field `id` under cols (nested struct leaves too), and its
 * dotted path into path. */
static const json_t *find_column(const json_t *cols, json_int_t id, struct buf *path)
{
    size_t i;
    const json_t *c;
    size_t mark = path->len;
    json_array_foreach (cols, i, c) {
        const char *name = json_string_value(json_object_get(c, "name"));
        path->len = mark;
        if (buf_printf(path, "%s%s", mark ? "." : "", name ? name : "?") != 0)
            return NULL;
        if (json_integer_value(json_object_get(c, "field_id")) == id)
            return c;
        const json_t *found = find_column(json_object_get(c, "children"), id, path);
        if (found)
            return found;
    }
    path->len = mark;
    return NULL;
}

/* One field of a spec: its shown name, transform and source type. */
static int field_from_json(const json_t *cols, const json_t *f, struct part_field *out)
{
    struct buf name = BUF_INIT;
    const json_t *col =
        find_column(cols, json_integer_value(json_object_get(f, "source_field_id")), &name);
    const char *tr = json_string_value(json_object_get(f, "transform"));
    const char *type = json_string_value(json_object_get(col, "type"));
    bool known_tr = tr && lake_transform_parse(tr, &out->transform);
    if (!known_tr || !type || lake_type_lookup(type, &out->source, NULL) != LAKE_TYPE_OK) {
        /* Shown as text: a server newer than this command. */
        out->transform = LTR_IDENTITY;
        out->source = LT_STRING;
    }
    int rc = 0;
    if (!col) {
        buf_reset(&name);
        rc = buf_puts(&name, "?");
    } else if (tr && (!known_tr || out->transform != LTR_IDENTITY)) {
        const json_t *param = json_object_get(f, "transform_param");
        rc = json_is_integer(param)
                 ? buf_printf(&name, "_%s[%" JSON_INTEGER_FORMAT "]", tr, json_integer_value(param))
                 : buf_printf(&name, "_%s", tr);
    }
    out->name = rc == 0 ? buf_take(&name) : NULL;
    buf_free(&name);
    return out->name ? 0 : -1;
}

int part_spec_from_table(const json_t *table, struct part_spec *out)
{
    memset(out, 0, sizeof *out);
    out->spec_id = -1;
    const json_t *spec = json_object_get(table, "partition_spec");
    const json_t *fields = json_object_get(spec, "fields");
    size_t n = json_array_size(fields);
    if (n == 0)
        return 0;
    out->fields = calloc(n, sizeof *out->fields);
    if (!out->fields)
        return -1;
    const json_t *cols = json_object_get(table, "columns");
    for (size_t i = 0; i < n; i++) {
        if (field_from_json(cols, json_array_get(fields, i), &out->fields[i]) != 0) {
            out->nfields = i;
            part_spec_free(out);
            return -1;
        }
    }
    out->nfields = n;
    out->spec_id = json_integer_value(json_object_get(spec, "spec_id"));
    return 0;
}

void part_spec_free(struct part_spec *s)
{
    for (size_t i = 0; i < s->nfields; i++)
        free(s->fields[i].name);
    free(s->fields);
    memset(s, 0, sizeof *s);
    s->spec_id = -1;
}

static bool parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return false;
    *out = v;
    return true;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* v as a JSON string: quoted, with quotes, backslashes and control
 * characters escaped; bytes that are not UTF-8 pass as they are. */
static int quoted(const char *v, struct buf *out)
{
    json_t *s = json_stringn_nocheck(v, strlen(v));
    char *text = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;
    json_decref(s);
    int rc = text ? buf_puts(out, text) : -1;
    free(text);
    return rc;
}

/* A temporal transform's ordinal (years, months, days or hours since
 * 1970-01-01) as the date it stands for. */
static int temporal_text(enum lake_transform t, int64_t v, struct buf *out)
{
    char date[64];
    int64_t days;
    /* Ordinals are int32 on the wire; this keeps the date math in range. */
    if (v < INT32_MIN || v > INT32_MAX)
        return buf_printf(out, "%" PRId64, v);
    if (t == LTR_YEAR)
        days = time_days_from_civil(1970 + v, 1, 1);
    else if (t == LTR_MONTH)
        days = time_days_from_civil(1970 + floor_div(v, 12),
                                    (unsigned)(v - floor_div(v, 12) * 12) + 1, 1);
    else if (t == LTR_DAY)
        days = v;
    else
        days = floor_div(v, 24);
    size_t len = time_format_local_date(days, date, sizeof date);
    /* "YYYY-MM-DD": a year drops "-MM-DD", a month "-DD". */
    if (t == LTR_YEAR)
        len -= 6;
    else if (t == LTR_MONTH)
        len -= 3;
    if (buf_append(out, date, len) != 0)
        return -1;
    return t == LTR_HOUR ? buf_printf(out, "-%02d", (int)(v - floor_div(v, 24) * 24)) : 0;
}

/* Binary arrives as base64; shown as 0x and lowercase hex. */
static int binary_text(const char *v, struct buf *out)
{
    struct buf bytes = BUF_INIT;
    int rc;
    if (base64_decode(v, strlen(v), &bytes) != NULL) {
        rc = quoted(v, out);
    } else {
        rc = buf_puts(out, "0x");
        for (size_t i = 0; rc == 0 && i < bytes.len; i++)
            rc = buf_printf(out, "%02x", (unsigned char)bytes.data[i]);
    }
    buf_free(&bytes);
    return rc;
}

/* One non-null stored value of field f. */
static int value_text(const struct part_field *f, const char *v, struct buf *out)
{
    int64_t n;
    switch (f->transform) {
    case LTR_YEAR:
    case LTR_MONTH:
    case LTR_DAY:
    case LTR_HOUR: return parse_i64(v, &n) ? temporal_text(f->transform, n, out) : quoted(v, out);
    case LTR_BUCKET: return parse_i64(v, &n) ? buf_puts(out, v) : quoted(v, out);
    default: break;
    }
    /* identity and truncate: a value of the source column's type. */
    switch (f->source) {
    case LT_STRING:
    case LT_JSON: return quoted(v, out);
    case LT_BINARY: return binary_text(v, out);
    case LT_TIMESTAMP_NS: {
        /* Stored as nanoseconds since the epoch. */
        char text[64];
        size_t len = parse_i64(v, &n) ? time_format_local_datetime(n, 9, text, sizeof text) : 0;
        return len ? buf_append(out, text, len) : quoted(v, out);
    }
    default: return buf_puts(out, v);
    }
}

/* The values as a JSON array: what a tuple without a spec to name it is. */
static int unnamed_text(const char *const *values, size_t n, struct buf *out)
{
    json_t *arr = json_array();
    for (size_t k = 0; arr && k < n; k++)
        if (json_array_append_new(arr, values[k]
                                           ? json_stringn_nocheck(values[k], strlen(values[k]))
                                           : json_null()) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    char *text = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
    json_decref(arr);
    int rc = text ? buf_puts(out, text) : -1;
    free(text);
    return rc;
}

int part_text(const struct part_spec *spec, const char *const *values, size_t n, struct buf *out)
{
    if (!spec || spec->nfields != n || n == 0)
        return unnamed_text(values, n, out);
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < n; k++) {
        rc = buf_printf(out, "%s%s=", k ? "/" : "", spec->fields[k].name);
        if (rc == 0)
            rc = values[k] ? value_text(&spec->fields[k], values[k], out) : buf_puts(out, "null");
    }
    return rc;
}
