/* Our reader's view of a Parquet file's page index, for pageindex.mjs to
 * compare with hyparquet's and with DuckDB's rows.
 *
 *   pageindex_dump FILE
 *     one JSON object: {"row_groups":[{"num_rows":N,"columns":[{"path":P,
 *     "type":T,"offsets":null | [[offset, size, first_row], ...],
 *     "bounds":null | {"null_pages":[...],"min":[hex...],"max":[hex...],
 *     "order":"ASCENDING"|"DESCENDING"|"UNORDERED","null_counts":[...]|null}}]}]}
 *     as pq_reader_page_index hands it out (64-bit numbers as strings).
 *   pageindex_dump FILE G B-E[,B-E...] COL[,COL...]
 *     rows [B, E) of row group G, of the named top-level columns (integers,
 *     strings or booleans), read with pq_reader_read_row_ranges: a line per
 *     row, values tab-separated as DuckDB casts them to VARCHAR (NULL as
 *     \N); then a line "#stats READ SKIPPED WHOLE". */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/reader.h"
#include "util/arena.h"
#include "util/arrow.h"
#include "util/strutil.h"

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "pageindex_dump: %s: %s\n", what, detail);
    exit(1);
}

static json_t *i64_text(int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRId64, v);
    return json_string(b);
}

static json_t *hex(const uint8_t *p, size_t n)
{
    char *s = malloc(2 * n + 1);
    if (!s)
        die("out of memory", "");
    str_hex_encode(p, n, s);
    json_t *j = json_string(s);
    free(s);
    return j;
}

static const char *order_name(enum pq_boundary_order o)
{
    return o == PQ_ASCENDING ? "ASCENDING" : o == PQ_DESCENDING ? "DESCENDING" : "UNORDERED";
}

static json_t *bounds_json(const struct pq_column_index *ci)
{
    json_t *nulls = json_array(), *min = json_array(), *max = json_array();
    json_t *counts = ci->null_counts ? json_array() : json_null();
    for (size_t p = 0; p < ci->npages; p++) {
        json_array_append_new(nulls, json_boolean(ci->null_pages[p]));
        json_array_append_new(min, hex(ci->min_values[p], ci->min_lens[p]));
        json_array_append_new(max, hex(ci->max_values[p], ci->max_lens[p]));
        if (ci->null_counts)
            json_array_append_new(counts, i64_text(ci->null_counts[p]));
    }
    return json_pack("{s:o,s:o,s:o,s:s,s:o}", "null_pages", nulls, "min", min, "max", max, "order",
                     order_name(ci->boundary_order), "null_counts", counts);
}

static void dump_index(struct pq_reader *r)
{
    const struct pq_file_meta *m = pq_reader_meta(r);
    const struct pq_schema *s = pq_reader_schema(r);
    json_t *groups = json_array();
    struct arena a;
    arena_init(&a, 0);
    for (size_t g = 0; g < m->nrow_groups; g++) {
        json_t *cols = json_array();
        for (int l = 0; l < s->nleaves; l++) {
            struct pq_page_index pi;
            struct error err = {0};
            if (pq_reader_page_index(r, g, l, &a, &pi, &err) != 0)
                die("page index", err.msg);
            json_t *offsets = json_null();
            if (pi.has_offsets) {
                offsets = json_array();
                for (size_t p = 0; p < pi.offsets.npages; p++) {
                    const struct pq_page_location *pl = &pi.offsets.pages[p];
                    json_array_append_new(offsets, json_pack("[o,i,o]", i64_text(pl->offset),
                                                             (json_int_t)pl->compressed_page_size,
                                                             i64_text(pl->first_row_index)));
                }
            }
            json_array_append_new(
                cols, json_pack("{s:s,s:s,s:o,s:o}", "path", s->leaves[l]->path, "type",
                                pq_type_name(s->leaves[l]->el->type), "offsets", offsets, "bounds",
                                pi.has_bounds ? bounds_json(&pi.bounds) : json_null()));
        }
        json_array_append_new(groups,
                              json_pack("{s:o,s:o}", "num_rows",
                                        i64_text(m->row_groups[g].num_rows), "columns", cols));
    }
    arena_free(&a);
    json_t *out = json_pack("{s:o}", "row_groups", groups);
    json_dumpf(out, stdout, JSON_COMPACT);
    putchar('\n');
    json_decref(out);
}

static void print_value(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i)
{
    const uint8_t *valid = a->buffers[0];
    if (valid && !arrow_bit(valid, i)) {
        fputs("\\N", stdout);
        return;
    }
    const char *f = s->format;
    if (!strcmp(f, "l"))
        printf("%" PRId64, ((const int64_t *)a->buffers[1])[i]);
    else if (!strcmp(f, "i"))
        printf("%" PRId32, ((const int32_t *)a->buffers[1])[i]);
    else if (!strcmp(f, "b"))
        fputs(arrow_bit(a->buffers[1], i) ? "true" : "false", stdout);
    else if (!strcmp(f, "u")) {
        const int32_t *off = a->buffers[1];
        fwrite((const char *)a->buffers[2] + off[i], 1, (size_t)(off[i + 1] - off[i]), stdout);
    } else
        die("a column of a format this dump does not print", f);
}

/* "B-E,B-E" into ranges; returns how many. */
static size_t parse_ranges(const char *text, struct pq_row_range *out, size_t max)
{
    size_t n = 0;
    for (const char *p = text; *p && n < max;) {
        char *end;
        long long b = strtoll(p, &end, 10);
        if (*end != '-')
            die("bad range list", text);
        long long e = strtoll(end + 1, &end, 10);
        out[n++] = (struct pq_row_range){b, e};
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

static void dump_rows(struct pq_reader *r, size_t g, const char *ranges_text, char *columns)
{
    const char *names[64];
    size_t ncols = 0;
    for (char *c = strtok(columns, ","); c && ncols < 64; c = strtok(NULL, ","))
        names[ncols++] = c;
    struct error err = {0};
    if (pq_reader_select_names(r, names, ncols, &err) != 0)
        die("columns", err.msg);
    struct pq_row_range ranges[4096];
    size_t n = parse_ranges(ranges_text, ranges, 4096);
    struct ArrowSchema s;
    struct ArrowArray a;
    struct pq_range_read_stats st;
    if (pq_reader_arrow_schema(r, &s, &err) != 0 ||
        pq_reader_read_row_ranges(r, g, ranges, n, &a, &st, &err) != 0)
        die("reading the ranges", err.msg);
    for (int64_t i = 0; i < a.length; i++) {
        for (int64_t c = 0; c < a.n_children; c++) {
            if (c)
                putchar('\t');
            print_value(s.children[c], a.children[c], i);
        }
        putchar('\n');
    }
    printf("#stats %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", st.pages_read, st.pages_skipped,
           st.chunks_read_whole);
    a.release(&a);
    s.release(&s);
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 5) {
        fprintf(stderr, "usage: pageindex_dump FILE [G B-E[,B-E...] COL[,COL...]]\n");
        return 2;
    }
    struct pq_source src;
    struct pq_reader *r;
    struct error err = {0};
    if (pq_source_file(&src, argv[1], &err) != 0 || pq_reader_open(&src, &r, &err) != 0)
        die(argv[1], err.msg);
    if (argc == 2)
        dump_index(r);
    else
        dump_rows(r, (size_t)strtoull(argv[2], NULL, 10), argv[3], argv[4]);
    pq_reader_free(r);
    pq_source_close(&src);
    return 0;
}
