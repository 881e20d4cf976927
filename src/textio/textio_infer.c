#include "textio/textio_infer.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lake/ident.h"
#include "rows/rows_json.h"
#include "textio/textio_text.h"
#include "textio/textio_timefmt.h"
#include "util/arena.h"
#include "util/strutil.h"

/* How a value reached the inference: a CSV cell is text any scalar type
 * may read; a JSON value's kind already rules types out (a JSON reader
 * takes a number only into a numeric column, a string only into a
 * temporal or string one). */
enum {
    VK_TEXT = 1,   /* a CSV cell */
    VK_BOOL = 2,   /* JSON true or false */
    VK_NUMBER = 4, /* JSON number */
    VK_STRING = 8, /* JSON string */
};

/* The candidate types, most specific first: a column takes the first one
 * left. A new format (a timestamp layout, say) is one more row. */
enum cand {
    C_BOOLEAN,
    C_LONG,
    C_DECIMAL,
    C_DOUBLE,
    C_DATE,
    C_TIME,
    C_TIMESTAMP,
    C_TIMESTAMP_NS,
    C_TIMESTAMPTZ,
    C_STRING,
    C__COUNT
};

static bool is_bool(const char *s, size_t n)
{
    bool v;
    return rt_parse_bool(s, n, &v) == NULL;
}

/* Numbers are read as append reads CSV's (+1, .5 too); JSON numbers
 * need no respelling. */
enum { RESPELL_MAX = 128 };

static bool is_long(const char *s, size_t n)
{
    int64_t v;
    char b[RESPELL_MAX];
    s = rt_number_respell(s, &n, b, sizeof b);
    return rt_parse_i64(s, n, INT64_MIN, INT64_MAX, &v) == NULL;
}

/* An integer past long that decimal(38,0) holds exactly. Written as an
 * integer: "1.0" and "1e3" read as decimals too, but a column of them is
 * a double, as DuckDB has it. */
static bool is_wide_integer(const char *s, size_t n)
{
    rt_i128 v;
    char b[RESPELL_MAX];
    s = rt_number_respell(s, &n, b, sizeof b);
    return memchr(s, '.', n) == NULL && memchr(s, 'e', n) == NULL && memchr(s, 'E', n) == NULL &&
           rt_parse_decimal(s, n, 38, 0, &v) == NULL;
}

static bool is_double(const char *s, size_t n)
{
    double v;
    char b[RESPELL_MAX];
    s = rt_number_respell(s, &n, b, sizeof b);
    return rt_parse_double(s, n, RT_FLOAT_NUMBER | RT_FLOAT_WORDS, &v) == NULL;
}

static bool is_date(const char *s, size_t n)
{
    int32_t v;
    return rt_parse_date(s, n, &v) == NULL;
}

static bool is_time(const char *s, size_t n)
{
    int64_t v;
    return rt_parse_time(s, n, ROWS_MICROS, &v) == NULL;
}

static bool is_timestamp(const char *s, size_t n)
{
    int64_t v;
    return rt_parse_timestamp(s, n, ROWS_MICROS, false, &v) == NULL;
}

static bool is_timestamp_ns(const char *s, size_t n)
{
    int64_t v;
    return rt_parse_timestamp(s, n, ROWS_NANOS, false, &v) == NULL;
}

static bool is_timestamptz(const char *s, size_t n)
{
    int64_t v;
    return rt_parse_timestamp(s, n, ROWS_MICROS, true, &v) == NULL;
}

static bool is_string(const char *s, size_t n)
{
    size_t at;
    return str_utf8_valid(s, n, &at);
}

static const struct {
    const char *type; /* as a column spec writes it */
    unsigned kinds;   /* the VK_* values it can take */
    bool (*reads)(const char *s, size_t n);
} cands[C__COUNT] = {
    [C_BOOLEAN] = {"boolean", VK_TEXT | VK_BOOL, is_bool},
    [C_LONG] = {"long", VK_TEXT | VK_NUMBER, is_long},
    [C_DECIMAL] = {"decimal(38,0)", VK_TEXT | VK_NUMBER, is_wide_integer},
    [C_DOUBLE] = {"double", VK_TEXT | VK_NUMBER, is_double},
    [C_DATE] = {"date", VK_TEXT | VK_STRING, is_date},
    [C_TIME] = {"time", VK_TEXT | VK_STRING, is_time},
    [C_TIMESTAMP] = {"timestamp", VK_TEXT | VK_STRING, is_timestamp},
    [C_TIMESTAMP_NS] = {"timestamp_ns", VK_TEXT | VK_STRING, is_timestamp_ns},
    [C_TIMESTAMPTZ] = {"timestamptz", VK_TEXT | VK_STRING, is_timestamptz},
    [C_STRING] = {"string", VK_TEXT | VK_STRING, is_string},
};

