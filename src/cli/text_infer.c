#include "cli/text_infer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_parquet.h"
#include "cli/name_map.h"
#include "cli/output.h"
#include "lake/ident.h"
#include "parquet/infer.h"
#include "parquet/reader.h"
#include "textio/colspec_format.h"
#include "textio/csv.h"
#include "textio/textio_infer.h"
#include "util/buf.h"

int text_infer_options(const struct cli_args *a, struct text_infer *ti)
{
    memset(ti, 0, sizeof *ti);
    ti->sample_rows = TEXT_INFER_DEFAULT_SAMPLE;
    ti->not_null = cli_opt_given(a, "not-null-from-sample");
    return cli_opt_i64(a, "sample-rows", 0, &ti->sample_rows);
}

static bool sample_full(const struct text_infer *ti, const struct textio_infer *inf)
{
    return ti->sample_rows > 0 && textio_infer_rows(inf) >= ti->sample_rows;
}

/* The names of a CSV's fields: its header's (mapped, and fixed where a
 * table cannot take them), or with --no-header --columns or column0,
 * column1... as DuckDB names them. r holds the first record (got: whether
 * there is one). */
static int csv_names(const struct csv_reader *r, int got, struct text_options *o, const char *shown,
                     struct arena *ar, const char ***names, size_t *n)
{
    if (o->no_header && o->columns) {
        for (size_t i = 0; i < o->ncolumns; i++)
            if (!lake_ident_valid(o->columns[i]) || lake_ident_reserved(o->columns[i]))
                return cli_usage_error("--columns: '%s' cannot be a column's name (names match "
                                       "%s and do not start with %s)",
                                       o->columns[i], LAKE_IDENT_PATTERN, LAKE_RESERVED_PREFIX);
        *names = o->columns;
        *n = o->ncolumns;
        return EXIT_OK;
    }
    if (got == 0) {
        fprintf(stderr, "hoglake: %s: empty input: no %s to infer columns from\n", shown,
                o->no_header ? "row" : "header");
        return EXIT_FAILURE_OTHER;
    }
    const char **in = arena_calloc(ar, r->nfields, sizeof *in);
    if (!in) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    for (size_t i = 0; i < r->nfields; i++) {
        size_t len = 0;
        const char *text = o->no_header ? NULL : csv_field_text(r, i, &len, NULL);
        if (text && strlen(text) != len) {
            fprintf(stderr, "hoglake: %s line %lld: header field %zu holds a NUL byte\n", shown,
                    (long long)r->record_line, i + 1);
            return EXIT_FAILURE_OTHER;
        }
        /* Copied: the reader's next record overwrites its text. */
        in[i] = text ? arena_strndup(ar, text, len) : arena_sprintf(ar, "column%zu", i);
        if (!in[i]) {
            fprintf(stderr, "hoglake: out of memory\n");
            return EXIT_FAILURE_OTHER;
        }
    }
    *n = r->nfields;
    return name_map_header_fixed(&o->map, in, r->nfields, NAME_MAP_CHECK_UNUSED, shown, ar, names);
}

static int sample_csv(const struct text_in *in, const char *shown, bool tab, struct text_options *o,
                      const struct text_infer *ti, struct textio_infer *inf, struct arena *ar)
{
    struct csv_reader r;
    text_csv_init(&r, in);
    r.delim = (char)(o->delimiter ? o->delimiter : tab ? '\t' : ',');
    struct error err;
    const char **names = NULL;
    size_t n = 0;
    int got = csv_read_record(&r);
    int rc = got < 0 ? EXIT_FAILURE_OTHER : csv_names(&r, got, o, shown, ar, &names, &n);
    if (got < 0)
        fprintf(stderr, "hoglake: %s %s\n", shown, r.err);
    if (rc == EXIT_OK && textio_infer_csv_columns(inf, names, n, &err) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", shown, err.msg);
        rc = EXIT_FAILURE_OTHER;
    }
    /* A header-less file's first record is a row. */
    if (rc == EXIT_OK && !o->no_header)
        got = csv_read_record(&r);
    for (; rc == EXIT_OK && got > 0 && !sample_full(ti, inf); got = csv_read_record(&r)) {
        if (textio_infer_csv_row(inf, &r, o->null_marker, &err) != 0) {
            fprintf(stderr, "hoglake: %s line %lld: %s\n", shown, (long long)r.record_line,
                    err.msg);
            rc = EXIT_FAILURE_OTHER;
        }
    }
    if (rc == EXIT_OK && got < 0) {
        fprintf(stderr, "hoglake: %s %s\n", shown, r.err);
        rc = EXIT_FAILURE_OTHER;
    }
    csv_reader_free(&r);
    return rc;
}

