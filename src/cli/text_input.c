#include "cli/text_input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/error.h"

bool text_is_stdin(const char *path)
{
    return strcmp(path, "-") == 0;
}

const char *text_shown_path(const char *path)
{
    return text_is_stdin(path) ? "stdin" : path;
}

/* The compression a name's last extension says, and that extension's
 * length (0: none). */
static size_t compression_suffix(const char *path, enum textio_compression *c)
{
    static const struct {
        const char *ext;
        enum textio_compression c;
    } exts[] = {{".gz", TEXTIO_GZIP}, {".zst", TEXTIO_ZSTD}};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t k = strlen(exts[i].ext);
        if (n > k && strcasecmp(path + n - k, exts[i].ext) == 0) {
            *c = exts[i].c;
            return k;
        }
    }
    *c = TEXTIO_PLAIN;
    return 0;
}

int text_format_of(const char *path, const char *forced, const char *opt, enum text_format *fmt,
                   bool *tab)
{
    static const struct {
        const char *name, *ext;
        enum text_format f;
        bool tab;
    } fmts[] = {
        {"csv", ".csv", TEXT_CSV, false},       {"tsv", ".tsv", TEXT_CSV, true},
        {"jsonl", ".jsonl", TEXT_JSONL, false}, {"jsonl", ".ndjson", TEXT_JSONL, false},
        {"json", ".json", TEXT_JSON, false},    {"parquet", ".parquet", TEXT_PARQUET, false}};
    enum textio_compression c;
    size_t n = strlen(path) - compression_suffix(path, &c);
    bool in = text_is_stdin(path);
    if (in && !forced)
        return cli_usage_error("reading standard input (-) needs %s csv|tsv|json|jsonl", opt);
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        size_t k = strlen(fmts[i].ext);
        if (forced ? strcasecmp(forced, fmts[i].name) == 0
                   : n > k && strncasecmp(path + n - k, fmts[i].ext, k) == 0) {
            *fmt = fmts[i].f;
            *tab = fmts[i].tab;
            if (in && *fmt == TEXT_PARQUET)
                return cli_usage_error("Parquet is read at offsets: give a file, not -");
            if (c != TEXTIO_PLAIN && *fmt == TEXT_PARQUET)
                return cli_usage_error("Parquet is read at offsets: decompress '%s' first", path);
            return EXIT_OK;
        }
    }
    if (forced)
        return cli_usage_error("%s takes csv, tsv, json, jsonl or parquet, not '%s'", opt, forced);
    return cli_usage_error("cannot tell the format of '%s' from its name: give %s "
                           "csv|tsv|json|jsonl|parquet",
                           path, opt);
}

int text_split_names(char *list, const char *opt, const char **names, size_t max, size_t *n)
{
    *n = 0;
    for (char *name = list, *end; name; name = end) {
        end = strchr(name, ',');
        if (end)
            *end++ = '\0';
        if (!*name)
            return cli_usage_error("%s takes names separated by commas, without empty ones", opt);
        if (*n == max)
            return cli_usage_error("%s takes at most %zu names", opt, max);
        names[(*n)++] = name;
    }
    return EXIT_OK;
}

/* --delimiter: one ASCII character, or a tab written "tab" or "\t". */
static int parse_delimiter(const char *v, int *out)
{
    if (strcmp(v, "tab") == 0 || strcmp(v, "\\t") == 0)
        *out = '\t';
    else if (strlen(v) == 1 && csv_delimiter_valid((unsigned char)v[0]))
        *out = (unsigned char)v[0];
    else
        return cli_usage_error("--delimiter takes one ASCII character other than a quote or a "
                               "line end (or tab, \\t), not '%s'",
                               v);
    return EXIT_OK;
}

static int parse_columns(const char *v, struct arena *ar, struct text_options *o)
{
    char *list = arena_strdup(ar, v);
    size_t max = strlen(v) / 2 + 1; /* names are at least one byte, commas between */
    o->columns = arena_calloc(ar, max, sizeof *o->columns);
    if (!list || !o->columns)
        return cli_usage_error("out of memory");
    return text_split_names(list, "--columns", o->columns, max, &o->ncolumns);
}

/* --timestamp-format, each compiled once. */
static int parse_time_formats(const struct cli_args *a, struct arena *ar, struct text_options *o)
{
    const char *values[CLI_MAX_VALUES];
    int n = cli_opt_values(a, "timestamp-format", values, CLI_MAX_VALUES);
    if (n == 0)
        return EXIT_OK;
    struct textio_timefmt *fmts = arena_calloc(ar, (size_t)n, sizeof *fmts);
    if (!fmts)
        return cli_usage_error("out of memory");
    struct error err;
    for (int i = 0; i < n; i++)
        if (textio_timefmt_compile(values[i], &fmts[i], &err) != 0)
            return cli_usage_error("--timestamp-format %s", err.msg);
    o->time_fmts = fmts;
    o->ntime_fmts = (size_t)n;
    return EXIT_OK;
}