enum { ALL_CANDS = (1u << C__COUNT) - 1 };

/* The shapes of the non-null values a node saw. */
enum { SHAPE_SCALAR = 1, SHAPE_OBJECT = 2, SHAPE_ARRAY = 4, SHAPE_DEEP = 8 };

/* Past this depth a JSON value is a variant rather than nested types. */
enum { MAX_NESTING = 8 };

/* A column, a struct field or a list's element. */
struct node {
    char *name;          /* NULL for a list's element */
    unsigned cands;      /* candidates every scalar value so far fits */
    uint32_t fmt_fails;  /* the caller's layouts some value did not match */
    unsigned shapes;     /* SHAPE_* */
    int64_t present;     /* non-null values */
    struct node *fields; /* members seen in objects, in first-seen order */
    size_t nfields, cap;
    struct node *element; /* of arrays */
};

struct textio_infer {
    struct node root;                  /* its fields are the columns */
    const struct textio_timefmt *fmts; /* the caller's, tried after ISO 8601 */
    size_t nfmts;
    int64_t rows;
    struct arena scratch; /* one JSON row */
};

static void node_init(struct node *n, char *name)
{
    memset(n, 0, sizeof *n);
    n->name = name;
    n->cands = ALL_CANDS;
}

static void node_release(struct node *n)
{
    for (size_t i = 0; i < n->nfields; i++)
        node_release(&n->fields[i]);
    free(n->fields);
    if (n->element) {
        node_release(n->element);
        free(n->element);
    }
    free(n->name);
}

struct textio_infer *textio_infer_new(void)
{
    struct textio_infer *inf = calloc(1, sizeof *inf);
    if (!inf)
        return NULL;
    node_init(&inf->root, NULL);
    arena_init(&inf->scratch, 0);
    return inf;
}

void textio_infer_free(struct textio_infer *inf)
{
    if (!inf)
        return;
    node_release(&inf->root);
    arena_free(&inf->scratch);
    free(inf);
}

/* The field of n named name (len bytes), added when new; NULL with err
 * set out of memory or past the column limit. */
static struct node *field(struct node *n, const char *name, size_t len, struct error *err)
{
    for (size_t i = 0; i < n->nfields; i++)
        if (strlen(n->fields[i].name) == len && memcmp(n->fields[i].name, name, len) == 0)
            return &n->fields[i];
    if (n->nfields == TEXTIO_INFER_MAX_COLUMNS) {
        error_fail(err, ERR_LIMIT, "more than %d distinct names at one level",
                   TEXTIO_INFER_MAX_COLUMNS);
        return NULL;
    }
    if (n->nfields == n->cap) {
        size_t cap = n->cap ? n->cap * 2 : 8;
        struct node *grown = realloc(n->fields, cap * sizeof *grown);
        if (!grown) {
            error_nomem(err);
            return NULL;
        }
        n->fields = grown;
        n->cap = cap;
    }
    char *copy = strndup(name, len);
    if (!copy) {
        error_nomem(err);
        return NULL;
    }
    node_init(&n->fields[n->nfields], copy);
    return &n->fields[n->nfields++];
}

/* A scalar value: the candidates that cannot read it drop out, and the
 * layouts that do not match it (a layout reads text only). */
