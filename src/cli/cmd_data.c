/* hoglake append and hoglake read: rows into and out of a table through
 * libhoglake (Parquet in object storage, registered by one commit; read
 * back through the scan plan). */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/append_key.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/partition_text.h"
#include "cli/progress.h"
#include "cli/text_input.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "rows/rows_schema.h"
#include "textio/csv.h"
#include "textio/textio_parse.h"
#include "textio/textio_render.h"
#include "textio/textio_schema.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/failpoint.h"

enum { BATCH_ROWS = 65536 };

/* ---- one input file as an Arrow stream ---- */

struct input {
    const char *path;  /* as given ("-": standard input) */
    const char *shown; /* in messages */
    enum text_format format;
    bool tab; /* TSV */
    const struct lake_table *table;
    struct text_options *opts;
    struct arena *arena; /* the append's, for the input's names */
    struct progress *progress;
    bool sized; /* a regular file: size is its length */
    uint64_t size;
    uint64_t reported; /* bytes of it the progress has counted */
    struct text_in text;
    struct csv_reader csv;
    bool csv_open, first_is_row;
    struct jsonrows json;
    bool json_open;
    struct textio_parser *parser;
    struct pq_source src;
    bool src_open;
    struct pq_reader *reader;
    size_t next_group;
    char last_error[1400];
};

static int input_fail(struct input *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int input_fail(struct input *in, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->last_error, sizeof in->last_error, fmt, ap);
    va_end(ap);
    return EINVAL;
}

static int input_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct input *in = s->private_data;
    if (in->format != TEXT_PARQUET)
        return textio_arrow_schema(in->table, out) == 0 ? 0 : ENOMEM;
    struct error pe;
    if (pq_reader_arrow_schema(in->reader, out, &pe) != 0)
        return input_fail(in, "%s: %s", in->shown, pe.msg);
    if (rows_schema_mark_file_extensions(out, pq_reader_schema(in->reader)) != 0) {
        out->release(out);
        return ENOMEM;
    }
    return 0;
}

/* Parses rows until a batch is full or the input ends. */
static int read_text_rows(struct input *in)
{
    struct error err;
    if (in->format == TEXT_CSV) {
        /* A header-less file's first record, read when the input opened. */
        if (in->first_is_row) {
            in->first_is_row = false;
            if (textio_parser_csv_row(in->parser, &in->csv, &err) != 0)
                return input_fail(in, "%s line %lld: %s", in->shown, (long long)in->csv.record_line,
                                  err.msg);
        }
        int got;
        while (textio_parser_pending(in->parser) < BATCH_ROWS &&
               (got = csv_read_record(&in->csv)) != 0) {
            if (got < 0)
                return input_fail(in, "%s %s", in->shown, in->csv.err);
            if (textio_parser_csv_row(in->parser, &in->csv, &err) != 0)
                return input_fail(in, "%s line %lld: %s", in->shown, (long long)in->csv.record_line,
                                  err.msg);
        }
        return 0;
    }
    const char *row;
    size_t len;
    int got;
    while (textio_parser_pending(in->parser) < BATCH_ROWS &&
           (got = jsonrows_next(&in->json, &row, &len)) != 0) {
        if (got < 0)
            return input_fail(in, "%s %s", in->shown, in->json.err);
        if (textio_parser_json_row(in->parser, row, len, &err) != 0)
            return input_fail(in, "%s line %lld: %s", in->shown, (long long)in->json.row_line,
                              err.msg);
    }
    return 0;
}

/* Bytes of the input consumed so far: the file position of text (the
 * lines read from a pipe, which has none), the share of the row groups
 * read of Parquet. */
static uint64_t input_consumed(const struct input *in)
{
    if (in->format == TEXT_PARQUET) {
        size_t groups = pq_reader_meta(in->reader)->nrow_groups;
        return groups ? in->size * in->next_group / groups : in->size;
    }
    /* A file's position as stored (a compressed file's compressed bytes),
     * else the bytes its reader took from the pipe. */
    if (in->sized)
        return text_in_position(&in->text);
    return byte_reader_consumed(in->json_open ? &in->json.src : &in->csv.src);
}

/* The input has consumed `consumed` bytes of its own and read `rows` more
 * rows: the progress gets the increments, so it only moves forward. */
static void input_progress(struct input *in, uint64_t consumed, int64_t rows)
{
    uint64_t more = consumed > in->reported ? consumed - in->reported : 0;
    in->reported += more;
    /* A test's view of a long append: the bar has time to show. */
    if (failpoint_on("append-slow-batches"))
        usleep(300 * 1000);
    progress_advance(in->progress, more, rows, progress_now());
}