/* JSON rows: JSON Lines, or a JSON array's elements (fmt). */
static int sample_json(const struct text_in *in, enum text_format fmt, const char *shown,
                       const struct text_infer *ti, struct textio_infer *inf)
{
    struct jsonrows r;
    text_json_init(&r, in, fmt);
    const char *row;
    size_t len;
    struct error err;
    int rc = EXIT_OK, got = 0;
    while (rc == EXIT_OK && !sample_full(ti, inf) && (got = jsonrows_next(&r, &row, &len)) > 0)
        if (textio_infer_json_row(inf, row, len, &err) != 0) {
            fprintf(stderr, "hoglake: %s line %lld: %s\n", shown, (long long)r.row_line, err.msg);
            rc = EXIT_FAILURE_OTHER;
        }
    if (rc == EXIT_OK && got < 0) {
        fprintf(stderr, "hoglake: %s %s\n", shown, r.err);
        rc = EXIT_FAILURE_OTHER;
    }
    jsonrows_free(&r);
    if (rc == EXIT_OK && textio_infer_ncolumns(inf) == 0) {
        fprintf(stderr, "hoglake: %s: no member in the sampled rows to infer columns from\n",
                shown);
        rc = EXIT_FAILURE_OTHER;
    }
    return rc;
}

/* The final names of JSON Lines members (mapped, and fixed where a table
 * cannot take them). */
static int jsonl_names(const struct textio_infer *inf, struct text_options *o, const char *shown,
                       struct arena *ar, const char ***names)
{
    size_t n = textio_infer_ncolumns(inf);
    const char **in = arena_calloc(ar, n, sizeof *in);
    if (!in) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    /* Copied: the names outlive the inference, in o->map. */
    for (size_t i = 0; i < n; i++)
        if (!(in[i] = arena_strdup(ar, textio_infer_column_name(inf, i)))) {
            fprintf(stderr, "hoglake: out of memory\n");
            return EXIT_FAILURE_OTHER;
        }
    return name_map_header_fixed(&o->map, in, n, 0, shown, ar, names);
}

/* Date and time layouts tried when the user names none, after ISO 8601,
 * in this order: the first one all of a column's values match is its
 * type's. Month-first before day-first, as DuckDB's sniffer prefers. */
static const char *const default_layouts[] = {
    "%Y/%m/%d %H:%M:%S", "%Y/%m/%d %H:%M", "%Y/%m/%d",  "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M",
    "%m/%d/%Y %H:%M:%S", "%m/%d/%Y %H:%M", "%m/%d/%Y",  "%d/%m/%Y",       "%d.%m.%Y",
    "%b %d %Y",          "%d %b %Y",       "%b %d, %Y",
};

/* The layouts inference tries: --timestamp-format's, else the defaults
 * (compiled into ar). EXIT_OK, or EXIT_FAILURE_OTHER out of memory. */
