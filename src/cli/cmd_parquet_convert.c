/* hoglake parquet convert IN OUT: CSV, JSON or Parquet rows into a
 * Parquet file a catalog table accepts (docs/cli-parquet.md, "convert"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd_parquet.h"
#include "cli/name_map.h"
#include "cli/text_infer.h"
#include "cli/text_input.h"
#include "parquet/infer.h"
#include "parquet/writer.h"
#include "rows/rows_adapt.h"
#include "rows/rows_schema.h"
#include "textio/csv.h"
#include "textio/textio_parse.h"
#include "textio/textio_schema.h"

enum { DEFAULT_BATCH_ROWS = 65536 };

const struct cli_opt cli_parquet_convert_opts[] = {
    {"from", true, false,
     "csv|tsv|json|jsonl|parquet  IN's format (default: from its extension, before a .gz or "
     ".zst; required for -, standard input)"},
    {"delimiter", true, false,
     "C  CSV's field separator: one ASCII character, or tab (\\t) (default ',', a tab for "
     ".tsv)"},
    {"no-header", false, false,
     "the CSV has no header row: its fields are the --schema's columns in order, or --columns"},
    {"columns", true, false, "A,B,...  with --no-header: the schema's columns in the file's order"},
    {"null", true, false,
     "STRING  an unquoted CSV field equal to STRING is NULL (an empty one always is)"},
    {"map", true, true,
     "'Source Header=column,...'  input names (taken as they are) to columns (\\ escapes , = "
     "\\)"},
    TEXT_INPUT_OPTS,
    {"schema", true, false,
     "SPEC  'id:long!, name:string', ColumnDef JSON (may set field_id), or @FILE (default: "
     "inferred from the input)"},
    {"sample-rows", true, false,
     "N  without --schema: rows of a CSV or JSON Lines input the inferred types must read "
     "(default 20480; 0: all)"},
    {"not-null-from-sample", false, false,
     "without --schema: make NOT NULL the columns the sample has no null in"},
    {"compression", true, false, "zstd|snappy|gzip|lz4_raw|uncompressed (default zstd)"},
    {"level", true, false, "N  zstd level, 1 to 22 (default 3)"},
    {"row-group-bytes", true, false, "N  cut row groups past N bytes (default 128 MiB)"},
    {"page-bytes", true, false, "N  cut data pages past N bytes (default 1 MiB)"},
    {"no-dictionary", false, false, "no dictionary encoding"},
    {"batch-rows", true, false, "N  rows handed to the writer at a time (default 65536)"},
    {"rename", true, true,
     "OLD=NEW,...  give input columns (a.b for struct fields) names a table accepts"},
    {"unknown-as", true, false,
     "TYPE  the type of Parquet columns of the null (UNKNOWN) type (they hold only nulls)"},
    {"force", false, false, "overwrite OUT when it exists"},
};

/* An output written to a temporary file next to OUT and renamed into place
 * only on success, so a failed conversion leaves nothing behind. */
struct output {
    const char *path;
    char tmp[4096];
    int fd;
    bool force;
};

static int output_open(struct output *o, const char *path, bool force)
{
    o->path = path;
    o->force = force;
    o->fd = -1;
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    if (snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.tmp-XXXXXX", dirlen, path,
                 slash ? slash + 1 : path) >= (int)sizeof o->tmp) {
        fprintf(stderr, "hoglake: %s: path too long\n", path);
        return -1;
    }
    o->fd = mkstemp(o->tmp);
    if (o->fd < 0) {
        fprintf(stderr, "hoglake: cannot create a file next to %s: %s\n", path, strerror(errno));
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(o->fd, 0666 & ~mask) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", o->tmp, strerror(errno));
        return -1;
    }
    return 0;
}

/* Removes the temporary file (after a failure). */
static void output_abandon(struct output *o)
{
    if (o->fd >= 0) {
        close(o->fd);
        unlink(o->tmp);
        o->fd = -1;
    }
}