static int input_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct input *in = s->private_data;
    memset(out, 0, sizeof *out);
    if (in->format == TEXT_PARQUET) {
        const struct pq_file_meta *m = pq_reader_meta(in->reader);
        if (in->next_group >= m->nrow_groups)
            return 0;
        struct error pe;
        if (pq_reader_read_row_group(in->reader, in->next_group, out, &pe) != 0)
            return input_fail(in, "%s: row group %zu: %s", in->shown, in->next_group, pe.msg);
        in->next_group++;
        input_progress(in, input_consumed(in), out->length);
        return 0;
    }
    int rc = read_text_rows(in);
    if (rc != 0 || textio_parser_pending(in->parser) == 0)
        return rc;
    struct ArrowSchema schema;
    struct error err;
    if (textio_parser_take(in->parser, &schema, out, &err) != 0)
        return input_fail(in, "%s: %s", in->shown, err.msg);
    schema.release(&schema);
    input_progress(in, input_consumed(in), out->length);
    return 0;
}

static const char *input_last_error(struct ArrowArrayStream *s)
{
    struct input *in = s->private_data;
    return in->last_error[0] ? in->last_error : NULL;
}

static void input_close(struct input *in)
{
    if (in->csv_open)
        csv_reader_free(&in->csv);
    in->csv_open = false;
    if (in->json_open)
        jsonrows_free(&in->json);
    in->json_open = false;
    textio_parser_free(in->parser);
    in->parser = NULL;
    text_close(&in->text);
    pq_reader_free(in->reader);
    in->reader = NULL;
    if (in->src_open)
        pq_source_close(&in->src);
    in->src_open = false;
}

/* The stream has been read (or abandoned): its file counts as done. */
static void input_release(struct ArrowArrayStream *s)
{
    struct input *in = s->private_data;
    if (in->sized)
        input_progress(in, in->size, 0);
    input_close(in);
    s->release = NULL;
}

/* Opens a text input and starts it: a CSV header is read and bound now,
 * so bad names are refused before anything is written. */
static int text_input_open(struct input *in)
{
    struct error pe;
    int rc = text_open(in->path, in->opts, &in->text);
    if (rc != EXIT_OK)
        return rc;
    if (textio_parser_new(in->table, &in->parser, &pe) != 0) {
        fprintf(stderr, "hoglake: %s\n", pe.msg);
        return EXIT_FAILURE_OTHER;
    }
    if (in->format != TEXT_CSV) {
        text_json_init(&in->json, &in->text, in->format);
        in->json_open = true;
        return text_json_begin(in->opts, in->parser, in->table, in->arena);
    }
    text_csv_init(&in->csv, &in->text);
    in->csv_open = true;
    return text_csv_begin(in->opts, in->tab, &in->csv, in->parser, in->table, 0, "the table",
                          in->shown, in->arena, &in->first_is_row);
}

/* Opens one input and makes it a stream. Prints the problem on failure
 * and returns its exit code. */
static int input_open(struct input *in, struct ArrowArrayStream *s)
{
    struct stat st;
    in->shown = text_shown_path(in->path);
    bool from_stdin = text_is_stdin(in->path);
    if ((from_stdin ? fstat(STDIN_FILENO, &st) : stat(in->path, &st)) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", in->shown, strerror(errno));
        return EXIT_FAILURE_OTHER;
    }
    /* Text may come from a pipe (stdin); Parquet is read at offsets. */
    bool regular = S_ISREG(st.st_mode);
    if (!regular && (in->format == TEXT_PARQUET || S_ISDIR(st.st_mode))) {
        fprintf(stderr, "hoglake: %s: not a regular file\n", in->shown);
        return EXIT_FAILURE_OTHER;
    }
    in->sized = regular && !from_stdin;
    in->size = in->sized ? (uint64_t)st.st_size : 0;
    struct error pe;
    int rc = EXIT_OK;
    if (in->format != TEXT_PARQUET) {
        rc = text_input_open(in);
    } else if (pq_source_file(&in->src, in->path, &pe) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", in->path, pe.msg);
        rc = EXIT_FAILURE_OTHER;
    } else {
        in->src_open = true;
        if (pq_reader_open(&in->src, &in->reader, &pe) != 0) {
            fprintf(stderr, "hoglake: %s: %s\n", in->path, pe.msg);
            rc = EXIT_FAILURE_OTHER;
        }
    }
    if (rc != EXIT_OK) {
        input_close(in);
        return rc;
    }
    memset(s, 0, sizeof *s);
    s->get_schema = input_get_schema;
    s->get_next = input_get_next;
    s->get_last_error = input_last_error;
    s->release = input_release;
    s->private_data = in;
    return EXIT_OK;
}

/* ---- append ---- */

/* SIGINT and SIGTERM during an append: the library polls this between
 * batches and stops, removing what it wrote. A second signal while it
 * cleans up changes nothing. */
static volatile sig_atomic_t interrupted;
/* The exit status of an interrupted append: 128 + SIGINT, as shells say. */
enum { EXIT_INTERRUPTED = 130 };

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

static bool append_cancelled(void *ctx)
{
    (void)ctx;
    return interrupted != 0;
}

struct interrupt_handlers {
    struct sigaction old_int, old_term;
};

static void interrupts_catch(struct interrupt_handlers *h)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, &h->old_int);
    sigaction(SIGTERM, &sa, &h->old_term);
}