static int infer_layouts(struct textio_infer *inf, struct text_options *o, struct arena *ar)
{
    const struct textio_timefmt *fmts = o->time_fmts;
    size_t n = o->ntime_fmts;
    struct error err;
    if (n == 0) {
        n = sizeof default_layouts / sizeof *default_layouts;
        struct textio_timefmt *own = arena_calloc(ar, n, sizeof *own);
        for (size_t i = 0; own && i < n; i++)
            if (textio_timefmt_compile(default_layouts[i], &own[i], &err) != 0)
                own = NULL; /* a fixed list that compiles: only out of memory */
        fmts = own;
    }
    if (!fmts || textio_infer_formats(inf, fmts, n, &err) != 0) {
        fprintf(stderr, "hoglake: %s\n", fmts ? err.msg : "out of memory");
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}

/* The spec, --map and layouts of a text input sampled into inf; o then
 * reads the input with the layouts the columns rely on. */
static int text_result(const struct textio_infer *inf, const char *const *names,
                       struct text_options *o, struct text_infer *ti, struct arena *ar)
{
    struct buf spec = BUF_INIT, map = BUF_INIT;
    uint32_t used = 0;
    int rc = textio_infer_spec(inf, names, ti->not_null, &spec, &used) == 0 &&
                     name_map_text(&o->map, &map) == 0
                 ? EXIT_OK
                 : EXIT_FAILURE_OTHER;
    const struct textio_timefmt *tried = textio_infer_tried_formats(inf);
    struct textio_timefmt *keep = used ? arena_calloc(ar, 32, sizeof *keep) : NULL;
    ti->nformats = 0;
    for (int f = 0; rc == EXIT_OK && keep && f < 32; f++)
        if (used & (1u << f))
            keep[ti->nformats++] = tried[f];
    if (used && !keep)
        rc = EXIT_FAILURE_OTHER;
    ti->formats = keep;
    /* Without layouts of the user's, reading the input needs these. */
    if (keep && o->ntime_fmts == 0) {
        o->time_fmts = keep;
        o->ntime_fmts = ti->nformats;
    }
    ti->spec = rc == EXIT_OK ? arena_strndup(ar, spec.data ? spec.data : "", spec.len) : NULL;
    ti->map = rc == EXIT_OK && map.len ? arena_strndup(ar, map.data, map.len) : NULL;
    ti->rows = textio_infer_rows(inf);
    if (!ti->spec || (map.len && !ti->map)) {
        fprintf(stderr, "hoglake: out of memory\n");
        rc = EXIT_FAILURE_OTHER;
    }
    buf_free(&spec);
    buf_free(&map);
    return rc;
}

static int infer_text(const char *path, enum text_format fmt, bool tab, struct text_options *o,
                      struct text_infer *ti, struct arena *ar)
{
    const char *shown = text_shown_path(path);
    struct textio_infer *inf = textio_infer_new();
    if (!inf) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    struct text_in in = {0};
    int rc = infer_layouts(inf, o, ar);
    if (rc == EXIT_OK)
        rc = text_open(path, o, &in);
    if (rc == EXIT_OK)
        rc = fmt == TEXT_CSV ? sample_csv(&in, shown, tab, o, ti, inf, ar)
                             : sample_json(&in, fmt, shown, ti, inf);
    text_close(&in);
    const char **names = NULL;
    if (rc == EXIT_OK && fmt != TEXT_CSV)
        rc = jsonl_names(inf, o, shown, ar, &names);
    if (rc == EXIT_OK)
        rc = text_result(inf, names, o, ti, ar);
    textio_infer_free(inf);
    return rc;
}

/* A Parquet file's columns: the schema parquet convert infers. */
static int infer_parquet(const char *path, struct text_infer *ti, struct arena *ar)
{
    struct pq_source src = {0};
    src.fd = -1;
    struct pq_reader *r = NULL;
    struct error err = {0};
    struct lake_table t;
    lake_table_init(&t, ar);
    struct buf spec = BUF_INIT;
    int rc = cli_parquet_open_source(path, &src);
    if (rc == EXIT_OK && pq_reader_open(&src, &r, &err) != 0)
        rc = EXIT_FAILURE_OTHER;
    /* A variant column the file holds is a variant column of the table. */
    const struct pq_infer_options opts = {.variants = true};
    if (rc == EXIT_OK && pq_infer_table_with(pq_reader_schema(r), &t, &opts, NULL, &err) != 0)
        rc = EXIT_FAILURE_OTHER;
    if (rc == EXIT_FAILURE_OTHER && err.msg[0])
        fprintf(stderr, "hoglake: %s: %s\n", path, err.msg);
    if (rc == EXIT_OK && (colspec_format_columns(&t, &spec) != 0 ||
                          !(ti->spec = arena_strndup(ar, spec.data ? spec.data : "", spec.len)))) {
        fprintf(stderr, "hoglake: out of memory\n");
        rc = EXIT_FAILURE_OTHER;
    }
    ti->rows = -1;
    buf_free(&spec);
    lake_table_release(&t);
    pq_reader_free(r);
    if (src.fd >= 0)
        pq_source_close(&src);
    return rc;
}

int text_infer_columns(const char *path, enum text_format fmt, bool tab, struct text_options *o,
                       struct text_infer *ti, struct arena *ar)
{
    return fmt == TEXT_PARQUET ? infer_parquet(path, ti, ar)
                               : infer_text(path, fmt, tab, o, ti, ar);
}

/* Text quoted for a POSIX shell: '...', a quote inside written '\''. */
static void put_quoted(FILE *out, const char *text)
{
    fputc('\'', out);
    for (const char *s = text; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", out);
        else
            fputc(*s, out);
    }
    fputc('\'', out);
}

void text_infer_print(FILE *out, const char *path, const char *opt, const struct text_infer *ti)
{
    if (ti->rows < 0) {
        fprintf(out, "# the columns of %s's Parquet schema\n", path);
    } else {
        char rows[OUT_NUM_MAX];
        fprintf(out, "# columns inferred from %s (%s sampled)\n", text_shown_path(path),
                out_count(ti->rows, "row", "rows", rows, sizeof rows));
    }
    fprintf(out, "%s ", opt);
    put_quoted(out, ti->spec);
    fputc('\n', out);
    if (ti->map) {
        fputs("--map ", out);
        put_quoted(out, ti->map);
        fputc('\n', out);
    }
    for (size_t i = 0; i < ti->nformats; i++) {
        fputs("--timestamp-format ", out);
        put_quoted(out, ti->formats[i].text);
        fputc('\n', out);
    }
}