static int output_publish(struct output *o)
{
    if (fsync(o->fd) != 0 || close(o->fd) != 0) {
        o->fd = -1;
        fprintf(stderr, "hoglake: writing %s: %s\n", o->path, strerror(errno));
        unlink(o->tmp);
        return EXIT_FAILURE_OTHER;
    }
    o->fd = -1;
    if (o->force) {
        if (rename(o->tmp, o->path) == 0)
            return EXIT_OK;
    } else if (link(o->tmp, o->path) == 0) {
        unlink(o->tmp);
        return EXIT_OK;
    } else if (errno == EEXIST) {
        unlink(o->tmp);
        fprintf(stderr, "hoglake: %s exists (give --force to overwrite it)\n", o->path);
        return EXIT_CONFLICT;
    } else if (access(o->path, F_OK) != 0 && rename(o->tmp, o->path) == 0) {
        return EXIT_OK; /* a file system without hard links */
    }
    fprintf(stderr, "hoglake: cannot move the result to %s: %s\n", o->path, strerror(errno));
    unlink(o->tmp);
    return EXIT_FAILURE_OTHER;
}

struct convert {
    const char *in_path;
    const char *shown; /* in_path in messages */
    enum text_format from;
    bool tab; /* TSV */
    struct text_options *text;
    int64_t batch_rows;
    struct lake_table *t;
    struct pq_writer *w;
    struct ArrowSchema wschema;       /* the batches the writer takes */
    struct name_map *renames;         /* text->map */
    const char *unknown_as;           /* --unknown-as: the type of null-only columns */
    struct pq_infer_result annotated; /* GEOMETRY/GEOGRAPHY columns the output keeps */
    struct arena *arena;              /* lives as long as the conversion */
    int fail_code; /* the exit code of a failure (EXIT_FAILURE_OTHER unless usage) */
};