static void interrupts_restore(const struct interrupt_handlers *h)
{
    sigaction(SIGINT, &h->old_int, NULL);
    sigaction(SIGTERM, &h->old_term, NULL);
}

/* What an append that committed nothing left behind, on stderr. */
static void print_leftovers(const struct hl_append_result *r, bool cancelled)
{
    size_t left = r ? r->nuploaded : 0, removed = r ? r->nremoved : 0;
    char objects[OUT_NUM_MAX];
    out_count((int64_t)removed, "object", "objects", objects, sizeof objects);
    if (cancelled)
        fprintf(stderr, "interrupted: removed %s written by this append\n", objects);
    else if (removed && !left)
        fprintf(stderr, "hoglake: nothing was committed; removed the %s it wrote\n", objects);
    else if (!left)
        fprintf(stderr, "hoglake: nothing was committed or uploaded\n");
    /* Objects the library kept may belong to a commit whose answer was
     * lost: not "nothing was committed". */
    if (left)
        fprintf(stderr, "%s\n",
                cancelled ? "interrupted: could not remove these objects left in storage:"
                          : "hoglake: these objects stay in storage (the table's if the commit "
                            "landed, else reclaimed by the server's cleanup):");
    for (size_t i = 0; i < left; i++)
        fprintf(stderr, "  %s\n", r->uploaded[i]);
}

/* The encoding report as JSON: per variant column, its rows, NULLs, text
 * made NULL by reason, and each declared node's counts. */
static json_t *variant_report_json(const struct hl_append_result *r)
{
    json_t *cols = json_array();
    for (size_t k = 0; cols && k < r->nvariant; k++) {
        const struct hl_variant_report *v = &r->variant[k];
        json_t *paths = json_array();
        for (size_t g = 0; paths && g < v->npaths; g++) {
            const struct hl_variant_path_counts *p = &v->paths[g];
            json_array_append_new(paths, json_pack("{s:s, s:I, s:I, s:I, s:I}", "path", p->path,
                                                   "typed", (json_int_t)p->typed, "fallback",
                                                   (json_int_t)p->fallback, "variant_null",
                                                   (json_int_t)p->variant_null, "missing",
                                                   (json_int_t)p->missing));
        }
        json_array_append_new(
            cols,
            json_pack("{s:s, s:I, s:I, s:{s:I, s:I, s:I, s:I}, s:o}", "column", v->column, "rows",
                      (json_int_t)v->rows, "sql_null", (json_int_t)v->sql_null, "invalid",
                      "invalid_json", (json_int_t)v->invalid_json, "duplicate_key",
                      (json_int_t)v->duplicate_key, "nesting_too_deep",
                      (json_int_t)v->nesting_too_deep, "number_out_of_range",
                      (json_int_t)v->number_out_of_range, "paths", paths ? paths : json_array()));
    }
    return cols;
}

/* The encoding report as text: a line per column, a row per declared
 * node. */
static void print_variant_report(const struct hl_append_result *r)
{
    for (size_t k = 0; k < r->nvariant; k++) {
        const struct hl_variant_report *v = &r->variant[k];
        char rows[OUT_NUM_MAX], nulls[OUT_NUM_MAX];
        printf("variant column %s: %s, %s NULL", v->column,
               out_count(v->rows, "row", "rows", rows, sizeof rows),
               out_number(nulls, v->sql_null));
        int64_t invalid =
            v->invalid_json + v->duplicate_key + v->nesting_too_deep + v->number_out_of_range;
        if (invalid)
            printf(" (%lld from invalid text: invalid_json %lld, duplicate_key %lld, "
                   "nesting_too_deep %lld, number_out_of_range %lld)",
                   (long long)invalid, (long long)v->invalid_json, (long long)v->duplicate_key,
                   (long long)v->nesting_too_deep, (long long)v->number_out_of_range);
        printf("\n");
        if (v->npaths == 0) {
            printf("  no shredding declared: every value in value\n");
            continue;
        }
        size_t width = 4;
        for (size_t g = 0; g < v->npaths; g++) {
            size_t n = strlen(v->paths[g].path);
            width = n > width ? n : width;
        }
        printf("  %-*s %12s %12s %12s %12s\n", (int)width, "PATH", "TYPED", "FALLBACK",
               "VARIANT NULL", "MISSING");
        for (size_t g = 0; g < v->npaths; g++) {
            const struct hl_variant_path_counts *p = &v->paths[g];
            printf("  %-*s %12lld %12lld %12lld %12lld\n", (int)width, p->path, (long long)p->typed,
                   (long long)p->fallback, (long long)p->variant_null, (long long)p->missing);
        }
    }
}