static void see_scalar(const struct textio_infer *inf, struct node *n, unsigned kind, const char *s,
                       size_t len)
{
    n->shapes |= SHAPE_SCALAR;
    n->present++;
    for (int c = 0; c < C__COUNT; c++)
        if ((n->cands & (1u << c)) && (!(cands[c].kinds & kind) || !cands[c].reads(s, len)))
            n->cands &= ~(1u << c);
    struct textio_civil civil;
    for (size_t f = 0; f < inf->nfmts; f++)
        if (!(n->fmt_fails & (1u << f)) &&
            (!(kind & (VK_TEXT | VK_STRING)) ||
             textio_timefmt_parse(&inf->fmts[f], s, len, &civil) != NULL))
            n->fmt_fails |= 1u << f;
}

static int see_json(const struct textio_infer *inf, struct node *n, const struct rj_value *v,
                    int depth, struct error *err)
{
    switch (v->type) {
    case RJ_NULL: return 0;
    case RJ_TRUE: see_scalar(inf, n, VK_BOOL, "true", 4); return 0;
    case RJ_FALSE: see_scalar(inf, n, VK_BOOL, "false", 5); return 0;
    case RJ_NUMBER: see_scalar(inf, n, VK_NUMBER, v->str, v->len); return 0;
    case RJ_STRING: see_scalar(inf, n, VK_STRING, v->str, v->len); return 0;
    case RJ_ARRAY:
    case RJ_OBJECT: break;
    }
    n->present++;
    if (depth >= MAX_NESTING) {
        n->shapes |= SHAPE_DEEP;
        return 0;
    }
    if (v->type == RJ_OBJECT) {
        n->shapes |= SHAPE_OBJECT;
        for (size_t i = 0; i < v->n; i++) {
            struct node *f = field(n, v->keys[i], v->key_lens[i], err);
            if (!f || see_json(inf, f, &v->items[i], depth + 1, err) != 0)
                return -1;
        }
        return 0;
    }
    n->shapes |= SHAPE_ARRAY;
    if (!n->element) {
        if (!(n->element = malloc(sizeof *n->element)))
            return error_nomem(err);
        node_init(n->element, NULL);
    }
    for (size_t i = 0; i < v->n; i++)
        if (see_json(inf, n->element, &v->items[i], depth + 1, err) != 0)
            return -1;
    return 0;
}

int textio_infer_csv_columns(struct textio_infer *inf, const char *const *names, size_t n,
                             struct error *err)
{
    if (n > TEXTIO_INFER_MAX_COLUMNS)
        return error_fail(err, ERR_LIMIT, "more than %d columns", TEXTIO_INFER_MAX_COLUMNS);
    for (size_t i = 0; i < n; i++) {
        /* Every position is a column, even one repeating a name: the
         * caller's name check reports the repetition. */
        size_t before = inf->root.nfields;
        struct node *f = field(&inf->root, names[i], strlen(names[i]), err);
        if (!f)
            return -1;
        if (inf->root.nfields == before)
            return error_fail(err, ERR_INVALID, "the header names '%s' twice", names[i]);
    }
    return 0;
}

int textio_infer_csv_row(struct textio_infer *inf, const struct csv_reader *r,
                         const char *null_marker, struct error *err)
{
    if (r->nfields != inf->root.nfields)
        return error_fail(err, ERR_INVALID, "the record has %zu fields, the header %zu", r->nfields,
                          inf->root.nfields);
    for (size_t i = 0; i < r->nfields; i++) {
        size_t len;
        bool quoted;
        const char *s = csv_field_text(r, i, &len, &quoted);
        if (!quoted && (len == 0 || (null_marker && strlen(null_marker) == len &&
                                     memcmp(s, null_marker, len) == 0)))
            continue;
        size_t at;
        if (!str_utf8_valid(s, len, &at))
            return error_fail(err, ERR_INVALID, "%s: invalid UTF-8 at byte %zu of the text",
                              inf->root.fields[i].name, at + 1);
        see_scalar(inf, &inf->root.fields[i], VK_TEXT, s, len);
    }
    inf->rows++;
    return 0;
}

int textio_infer_json_row(struct textio_infer *inf, const char *text, size_t len, struct error *err)
{
    struct error je;
    const struct rj_value *v = rj_parse(text, len, &inf->scratch, &je);
    int rc;
    if (!v)
        rc = error_fail(err, je.code, "invalid JSON %s", je.msg);
    else if (v->type != RJ_OBJECT)
        rc = error_fail(err, ERR_INVALID, "a row must be a JSON object, not %s",
                        rj_type_name(v->type));
    else
        rc = see_json(inf, &inf->root, v, 0, err);
    arena_reset(&inf->scratch);
    if (rc == 0)
        inf->rows++;
    return rc;
}