/* --timezone and --input-compression. */
static int parse_zone_and_compression(const struct cli_args *a, struct arena *ar,
                                      struct text_options *o)
{
    const char *zone = cli_opt_value(a, "timezone");
    struct error err;
    if (zone && textio_tz_open(zone, ar, &o->tz, &err) != 0) {
        if (err.code == ERR_NOT_FOUND || err.code == ERR_INVALID)
            return cli_usage_error("--timezone: %s", err.msg);
        fprintf(stderr, "hoglake: --timezone: %s\n", err.msg);
        return EXIT_FAILURE_OTHER;
    }
    const char *c = cli_opt_value(a, "input-compression");
    if (!c)
        return EXIT_OK;
    o->compression_given = true;
    if (strcmp(c, "gzip") == 0)
        o->compression = TEXTIO_GZIP;
    else if (strcmp(c, "zstd") == 0)
        o->compression = TEXTIO_ZSTD;
    else if (strcmp(c, "none") == 0)
        o->compression = TEXTIO_PLAIN;
    else
        return cli_usage_error("--input-compression takes gzip, zstd or none, not '%s'", c);
    return EXIT_OK;
}

int text_options_parse(const struct cli_args *a, bool rename, struct arena *ar,
                       struct text_options *o)
{
    memset(o, 0, sizeof *o);
    int rc = parse_time_formats(a, ar, o);
    if (rc == EXIT_OK)
        rc = parse_zone_and_compression(a, ar, o);
    if (rc != EXIT_OK)
        return rc;
    const char *d = cli_opt_value(a, "delimiter");
    if (d && parse_delimiter(d, &o->delimiter) != EXIT_OK)
        return EXIT_USAGE;
    o->null_marker = cli_opt_value(a, "null");
    o->no_header = cli_opt_given(a, "no-header");
    const char *cols = cli_opt_value(a, "columns");
    if (cols && !o->no_header)
        return cli_usage_error("--columns names the fields of a file without a header: give "
                               "--no-header too");
    if (cols && parse_columns(cols, ar, o) != EXIT_OK)
        return EXIT_USAGE;
    const char *maps[CLI_MAX_VALUES], *renames[CLI_MAX_VALUES];
    struct name_map_option opts[2] = {
        {"--map", false, maps, (size_t)cli_opt_values(a, "map", maps, CLI_MAX_VALUES)},
        {"--rename", true, renames,
         rename ? (size_t)cli_opt_values(a, "rename", renames, CLI_MAX_VALUES) : 0}};
    if (o->no_header && (opts[0].nvalues || opts[1].nvalues))
        return cli_usage_error("--no-header: the file has no names to map; give the columns in "
                               "the file's order with --columns");
    return name_map_parse(opts, 2, ar, &o->map);
}

static bool required(const struct lake_column *c)
{
    return !c->nullable;
}

int text_options_check(const struct text_options *o, const struct lake_table *t, const char *what)
{
    for (size_t i = 0; i < o->ncolumns; i++) {
        size_t k = 0;
        while (k < t->root.nchildren && strcmp(t->root.children[k]->name, o->columns[i]) != 0)
            k++;
        if (k == t->root.nchildren)
            return cli_usage_error("--columns: %s has no column '%s'", what, o->columns[i]);
        for (size_t j = 0; j < i; j++)
            if (strcmp(o->columns[j], o->columns[i]) == 0)
                return cli_usage_error("--columns names '%s' twice", o->columns[i]);
    }
    for (size_t k = 0; o->columns && k < t->root.nchildren; k++) {
        const struct lake_column *c = t->root.children[k];
        size_t i = 0;
        while (i < o->ncolumns && strcmp(o->columns[i], c->name) != 0)
            i++;
        if (i == o->ncolumns && required(c))
            return cli_usage_error("--columns lacks column '%s', which is required", c->name);
    }
    return name_map_check_targets(&o->map, t, what);
}