static void print_result(const struct cli *cli, const struct hl_append_result *r,
                         const struct part_spec *spec, bool variant_report)
{
    if (cli->json) {
        json_t *files = json_array();
        for (size_t i = 0; files && i < r->nfiles; i++) {
            const struct hl_appended_file *f = &r->files[i];
            json_t *pv = f->partition_values ? json_array() : json_null();
            for (size_t k = 0; pv && k < f->npartition_values; k++)
                json_array_append_new(
                    pv, f->partition_values[k] ? json_string(f->partition_values[k]) : json_null());
            json_array_append_new(
                files, json_pack("{s:s, s:I, s:I, s:o?}", "path", f->path, "record_count",
                                 (json_int_t)f->record_count, "file_size_bytes",
                                 (json_int_t)f->file_size_bytes, "partition_values", pv));
        }
        json_t *doc =
            json_pack("{s:I, s:o, s:I, s:o}", "snapshot_id", (json_int_t)r->snapshot_id, "files",
                      files, "variant_invalid_rows", (json_int_t)r->variant_invalid_rows, "variant",
                      variant_report_json(r));
        cli_print_json(doc);
        json_decref(doc);
        return;
    }
    if (r->snapshot_id < 0) {
        printf("nothing appended: the input holds no rows\n");
        return;
    }
    int64_t rows = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        rows += r->files[i].record_count;
    char a[OUT_NUM_MAX], b[OUT_NUM_MAX];
    printf("snapshot %lld: %s in %s\n", (long long)r->snapshot_id,
           out_count(rows, "row", "rows", a, sizeof a),
           out_count((int64_t)r->nfiles, "file", "files", b, sizeof b));
    if (r->variant_invalid_rows)
        printf("  %s of variant text that is not JSON written as NULL\n",
               out_count(r->variant_invalid_rows, "row", "rows", a, sizeof a));
    struct buf part = BUF_INIT;
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct hl_appended_file *f = &r->files[i];
        printf("  %s  %s  %s", f->path, out_count(f->record_count, "row", "rows", a, sizeof a),
               out_bytes(b, (uint64_t)f->file_size_bytes));
        buf_reset(&part);
        if (f->partition_values && part_text(spec, (const char *const *)f->partition_values,
                                             f->npartition_values, &part) == 0)
            printf("  %.*s", (int)part.len, part.data);
        printf("\n");
    }
    buf_free(&part);
    if (variant_report)
        print_variant_report(r);
}

/* The table's definition, for parsing text inputs into its types: the one
 * opening the table read, which the append then commits against. */
static int load_definition(hl_table *t, struct lake_table *def, struct part_spec *spec)
{
    char *text = NULL;
    struct hl_error err;
    hl_status st = hl_table_definition(t, &text, &err);
    if (st != HL_OK)
        return cli_report(st, &err);
    json_t *info = json_loads(text, 0, NULL);
    free(text);
    struct error e;
    int rc = info ? textio_table_from_columns(json_object_get(info, "columns"), def, &e) : -1;
    if (rc != 0) {
        fprintf(stderr, "hoglake: the server's table definition: %s\n", info ? e.msg : "not JSON");
        json_decref(info);
        return EXIT_FAILURE_OTHER;
    }
    /* The files are written under this spec: the summary names their
     * partitions by it. */
    rc = part_spec_from_table(info, spec);
    json_decref(info);
    if (rc != 0) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}

/* The handles of CATALOG.NS.TABLE, or the usage or library error reported. */
static int open_table(struct cli *cli, const char *qualified, struct cli_table *h)
{
    memset(h, 0, sizeof *h);
    char parts[3][200];
    if (!cli_split_name(qualified, 3, parts))
        return cli_usage_error("expected CATALOG.NAMESPACE.TABLE, got '%s'", qualified);
    struct hl_error err;
    hl_status st = cli_table_open(cli, parts, h, &err);
    return st == HL_OK ? EXIT_OK : cli_report(st, &err);
}

/* Each input's format (from --format or its name) into formats and
 * tabs; at most one input is standard input, and the CSV options need a
 * CSV input. */
static int input_formats(const struct cli_args *a, enum text_format *formats, bool *tabs)
{
    const char *forced = cli_opt_value(a, "format");
    int nfiles = a->npositional - 1, nstdin = 0;
    bool csv = false;
    for (int i = 0; i < nfiles; i++) {
        const char *path = a->positional[i + 1];
        int rc = text_format_of(path, forced, "--format", &formats[i], &tabs[i]);
        if (rc != EXIT_OK)
            return rc;
        nstdin += text_is_stdin(path);
        csv |= formats[i] == TEXT_CSV;
    }
    if (nstdin > 1)
        return cli_usage_error("standard input (-) can be read once");
    static const char *const csv_only[] = {"delimiter", "null", "no-header"};
    for (size_t i = 0; !csv && i < sizeof csv_only / sizeof *csv_only; i++)
        if (cli_opt_given(a, csv_only[i]))
            return cli_usage_error("--%s applies to CSV input, and none is given", csv_only[i]);
    return EXIT_OK;
}