int64_t textio_infer_rows(const struct textio_infer *inf)
{
    return inf->rows;
}

size_t textio_infer_ncolumns(const struct textio_infer *inf)
{
    return inf->root.nfields;
}

const char *textio_infer_column_name(const struct textio_infer *inf, size_t i)
{
    return inf->root.fields[i].name;
}

/* Whether a struct of n's fields can be declared: at least one field, and
 * each named as a table's fields must be (JSON Lines has no renaming of
 * nested members). */
static bool struct_names_ok(const struct node *n)
{
    if (n->nfields == 0)
        return false;
    for (size_t i = 0; i < n->nfields; i++) {
        const char *name = n->fields[i].name;
        if (!lake_ident_valid(name) || lake_ident_reserved(name))
            return false;
        for (size_t j = 0; j < i; j++)
            if (strcasecmp(n->fields[j].name, name) == 0)
                return false;
    }
    return true;
}

/* The type a layout's values take: timestamptz with an offset (%z), a
 * timestamp with a time of day, else a date. */
static const char *layout_type(const struct textio_timefmt *f)
{
    if (memchr(f->items, 'z', f->nitems))
        return "timestamptz";
    return f->has_time ? "timestamp" : "date";
}

/* Puts n's type; *used gains the layouts a column's type relies on. */
static int put_type(const struct textio_infer *inf, const struct node *n, uint32_t *used,
                    struct buf *out)
{
    switch (n->shapes) {
    case 0: return buf_puts(out, "string"); /* only nulls: any type reads them */
    case SHAPE_SCALAR:
        for (int c = 0; c < C__COUNT; c++) {
            /* A layout every value matched comes before string. */
            for (size_t f = 0; c == C_STRING && f < inf->nfmts; f++)
                if (!(n->fmt_fails & (1u << f))) {
                    *used |= 1u << f;
                    return buf_puts(out, layout_type(&inf->fmts[f]));
                }
            if (n->cands & (1u << c))
                return buf_puts(out, cands[c].type);
        }
        break; /* kinds no one type reads */
    case SHAPE_ARRAY:
        if (buf_puts(out, "list<") != 0 || put_type(inf, n->element, used, out) != 0)
            return -1;
        return buf_putc(out, '>');
    case SHAPE_OBJECT:
        if (!struct_names_ok(n))
            break;
        if (buf_puts(out, "struct<") != 0)
            return -1;
        for (size_t i = 0; i < n->nfields; i++)
            if (buf_printf(out, "%s%s:", i ? ", " : "", n->fields[i].name) != 0 ||
                put_type(inf, &n->fields[i], used, out) != 0)
                return -1;
        return buf_putc(out, '>');
    default: break;
    }
    return buf_puts(out, "variant");
}

int textio_infer_formats(struct textio_infer *inf, const struct textio_timefmt *fmts, size_t n,
                         struct error *err)
{
    if (n > TEXTIO_INFER_MAX_FORMATS)
        return error_fail(err, ERR_LIMIT, "more than %d timestamp layouts",
                          TEXTIO_INFER_MAX_FORMATS);
    inf->fmts = fmts;
    inf->nfmts = n;
    return 0;
}

const struct textio_timefmt *textio_infer_tried_formats(const struct textio_infer *inf)
{
    return inf->fmts;
}

int textio_infer_spec(const struct textio_infer *inf, const char *const *names, bool not_null,
                      struct buf *out, uint32_t *formats_used)
{
    uint32_t used = 0;
    for (size_t i = 0; i < inf->root.nfields; i++) {
        const struct node *c = &inf->root.fields[i];
        const char *name = names && names[i] ? names[i] : c->name;
        if (buf_printf(out, "%s%s:", i ? ", " : "", name) != 0 || put_type(inf, c, &used, out) != 0)
            return -1;
        if (not_null && inf->rows > 0 && c->present == inf->rows && buf_putc(out, '!') != 0)
            return -1;
    }
    if (formats_used)
        *formats_used = used;
    return 0;
}