int text_open(const char *path, const struct text_options *o, struct text_in *in)
{
    memset(in, 0, sizeof *in);
    enum textio_compression c;
    compression_suffix(path, &c);
    if (o->compression_given)
        c = o->compression;
    in->raw = text_is_stdin(path) ? stdin : fopen(path, "rb");
    if (!in->raw) {
        fprintf(stderr, "hoglake: %s: %s\n", path, strerror(errno));
        return EXIT_FAILURE_OTHER;
    }
    in->f = c == TEXTIO_PLAIN ? in->raw : textio_decompress_open(in->raw, c, &in->read_error);
    if (!in->f) {
        fprintf(stderr, "hoglake: out of memory\n");
        text_close(in);
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}

void text_close(struct text_in *in)
{
    if (in->f && in->f != in->raw)
        fclose(in->f);
    if (in->raw && in->raw != stdin)
        fclose(in->raw);
    memset(in, 0, sizeof *in);
}

uint64_t text_in_position(const struct text_in *in)
{
    long pos = in->raw ? ftell(in->raw) : -1;
    return pos > 0 ? (uint64_t)pos : 0;
}

void text_csv_init(struct csv_reader *r, const struct text_in *in)
{
    csv_reader_init(r, in->f);
    r->src.read_error = in->read_error;
}

void text_json_init(struct jsonrows *r, const struct text_in *in, enum text_format fmt)
{
    jsonrows_init(r, in->f);
    r->lines_only = fmt == TEXT_JSONL;
    r->src.read_error = in->read_error;
}

/* Binds a header record's names, mapped, to t's columns. */
static int bind_header(struct text_options *o, const struct csv_reader *r, struct textio_parser *p,
                       const struct lake_table *t, int checks, const char *what,
                       const char *in_path, struct arena *ar)
{
    const char **in = arena_calloc(ar, r->nfields ? r->nfields : 1, sizeof *in);
    const char **names = NULL;
    if (!in) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    for (size_t i = 0; i < r->nfields; i++) {
        size_t len;
        in[i] = csv_field_text(r, i, &len, NULL);
        if (strlen(in[i]) != len) {
            fprintf(stderr, "hoglake: %s line %lld: header field %zu holds a NUL byte\n", in_path,
                    (long long)r->record_line, i + 1);
            return EXIT_FAILURE_OTHER;
        }
    }
    int rc = name_map_header(&o->map, in, r->nfields, checks, in_path, ar, &names);
    if (rc == EXIT_OK)
        rc = name_map_check_known(in, names, r->nfields, t, what, in_path);
    if (rc != EXIT_OK)
        return rc;
    struct error err;
    if (textio_parser_csv_names(p, names, r->nfields, &err) != 0) {
        fprintf(stderr, "hoglake: %s line %lld: %s\n", in_path, (long long)r->record_line, err.msg);
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}

/* Binds the fields of a header-less file by position: --columns, else
 * t's columns in order. `got` says whether a first record was read. */
static int bind_positions(const struct text_options *o, const struct csv_reader *r, int got,
                          struct textio_parser *p, const struct lake_table *t, const char *what,
                          const char *in_path, struct arena *ar)
{
    size_t n = o->columns ? o->ncolumns : t->root.nchildren;
    const char **names = o->columns;
    if (!names) {
        names = arena_calloc(ar, n ? n : 1, sizeof *names);
        if (!names) {
            fprintf(stderr, "hoglake: out of memory\n");
            return EXIT_FAILURE_OTHER;
        }
        for (size_t k = 0; k < n; k++)
            names[k] = t->root.children[k]->name;
    }
    if (got && r->nfields != n && o->columns) {
        fprintf(stderr, "hoglake: %s line %lld: %zu fields, but --columns names %zu\n", in_path,
                (long long)r->record_line, r->nfields, n);
        return EXIT_FAILURE_OTHER;
    }
    if (got && r->nfields != n) {
        fprintf(stderr,
                "hoglake: %s line %lld: %zu fields, but %s has %zu columns (--columns names "
                "the file's)\n",
                in_path, (long long)r->record_line, r->nfields, what, n);
        return EXIT_FAILURE_OTHER;
    }
    struct error err;
    if (textio_parser_csv_names(p, names, n, &err) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", in_path, err.msg);
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}

int text_csv_begin(struct text_options *o, bool tab, struct csv_reader *r, struct textio_parser *p,
                   const struct lake_table *t, int checks, const char *what, const char *in_path,
                   struct arena *ar, bool *first_is_row)
{
    *first_is_row = false;
    r->delim = (char)(o->delimiter ? o->delimiter : tab ? '\t' : ',');
    textio_parser_csv_null(p, o->null_marker);
    textio_parser_times(p, o->time_fmts, o->ntime_fmts, o->tz);
    int got = csv_read_record(r);
    if (got < 0) {
        fprintf(stderr, "hoglake: %s %s\n", in_path, r->err);
        return EXIT_FAILURE_OTHER;
    }
    if (o->no_header) {
        *first_is_row = got > 0;
        return bind_positions(o, r, got, p, t, what, in_path, ar);
    }
    if (got == 0) {
        fprintf(stderr,
                "hoglake: %s: empty input (CSV needs a header row): --no-header reads a file "
                "without one\n",
                in_path);
        return EXIT_FAILURE_OTHER;
    }
    return bind_header(o, r, p, t, checks, what, in_path, ar);
}

int text_json_begin(const struct text_options *o, struct textio_parser *p,
                    const struct lake_table *t, struct arena *ar)
{
    const char *const *names = NULL;
    if (o->map.n && name_map_columns_sources(&o->map, t, ar, &names) != 0) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    textio_parser_json_names(p, names);
    textio_parser_json_sanitized(p, true);
    textio_parser_times(p, o->time_fmts, o->ntime_fmts, o->tz);
    return EXIT_OK;
}