static int write_batch(struct convert *c, const struct ArrowArray *batch)
{
    struct error err = {0};
    if (pq_writer_write(c->w, &c->wschema, batch, &err) != 0) {
        fprintf(stderr, "hoglake: writing Parquet: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* A converted chunk (rows_adapt_chunks' sink), --batch-rows at a time. */
static int write_chunk(void *ctx, const struct ArrowArray *chunk, struct error *err)
{
    struct convert *c = ctx;
    for (int64_t at = 0; at < chunk->length; at += c->batch_rows) {
        struct ArrowArray slice = *chunk;
        slice.offset = chunk->offset + at;
        slice.length = chunk->length - at < c->batch_rows ? chunk->length - at : c->batch_rows;
        if (write_batch(c, &slice) != 0)
            return error_fail(err, ERR_IO, "written"); /* reported by write_batch */
    }
    return 0;
}

/* Converts a batch (taken; the parser's variant text is encoded here, as
 * an append encodes it) and writes it; prints a conversion's error after
 * `where`. */
static int convert_batch(struct convert *c, const struct ArrowSchema *s, struct ArrowArray *b,
                         bool foreign, const char *where)
{
    struct error err = {0};
    struct rows_adapt_options ao = {.check_utf8 = foreign};
    if (rows_adapt_chunks(s, b, c->t, &ao, write_chunk, c, &err) == 0)
        return 0;
    if (err.code != ERR_IO)
        fprintf(stderr, "hoglake: %s%s\n", where, err.msg);
    return -1;
}

static int flush_rows(struct convert *c, struct textio_parser *p)
{
    struct ArrowSchema s;
    struct ArrowArray b;
    struct error err;
    if (textio_parser_take(p, &s, &b, &err) != 0) {
        fprintf(stderr, "hoglake: %s\n", err.msg);
        return -1;
    }
    int rc = convert_batch(c, &s, &b, false, "");
    s.release(&s);
    return rc;
}

static int convert_csv(struct convert *c, const struct text_in *in, struct textio_parser *p)
{
    struct csv_reader r;
    text_csv_init(&r, in);
    struct error err;
    int rc = -1, got = 1;
    bool row;
    int code =
        text_csv_begin(c->text, c->tab, &r, p, c->t, NAME_MAP_CHECK_UNUSED | NAME_MAP_CHECK_IDENTS,
                       "the schema", c->shown, c->arena, &row);
    if (code != EXIT_OK) {
        c->fail_code = code;
        goto out;
    }
    /* A header-less file's first record is a row. */
    for (got = row ? 1 : csv_read_record(&r); got > 0; got = csv_read_record(&r)) {
        if (textio_parser_csv_row(p, &r, &err) != 0) {
            fprintf(stderr, "hoglake: %s line %lld: %s\n", c->shown, (long long)r.record_line,
                    err.msg);
            goto out;
        }
        if (textio_parser_pending(p) >= c->batch_rows && flush_rows(c, p) != 0)
            goto out;
    }
    if (got < 0) {
        fprintf(stderr, "hoglake: %s %s\n", c->shown, r.err);
        goto out;
    }
    rc = textio_parser_pending(p) > 0 ? flush_rows(c, p) : 0;
out:
    csv_reader_free(&r);
    return rc;
}

static int convert_json(struct convert *c, const struct text_in *in, struct textio_parser *p)
{
    struct jsonrows r;
    const char *row;
    size_t len;
    struct error err;
    int rc = -1, got;
    if (text_json_begin(c->text, p, c->t, c->arena) != EXIT_OK)
        return -1;
    text_json_init(&r, in, c->from);
    while ((got = jsonrows_next(&r, &row, &len)) > 0) {
        if (textio_parser_json_row(p, row, len, &err) != 0) {
            fprintf(stderr, "hoglake: %s line %lld: %s\n", c->shown, (long long)r.row_line,
                    err.msg);
            goto out;
        }
        if (textio_parser_pending(p) >= c->batch_rows && flush_rows(c, p) != 0)
            goto out;
    }
    if (got < 0) {
        fprintf(stderr, "hoglake: %s %s\n", c->shown, r.err);
        goto out;
    }
    rc = textio_parser_pending(p) > 0 ? flush_rows(c, p) : 0;
out:
    jsonrows_free(&r);
    return rc;
}

static int convert_parquet(struct convert *c, struct pq_reader *r)
{
    struct ArrowSchema from;
    struct error err = {0};
    if (pq_reader_arrow_schema(r, &from, &err) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", c->in_path, err.msg);
        return -1;
    }
    int rc = -1;
    if (name_map_arrow(c->renames, &from, c->arena) != 0) {
        fprintf(stderr, "hoglake: out of memory\n");
        goto out;
    }
    if (rows_adapt_check(&from, c->t, &err) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", c->in_path, err.msg);
        goto out;
    }
    const struct pq_file_meta *m = pq_reader_meta(r);
    for (size_t g = 0; g < m->nrow_groups; g++) {
        struct ArrowArray batch;
        if (pq_reader_read_row_group(r, g, &batch, &err) != 0) {
            fprintf(stderr, "hoglake: %s: row group %zu: %s\n", c->in_path, g, err.msg);
            goto out;
        }
        char where[1100];
        snprintf(where, sizeof where, "%.1000s: row group %zu: ", c->in_path, g);
        bool ok = convert_batch(c, &from, &batch, true, where) == 0;
        if (!ok)
            goto out;
    }
    rc = 0;
out:
    from.release(&from);
    return rc;
}

/* The writer options from the command line. */
static bool write_options(const struct cli_args *a, struct pq_write_options *o)
{
    pq_write_options_default(o);
    const char *codec = cli_opt_value(a, "compression");
    if (codec) {
        static const char *const allowed[] = {"zstd", "snappy", "gzip", "lz4_raw", "uncompressed"};
        bool ok = false;
        for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
            ok |= strcasecmp(codec, allowed[i]) == 0;
        if (!ok || !pq_codec_parse(codec, &o->codec)) {
            cli_usage_error("--compression takes zstd, snappy, gzip, lz4_raw or uncompressed");
            return false;
        }
    }
    int64_t v;
    if (cli_opt_given(a, "level")) {
        if (!cli_parse_count("level", cli_opt_value(a, "level"), 1, &v))
            return false;
        if (o->codec != PQ_ZSTD || v > 22) {
            cli_usage_error("--level sets the zstd level (1 to 22)");
            return false;
        }
        o->level = (int)v;
    }
    if (cli_opt_given(a, "row-group-bytes")) {
        if (!cli_parse_count("row-group-bytes", cli_opt_value(a, "row-group-bytes"), 1, &v))
            return false;
        o->row_group_bytes = v;
    }
    if (cli_opt_given(a, "page-bytes")) {
        if (!cli_parse_count("page-bytes", cli_opt_value(a, "page-bytes"), 1, &v))
            return false;
        o->page_bytes = v;
    }
    o->dictionary = !cli_opt_given(a, "no-dictionary");
    return true;
}

/* Runs the conversion into o's file; returns 0 or -1 (message printed). */
static int convert_into(struct convert *c, struct output *o, const struct pq_write_options *wo,
                        struct pq_reader *r)
{
    struct error err = {0};
    struct textio_parser *p = NULL;
    struct text_in in = {0};
    int rc = -1;
    if (rows_table_arrow_schema(c->t, &c->wschema) != 0) {
        fprintf(stderr, "hoglake: out of memory\n");
        return -1;
    }
    if (c->from != TEXT_PARQUET) {
        if (textio_parser_new(c->t, &p, &err) != 0) {
            fprintf(stderr, "hoglake: %s\n", err.msg);
            goto out;
        }
        if (text_open(c->in_path, c->text, &in) != EXIT_OK)
            goto out;
    }
    struct pq_sink sink = {pq_sink_fd_write, &o->fd};
    struct pq_write_options keep = *wo;
    keep.logicals = c->annotated.logicals;
    keep.nlogicals = c->annotated.nlogicals;
    if (pq_writer_open(c->t, &keep, &sink, &c->w, &err) != 0) {
        fprintf(stderr, "hoglake: %s\n", err.msg);
        goto out;
    }
    if (c->from == TEXT_CSV)
        rc = convert_csv(c, &in, p);
    else if (c->from != TEXT_PARQUET)
        rc = convert_json(c, &in, p);
    else
        rc = convert_parquet(c, r);
    if (rc == 0) {
        struct pq_write_result res;
        rc = pq_writer_close(c->w, &res, &err);
        c->w = NULL;
        if (rc != 0)
            fprintf(stderr, "hoglake: writing Parquet: %s\n", err.msg);
        else
            pq_write_result_release(&res);
    }
out:
    if (c->w)
        pq_writer_free(c->w);
    text_close(&in);
    textio_parser_free(p);
    c->wschema.release(&c->wschema);
    return rc;
}

/* INT96 infers as timestamp_ns, but a column holding instants past the
 * nanosecond range (Spark's 9999-12-31, BC dates) reads at microseconds
 * (src/parquet/reader.c): the table follows what the reader hands out. */
static void follow_int96_units(struct lake_column *col, const struct ArrowSchema *s)
{
    if (col->type == LT_TIMESTAMP_NS && strcmp(s->format, "tsu:") == 0)
        col->type = LT_TIMESTAMP;
    if (col->type == LT_STRUCT && (size_t)s->n_children == col->nchildren)
        for (size_t i = 0; i < col->nchildren; i++)
            follow_int96_units(col->children[i], s->children[i]);
    else if (col->type == LT_LIST && col->nchildren == 1 && s->n_children == 1)
        follow_int96_units(col->children[0], s->children[0]);
}

static int follow_reader_units(struct convert *c, struct pq_reader *r)
{
    struct ArrowSchema s;
    struct error err = {0};
    if (pq_reader_arrow_schema(r, &s, &err) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", c->in_path, err.msg);
        return EXIT_FAILURE_OTHER;
    }
    if ((size_t)s.n_children == c->t->root.nchildren)
        for (size_t i = 0; i < c->t->root.nchildren; i++)
            follow_int96_units(c->t->root.children[i], s.children[i]);
    s.release(&s);
    return EXIT_OK;
}

/* The table a Parquet input fills, its columns renamed: the --schema's
 * (t already holds them), picked from the file by their input names; or
 * the file's own, when their names (renamed) can be columns. */
static int parquet_table(struct convert *c, struct pq_reader *r, bool have_spec)
{
    struct pq_schema renamed;
    struct error err = {0};
    int rc = name_map_parquet(c->renames, pq_reader_schema(r), !have_spec, c->in_path, c->arena,
                              &renamed);
    if (rc != EXIT_OK)
        return rc;
    if (!have_spec) {
        const struct pq_infer_options opts = {.unknown_as = c->unknown_as};
        if (pq_infer_table_with(&renamed, c->t, &opts, &c->annotated, &err) == 0)
            return follow_reader_units(c, r);
        fprintf(stderr, "hoglake: %s: %s\n", c->in_path, err.msg);
        return EXIT_FAILURE_OTHER;
    }
    /* The schema's columns, by their names in the file, in its order. */
    size_t n = c->t->root.nchildren;
    const char **names = arena_calloc(c->arena, n ? n : 1, sizeof *names);
    if (!names) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    for (size_t i = 0; i < n; i++)
        names[i] = name_map_source_of(c->renames, c->t->root.children[i]->name);
    if (pq_reader_select_names(r, names, n, &err) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", c->in_path, err.msg);
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}

/* Whether null-only columns can take this type: a scalar that needs no
 * parameters (a decimal would need its precision). */
static bool null_column_type(const char *name)
{
    enum lake_type t;
    const char *why;
    return lake_type_lookup(name, &t, &why) == LAKE_TYPE_OK && !lake_type_is_container(t) &&
           t != LT_VARIANT && t != LT_DECIMAL;
}

int cli_run_parquet_convert(struct cli *cli, const struct cli_args *a)
{
    (void)cli;
    struct convert c = {0};
    c.in_path = a->positional[0];
    c.shown = text_shown_path(c.in_path);
    const char *out_path = a->positional[1];
    int code = text_format_of(c.in_path, cli_opt_value(a, "from"), "--from", &c.from, &c.tab);
    if (code != EXIT_OK)
        return code;
    const char *spec = cli_opt_value(a, "schema");
    bool infer = !spec && c.from != TEXT_PARQUET;
    if (infer && text_is_stdin(c.in_path))
        return cli_usage_error("standard input (-) needs --schema: inferring one reads the input "
                               "twice");
    static const char *const infer_only[] = {"sample-rows", "not-null-from-sample"};
    for (size_t i = 0; !infer && i < sizeof infer_only / sizeof *infer_only; i++)
        if (cli_opt_given(a, infer_only[i]))
            return cli_usage_error("--%s applies to CSV and JSON Lines input without --schema",
                                   infer_only[i]);
    struct text_infer ti;
    if ((code = text_infer_options(a, &ti)) != EXIT_OK)
        return code;
    static const char *const csv_only[] = {"delimiter", "null", "no-header"};
    for (size_t i = 0; c.from != TEXT_CSV && i < sizeof csv_only / sizeof *csv_only; i++)
        if (cli_opt_given(a, csv_only[i]))
            return cli_usage_error("--%s applies to CSV input", csv_only[i]);
    c.batch_rows = DEFAULT_BATCH_ROWS;
    if (cli_opt_given(a, "batch-rows") &&
        !cli_parse_count("batch-rows", cli_opt_value(a, "batch-rows"), 1, &c.batch_rows))
        return EXIT_USAGE;
    struct pq_write_options wo;
    if (!write_options(a, &wo))
        return EXIT_USAGE;
    if ((c.from == TEXT_JSONL || c.from == TEXT_JSON) && cli_opt_given(a, "rename"))
        return cli_usage_error("--rename applies to CSV and Parquet input, not JSON Lines");
    c.unknown_as = cli_opt_value(a, "unknown-as");
    if (c.unknown_as && (c.from != TEXT_PARQUET || spec))
        return cli_usage_error("--unknown-as applies to Parquet input converted without --schema");
    if (c.unknown_as && !null_column_type(c.unknown_as))
        return cli_usage_error("--unknown-as takes a scalar type without parameters (string, long, "
                               "double, timestamp...), not '%s'",
                               c.unknown_as);
    bool force = cli_opt_given(a, "force");
    if (!force && access(out_path, F_OK) == 0) {
        fprintf(stderr, "hoglake: %s exists (give --force to overwrite it)\n", out_path);
        return EXIT_CONFLICT;
    }
    struct stat st;
    if (!text_is_stdin(c.in_path) && stat(c.in_path, &st) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", c.in_path, strerror(errno));
        return errno == ENOENT ? EXIT_NOT_FOUND : EXIT_FAILURE_OTHER;
    }

    struct arena arena;
    arena_init(&arena, 0);
    struct lake_table t;
    lake_table_init(&t, &arena);
    t.name = "converted";
    c.t = &t;
    c.arena = &arena;
    c.fail_code = EXIT_FAILURE_OTHER;
    struct text_options text;
    c.text = &text;
    c.renames = &text.map;
    struct pq_source src = {0};
    src.fd = -1;
    struct pq_reader *r = NULL;
    struct output o = {0};
    o.fd = -1;
    struct error err = {0};
    int rc = EXIT_FAILURE_OTHER;
    if ((rc = text_options_parse(a, true, &arena, &text)) != EXIT_OK)
        goto out;
    if (infer) {
        if ((rc = text_infer_columns(c.in_path, c.from, c.tab, &text, &ti, &arena)) != EXIT_OK)
            goto out;
        text_infer_print(stderr, c.in_path, "--schema", &ti);
        spec = ti.spec;
    }
    rc = EXIT_FAILURE_OTHER;
    if (spec && textio_table_from_spec(spec, &t, &err) != 0) {
        rc = cli_usage_error("--schema: %s", err.msg);
        goto out;
    }
    if (c.from != TEXT_PARQUET && (rc = text_options_check(&text, &t, "the schema")) != EXIT_OK)
        goto out;
    rc = EXIT_FAILURE_OTHER;
    if (c.from == TEXT_PARQUET) {
        if ((rc = cli_parquet_open_source(c.in_path, &src)) != EXIT_OK)
            goto out;
        rc = EXIT_FAILURE_OTHER;
        if (pq_reader_open(&src, &r, &err) != 0) {
            fprintf(stderr, "hoglake: %s: %s\n", c.in_path, err.msg);
            goto out;
        }
        if ((rc = parquet_table(&c, r, spec != NULL)) != EXIT_OK)
            goto out;
        rc = EXIT_FAILURE_OTHER;
    }
    if (output_open(&o, out_path, force) != 0)
        goto out;
    if (convert_into(&c, &o, &wo, r) != 0) {
        if (infer)
            fprintf(stderr,
                    "hoglake: the schema was inferred from the first %lld rows: give --schema, "
                    "or a larger --sample-rows (0: all)\n",
                    (long long)ti.rows);
        rc = c.fail_code;
        goto out;
    }
    rc = output_publish(&o);
out:
    output_abandon(&o);
    pq_reader_free(r);
    if (src.fd >= 0)
        pq_source_close(&src);
    lake_table_release(&t);
    arena_free(&arena);
    return rc;
}