/* The width of the terminal on fd (80 when it does not say). */
static int terminal_columns(int fd)
{
    struct winsize ws;
    return ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

static int run_append(struct cli *cli, const struct cli_args *a)
{
    int nfiles = a->npositional - 1;
    enum text_format *formats = calloc((size_t)nfiles, sizeof *formats);
    bool *tabs = calloc((size_t)nfiles, sizeof *tabs);
    struct arena arena;
    arena_init(&arena, 0);
    struct text_options text;
    int rc = formats && tabs ? input_formats(a, formats, tabs) : EXIT_FAILURE_OTHER;
    if (rc == EXIT_OK)
        rc = text_options_parse(a, false, &arena, &text);
    int64_t file_bytes = 0;
    if (rc == EXIT_OK)
        rc = cli_opt_i64(a, "file-bytes", 1, &file_bytes);
    const char *on_invalid = cli_opt_value(a, "variant-on-invalid");
    if (rc == EXIT_OK && on_invalid && strcmp(on_invalid, "error") != 0 &&
        strcmp(on_invalid, "null") != 0)
        rc = cli_usage_error("--variant-on-invalid takes error or null");
    struct append_key key;
    bool committed_before = false;
    if (rc == EXIT_OK && (rc = append_key_parse(a, &key)) == EXIT_OK)
        rc = append_key_check(cli, a->positional[0], &key, &committed_before);
    if (rc != EXIT_OK || committed_before) {
        free(formats);
        free(tabs);
        arena_free(&arena);
        return rc;
    }
    struct interrupt_handlers handlers;
    interrupts_catch(&handlers);
    struct cli_table h;
    rc = open_table(cli, a->positional[0], &h);
    if (rc != EXIT_OK) {
        interrupts_restore(&handlers);
        free(formats);
        free(tabs);
        arena_free(&arena);
        return rc;
    }
    struct lake_table def;
    lake_table_init(&def, &arena);
    struct input *inputs = calloc((size_t)nfiles, sizeof *inputs);
    struct ArrowArrayStream *streams = calloc((size_t)nfiles, sizeof *streams);
    struct ArrowArrayStream **ptrs = calloc((size_t)nfiles, sizeof *ptrs);
    /* The line is for a person watching: a terminal, and not --quiet. */
    bool quiet = cli_opt_given(a, "quiet");
    struct progress progress;
    progress_start(&progress, !quiet && isatty(STDERR_FILENO) ? stderr : NULL,
                   terminal_columns(STDERR_FILENO), progress_now());
    struct part_spec spec = {0};
    int opened = 0;
    rc = inputs && streams && ptrs ? load_definition(h.table, &def, &spec) : EXIT_FAILURE_OTHER;
    if (rc == EXIT_OK)
        rc = text_options_check(&text, &def, "the table");
    for (int i = 0; rc == EXIT_OK && i < nfiles; i++) {
        inputs[i] = (struct input){.path = a->positional[i + 1],
                                   .format = formats[i],
                                   .tab = tabs[i],
                                   .table = &def,
                                   .opts = &text,
                                   .arena = &arena,
                                   .progress = &progress};
        if ((rc = input_open(&inputs[i], &streams[i])) != EXIT_OK)
            break;
        ptrs[i] = &streams[i];
        progress_add_input(&progress, inputs[i].sized, inputs[i].size);
        opened++;
    }
    struct hl_append_options o;
    hl_append_options_init(&o);
    o.author = cli_opt_value(a, "author");
    o.message = cli_opt_value(a, "message");
    o.deferred_stats = cli_opt_given(a, "deferred-stats");
    /* Row groups no larger than the files they are in: a file rolls over
     * only once its row groups reach storage. */
    o.file_bytes = file_bytes;
    o.row_group_bytes = file_bytes;
    o.cancelled = append_cancelled;
    o.idempotency_key = key.key[0] ? key.key : NULL;
    if (on_invalid && strcmp(on_invalid, "null") == 0)
        o.variant_on_invalid = HL_VARIANT_INVALID_NULL;
    if (rc == EXIT_OK && interrupted) {
        /* Interrupted before the append began: nothing was written. */
        print_leftovers(NULL, true);
        rc = EXIT_INTERRUPTED;
    } else if (rc == EXIT_OK) {
        struct hl_append_result *res = NULL;
        struct hl_error err;
        hl_status st = hl_table_append_streams(h.table, ptrs, (size_t)nfiles, &o, &res, &err);
        opened = 0; /* the library released every stream */
        progress_finish(&progress, progress_now());
        if (st == HL_OK) {
            if (!quiet)
                print_result(cli, res, &spec, cli_opt_given(a, "variant-report"));
        } else if (st == HL_ERR_CANCELLED) {
            print_leftovers(res, true);
            rc = EXIT_INTERRUPTED;
        } else {
            rc = cli_report(st, &err);
            print_leftovers(res, false);
            rc = append_key_after_failure(cli, a->positional[0], &key, st, rc);
        }
        hl_append_result_free(res);
    }
    for (int i = 0; i < opened; i++)
        streams[i].release(&streams[i]);
    free(inputs);
    free(streams);
    free(ptrs);
    free(formats);
    free(tabs);
    part_spec_free(&spec);
    lake_table_release(&def);
    arena_free(&arena);
    cli_table_close(&h);
    interrupts_restore(&handlers);
    return rc;
}

/* ---- read ---- */

static int flush_to(FILE *f, struct buf *out)
{
    if (out->len && fwrite(out->data, 1, out->len, f) != out->len) {
        fprintf(stderr, "hoglake: writing the output: %s\n", strerror(errno));
        return -1;
    }
    buf_reset(out);
    return 0;
}

/* The stream's next batch into *batch (released at the end); prints the
 * stream's error. */
static int next_rows(struct ArrowArrayStream *s, struct ArrowArray *batch)
{
    if (s->get_next(s, batch) == 0)
        return 0;
    const char *why = s->get_last_error(s);
    fprintf(stderr, "hoglake: %s\n", why ? why : "reading the table failed");
    return -1;
}

static int render_stream(struct ArrowArrayStream *s, enum textio_format format, FILE *f)
{
    struct ArrowSchema schema;
    if (s->get_schema(s, &schema) != 0) {
        fprintf(stderr, "hoglake: %s\n", s->get_last_error(s) ? s->get_last_error(s) : "no schema");
        return EXIT_FAILURE_OTHER;
    }
    struct textio_render *render = NULL;
    struct error err;
    int rc = EXIT_FAILURE_OTHER;
    struct buf out = BUF_INIT;
    if (textio_render_new(&schema, format, &render, &err) != 0) {
        fprintf(stderr, "hoglake: %s\n", err.msg);
        goto out;
    }
    textio_render_header(render, &out);
    for (;;) {
        struct ArrowArray batch;
        if (next_rows(s, &batch) != 0)
            goto out;
        if (!batch.release)
            break;
        bool ok = true;
        for (int64_t i = 0; ok && i < batch.length; i++) {
            if (textio_render_row(render, &batch, i, &out, &err) != 0) {
                fprintf(stderr, "hoglake: %s\n", err.msg);
                ok = false;
            } else if (out.len >= (1 << 20) && flush_to(f, &out) != 0) {
                ok = false;
            }
        }
        batch.release(&batch);
        if (!ok)
            goto out;
    }
    if (flush_to(f, &out) == 0 && fflush(f) == 0)
        rc = EXIT_OK;
out:
    textio_render_free(render);
    schema.release(&schema);
    buf_free(&out);
    return rc;
}

/* The definition of the stream's columns, with their field ids: the
 * columns of the table at `at` the stream's schema names, in its order. */
static int output_definition(hl_table *t, const struct hl_at *at, const struct ArrowSchema *schema,
                             struct lake_table *def)
{
    char *text = NULL;
    struct hl_error err;
    hl_status st = hl_table_info(t, at, &text, &err);
    if (st != HL_OK)
        return cli_report(st, &err);
    json_t *info = json_loads(text, 0, NULL);
    free(text);
    const json_t *all = json_object_get(info, "columns");
    json_t *cols = json_array();
    for (int64_t i = 0; cols && i < schema->n_children; i++) {
        size_t k;
        const json_t *c;
        json_array_foreach (all, k, c) {
            const char *name = json_string_value(json_object_get(c, "name"));
            if (name && strcmp(name, schema->children[i]->name) == 0)
                json_array_append(cols, (json_t *)c);
        }
    }
    struct error e;
    int rc = cols ? textio_table_from_columns(cols, def, &e) : -1;
    json_decref(cols);
    json_decref(info);
    if (rc != 0) {
        fprintf(stderr, "hoglake: the table's definition: %s\n", cols ? e.msg : "out of memory");
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}

/* The stream as one Parquet file, its columns carrying the table's field
 * ids, into fd. */
static int write_parquet(struct ArrowArrayStream *s, hl_table *t, const struct hl_at *at, int fd)
{
    struct ArrowSchema schema;
    if (s->get_schema(s, &schema) != 0) {
        fprintf(stderr, "hoglake: %s\n", s->get_last_error(s) ? s->get_last_error(s) : "no schema");
        return EXIT_FAILURE_OTHER;
    }
    struct arena arena;
    arena_init(&arena, 0);
    struct lake_table def;
    lake_table_init(&def, &arena);
    int rc = output_definition(t, at, &schema, &def);
    struct pq_write_options o;
    pq_write_options_default(&o);
    struct pq_sink sink = {pq_sink_fd_write, &fd};
    struct pq_writer *w = NULL;
    struct error err;
    if (rc == EXIT_OK && pq_writer_open(&def, &o, &sink, &w, &err) != 0) {
        fprintf(stderr, "hoglake: %s\n", err.msg);
        rc = EXIT_FAILURE_OTHER;
    }
    while (rc == EXIT_OK) {
        struct ArrowArray batch;
        if (next_rows(s, &batch) != 0) {
            rc = EXIT_FAILURE_OTHER;
            break;
        }
        if (!batch.release)
            break;
        if (pq_writer_write(w, &schema, &batch, &err) != 0) {
            fprintf(stderr, "hoglake: writing Parquet: %s\n", err.msg);
            rc = EXIT_FAILURE_OTHER;
        }
        batch.release(&batch);
    }
    if (w && rc == EXIT_OK) {
        struct pq_write_result res;
        if (pq_writer_close(w, &res, &err) != 0) {
            fprintf(stderr, "hoglake: writing Parquet: %s\n", err.msg);
            rc = EXIT_FAILURE_OTHER;
        } else {
            pq_write_result_release(&res);
        }
    } else if (w) {
        pq_writer_free(w);
    }
    lake_table_release(&def);
    arena_free(&arena);
    schema.release(&schema);
    return rc;
}

/* --format as the row printers take it (jsonl when absent). */
static bool row_format(const char *fmt, enum textio_format *out)
{
    *out = TEXTIO_JSONL;
    if (fmt && strcmp(fmt, "csv") == 0)
        *out = TEXTIO_CSV;
    else if (fmt && strcmp(fmt, "jsonl") != 0)
        return false;
    return true;
}

static void print_scan_stats(const struct hl_scan_stats *st)
{
    char n[7][OUT_NUM_MAX];
    fprintf(stderr,
            "files: %s read, %s pruned; row groups: %s read, %s pruned; pages: %s read, %s "
            "pruned; rows: %s\n",
            out_number(n[0], st->files_scanned), out_number(n[1], st->files_pruned),
            out_number(n[2], st->row_groups_scanned), out_number(n[3], st->row_groups_pruned),
            out_number(n[4], st->pages_scanned), out_number(n[5], st->pages_pruned),
            out_number(n[6], st->rows_matched));
}

/* Where the rows go: --output, else stdout (which must not be a terminal
 * for Parquet). *f is NULL for Parquet, *fd the descriptor. */
static int open_output(const char *path, bool parquet, FILE **f, int *fd)
{
    *f = stdout;
    *fd = STDOUT_FILENO;
    if (!path) {
        if (parquet && isatty(STDOUT_FILENO))
            return cli_usage_error("--format parquet writes binary: give --output FILE or "
                                   "redirect stdout");
        return EXIT_OK;
    }
    *f = fopen(path, "wb");
    if (!*f) {
        fprintf(stderr, "hoglake: %s: %s\n", path, strerror(errno));
        return EXIT_FAILURE_OTHER;
    }
    *fd = fileno(*f);
    return EXIT_OK;
}

struct read_request {
    struct hl_at at;
    struct hl_scan_options options;
    const char *names[CLI_MAX_VALUES];
    char *columns; /* --columns, split in place */
    bool parquet;
    enum textio_format format;
};

static int parse_read(const struct cli_args *a, struct read_request *q)
{
    memset(q, 0, sizeof *q);
    hl_scan_options_init(&q->options);
    const char *fmt = cli_opt_value(a, "format");
    q->parquet = fmt && strcmp(fmt, "parquet") == 0;
    if (!q->parquet && !row_format(fmt, &q->format))
        return cli_usage_error("--format takes csv, jsonl or parquet, not '%s'", fmt);
    int64_t snapshot = -1;
    if (cli_opt_i64(a, "limit", 0, &q->options.limit) != EXIT_OK ||
        cli_opt_i64(a, "snapshot", 0, &snapshot) != EXIT_OK)
        return EXIT_USAGE;
    if (!cli_opt_given(a, "limit"))
        q->options.limit = -1;
    q->at = (struct hl_at){snapshot, cli_opt_value(a, "at")};
    if (snapshot >= 0 && q->at.at_timestamp)
        return cli_usage_error("give --snapshot or --at, not both");
    q->options.predicate = cli_opt_value(a, "where");
    if (cli_opt_given(a, "columns")) {
        q->columns = strdup(cli_opt_value(a, "columns"));
        if (!q->columns)
            return cli_usage_error("out of memory");
        int rc = text_split_names(q->columns, "--columns", q->names, CLI_MAX_VALUES,
                                  &q->options.ncolumns);
        q->options.columns = q->names;
        return rc;
    }
    return EXIT_OK;
}

static int run_read(struct cli *cli, const struct cli_args *a)
{
    struct read_request q;
    int rc = parse_read(a, &q);
    struct hl_scan_stats stats;
    q.options.stats = &stats;
    FILE *f = NULL;
    int fd = -1;
    if (rc == EXIT_OK)
        rc = open_output(cli_opt_value(a, "output"), q.parquet, &f, &fd);
    struct cli_table h = {0};
    if (rc == EXIT_OK)
        rc = open_table(cli, a->positional[0], &h);
    struct ArrowArrayStream s;
    struct hl_error err;
    hl_status st = rc == EXIT_OK ? hl_table_scan_with(h.table, &q.at, &q.options, &s, &err) : HL_OK;
    if (st != HL_OK) {
        rc = cli_report(st, &err);
    } else if (rc == EXIT_OK) {
        rc = q.parquet ? write_parquet(&s, h.table, &q.at, fd) : render_stream(&s, q.format, f);
        s.release(&s);
        if (rc == EXIT_OK && cli_opt_given(a, "stats"))
            print_scan_stats(&stats);
    }
    if (h.table)
        cli_table_close(&h);
    if (f && f != stdout && fclose(f) != 0 && rc == EXIT_OK) {
        fprintf(stderr, "hoglake: %s: %s\n", cli_opt_value(a, "output"), strerror(errno));
        rc = EXIT_FAILURE_OTHER;
    }
    free(q.columns);
    return rc;
}

int cli_print_changed_rows(struct cli *cli, const char *qualified, int64_t from, int64_t to,
                           const char *fmt)
{
    enum textio_format format;
    if (!row_format(fmt, &format))
        return cli_usage_error("--format takes csv or jsonl, not '%s'", fmt);
    struct cli_table h;
    int rc = open_table(cli, qualified, &h);
    if (rc != EXIT_OK)
        return rc;
    struct ArrowArrayStream s;
    struct hl_error err;
    hl_status st = hl_table_scan_changes(h.table, from, to, &s, NULL, &err);
    if (st != HL_OK) {
        rc = cli_report(st, &err);
    } else {
        rc = render_stream(&s, format, stdout);
        s.release(&s);
    }
    cli_table_close(&h);
    return rc;
}

static const struct cli_opt append_opts[] = {
    {"format", true, false,
     "csv|tsv|json|jsonl|parquet  the inputs' format (default: from each name: .csv, .tsv, "
     ".json, .jsonl, .ndjson, .parquet, each also .gz or .zst; required for standard input, -)"},
    {"delimiter", true, false,
     "C  CSV's field separator: one ASCII character, or tab (\\t) (default ',', a tab for "
     ".tsv)"},
    {"no-header", false, false,
     "CSV inputs have no header row: their fields are the table's columns in order, or "
     "--columns"},
    {"columns", true, false, "A,B,...  with --no-header: the table's columns in the file's order"},
    {"null", true, false,
     "STRING  an unquoted CSV field equal to STRING is NULL (an empty one always is)"},
    {"map", true, true,
     "'Source Header=column,...'  CSV header or JSON Lines member names to the table's columns "
     "(\\ escapes , = \\)"},
    TEXT_INPUT_OPTS,
    {"author", true, false, "NAME  recorded on the snapshot"},
    {"message", true, false, "TEXT  recorded on the snapshot"},
    {"idempotency-key", true, false,
     "UUID  commit under this key: re-running with it after an unknown outcome finishes the "
     "append or reports the snapshot it made, never appends twice"},
    {"prepared", false, false,
     "pick a fresh idempotency key, print it on stderr before uploading, and commit under it"},
    {"deferred-stats", false, false,
     "register the files without statistics (the server "
     "computes them)"},
    {"file-bytes", true, false,
     "N  start a new file past N bytes of a partition's Parquet, in row groups of at most N "
     "bytes of data (default 512 MiB, row groups 128 MiB)"},
    {"variant-on-invalid", true, false,
     "error|null  a variant column's text that is not one JSON value fails the append "
     "(default) or is written as NULL, counted"},
    {"quiet", false, false,
     "no progress line and no summary (nor --json's): only errors, on stderr"},
    {"variant-report", false, false,
     "print where each variant column's values went: rows, NULLs, invalid text by reason, and "
     "per declared path the values typed, left in value (another type), Variant nulls and "
     "missing"},
};

static const struct cli_opt read_opts[] = {
    {"snapshot", true, false, "N  read as of snapshot N"},
    {"at", true, false, "TIME  read as of an ISO-8601 instant"},
    {"format", true, false,
     "csv|jsonl|parquet  the output (default jsonl; parquet: one file with the table's field "
     "ids)"},
    {"limit", true, false, "N  stop after N rows"},
    {"columns", true, false, "A,B,...  only these columns, in this order"},
    {"where", true, false, "EXPR  only the rows the predicate selects (see hoglake delete)"},
    {"output", true, false, "FILE  write there instead of stdout"},
    {"stats", false, false, "print the pruning counters on stderr"},
};

int cmd_append(struct cli *cli, int argc, char **argv)
{
    static const struct cli_verb v = {
        "append",
        "append rows from CSV, JSON Lines or Parquet files in one commit",
        "append CATALOG.NAMESPACE.TABLE FILE...|- [options]",
        append_opts,
        sizeof append_opts / sizeof append_opts[0],
        2,
        CLI_MAX_POSITIONAL,
        run_append};
    return cli_run_command(cli, &v, argc, argv);
}

int cmd_read(struct cli *cli, int argc, char **argv)
{
    static const struct cli_verb v = {"read",
                                      "print a table's rows, or some of them (through its scan "
                                      "plan, pruned by the predicate)",
                                      "read CATALOG.NAMESPACE.TABLE [options]",
                                      read_opts,
                                      sizeof read_opts / sizeof read_opts[0],
                                      1,
                                      1,
                                      run_read};
    return cli_run_command(cli, &v, argc, argv);
}
