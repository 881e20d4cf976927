/* See pq_fuzzlib.h. */
#include "pq_fuzzlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/meta.h"
#include "parquet/reader.h"
#include "util/arena.h"
#include "util/arrow.h"

/* ---- checking the reader's Arrow output ---- */

static void bad_array(const char *path, const char *why)
{
    fprintf(stderr, "pq_fuzzlib: the reader produced an inconsistent array at '%s': %s\n", path,
            why);
    abort();
}

/* Folds every byte into a sink the compiler cannot drop, so that ASan sees
 * each byte the array claims to own being read. */
static volatile uint8_t sink;

static void touch(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint8_t x = 0;
    for (size_t i = 0; i < n; i++)
        x ^= b[i];
    sink ^= x;
}

/* Width in bytes of a fixed-width format, 0 for booleans, -1 otherwise. */
static int fixed_width(const char *f)
{
    if (!strcmp(f, "c") || !strcmp(f, "C"))
        return 1;
    if (!strcmp(f, "s") || !strcmp(f, "S") || !strcmp(f, "e"))
        return 2;
    if (!strcmp(f, "i") || !strcmp(f, "I") || !strcmp(f, "f") || !strcmp(f, "tdD") ||
        !strcmp(f, "ttm"))
        return 4;
    if (!strcmp(f, "l") || !strcmp(f, "L") || !strcmp(f, "g") || !strcmp(f, "ttu") ||
        !strcmp(f, "ttn") || !strncmp(f, "ts", 2))
        return 8;
    if (!strncmp(f, "d:", 2) || !strcmp(f, "tin"))
        return 16;
    if (!strncmp(f, "w:", 2)) {
        long w = strtol(f + 2, NULL, 10);
        return w > 0 && w <= INT32_MAX ? (int)w : -1;
    }
    if (!strcmp(f, "b"))
        return 0;
    return -1;
}

static void check_array(const struct ArrowSchema *s, const struct ArrowArray *a, const char *path);

static void check_offsets(const struct ArrowArray *a, const char *path, const int32_t **out)
{
    const int32_t *off = a->buffers[1];
    if (!off)
        bad_array(path, "no offsets buffer");
    touch(off, ((size_t)a->length + 1) * sizeof *off);
    if (off[0] < 0)
        bad_array(path, "a negative first offset");
    for (int64_t i = 0; i < a->length; i++)
        if (off[i + 1] < off[i])
            bad_array(path, "decreasing offsets");
    *out = off;
}

static void check_array(const struct ArrowSchema *s, const struct ArrowArray *a, const char *path)
{
    if (!a->release)
        bad_array(path, "a released child");
    if (a->length < 0 || a->offset != 0 || a->null_count < 0 || a->null_count > a->length)
        bad_array(path, "length, offset or null count out of range");
    if (a->n_children != s->n_children)
        bad_array(path, "children differ from the schema's");
    if (strcmp(s->format, "n") == 0) {
        /* Arrow's null type: no buffers, every slot null. */
        if (a->n_buffers != 0 || a->null_count != a->length)
            bad_array(path, "a null array with buffers or valid slots");
        return;
    }
    if (a->n_buffers < 1 || !a->buffers)
        bad_array(path, "no buffers");
    const uint8_t *valid = a->buffers[0];
    if (valid) {
        int64_t nulls = 0;
        for (int64_t i = 0; i < a->length; i++)
            nulls += !arrow_bit(valid, i);
        if (nulls != a->null_count)
            bad_array(path, "null count differs from the validity bitmap");
        if (!(s->flags & ARROW_FLAG_NULLABLE) && nulls)
            bad_array(path, "nulls in a non-nullable field");
    } else if (a->null_count != 0) {
        bad_array(path, "nulls without a validity bitmap");
    }
    const char *f = s->format;
    size_t n = (size_t)a->length;
    if (!strcmp(f, "+s")) {
        if (a->n_buffers != 1)
            bad_array(path, "a struct with other than one buffer");
        for (int64_t i = 0; i < a->n_children; i++) {
            if (a->children[i]->length < a->length)
                bad_array(path, "a struct child shorter than its parent");
            check_array(s->children[i], a->children[i], s->children[i]->name);
        }
        return;
    }
    if (!strcmp(f, "+l") || !strcmp(f, "+m")) {
        if (a->n_buffers != 2 || a->n_children != 1)
            bad_array(path, "a list without offsets and one child");
        const int32_t *off;
        check_offsets(a, path, &off);
        if (off[n] > a->children[0]->length)
            bad_array(path, "list offsets past the child");
        if (!strcmp(f, "+m") &&
            (strcmp(s->children[0]->format, "+s") != 0 || s->children[0]->n_children != 2))
            bad_array(path, "a map whose entries are not a key/value struct");
        check_array(s->children[0], a->children[0], s->children[0]->name);
        return;
    }
    if (!strcmp(f, "u") || !strcmp(f, "z")) {
        if (a->n_buffers != 3 || !a->buffers[2])
            bad_array(path, "a byte array without three buffers");
        const int32_t *off;
        check_offsets(a, path, &off);
        touch((const uint8_t *)a->buffers[2] + off[0], (size_t)(off[n] - off[0]));
        return;
    }
    int w = fixed_width(f);
    if (w < 0)
        bad_array(path, "an unexpected format");
    if (a->n_buffers != 2 || !a->buffers[1])
        bad_array(path, "a fixed-width array without a values buffer");
    touch(a->buffers[1], w ? n * (size_t)w : (n + 7) / 8);
    if (valid)
        touch(valid, (n + 7) / 8);
}

/* ---- the page index and page headers the footer points at ---- */

static bool in_file(int64_t off, int64_t len, size_t size)
{
    return off >= 0 && len > 0 && (uint64_t)off <= size && (uint64_t)len <= size - (uint64_t)off;
}

static void decode_pointed_structs(const struct pq_file_meta *m, const uint8_t *data, size_t len)
{
    struct arena a;
    arena_init(&a, 64 << 20);
    struct error err;
    for (size_t g = 0; g < m->nrow_groups; g++) {
        const struct pq_row_group *rg = &m->row_groups[g];
        for (size_t c = 0; c < rg->ncolumns; c++) {
            const struct pq_column_chunk *cc = &rg->columns[c];
            if (cc->has_column_index &&
                in_file(cc->column_index_offset, cc->column_index_length, len)) {
                struct pq_column_index ci;
                pq_decode_column_index(data + cc->column_index_offset,
                                       (size_t)cc->column_index_length, &a, &ci, &err);
            }
            if (cc->has_offset_index &&
                in_file(cc->offset_index_offset, cc->offset_index_length, len)) {
                struct pq_offset_index oi;
                if (pq_decode_offset_index(data + cc->offset_index_offset,
                                           (size_t)cc->offset_index_length, &a, &oi, &err) == 0) {
                    /* Each page the offset index names starts with a header. */
                    for (size_t p = 0; p < oi.npages && p < 64; p++) {
                        const struct pq_page_location *pl = &oi.pages[p];
                        if (!in_file(pl->offset, pl->compressed_page_size, len))
                            continue;
                        struct pq_page_header h;
                        size_t hl;
                        pq_decode_page_header(data + pl->offset, (size_t)pl->compressed_page_size,
                                              &a, &h, &hl, &err);
                    }
                }
            }
            if (cc->has_meta && in_file(cc->meta.data_page_offset, 1, len)) {
                struct pq_page_header h;
                size_t hl;
                pq_decode_page_header(data + cc->meta.data_page_offset,
                                      len - (size_t)cc->meta.data_page_offset, &a, &h, &hl, &err);
            }
        }
    }
    arena_free(&a);
}

/* ---- the page index through the reader, and reads of row ranges ---- */

static void touch_page_index(const struct pq_page_index *pi)
{
    if (pi->has_offsets)
        touch(pi->offsets.pages, pi->offsets.npages * sizeof *pi->offsets.pages);
    if (!pi->has_bounds)
        return;
    const struct pq_column_index *ci = &pi->bounds;
    for (size_t p = 0; p < ci->npages; p++) {
        touch(&ci->null_pages[p], sizeof ci->null_pages[p]);
        touch(ci->min_values[p], ci->min_lens[p]);
        touch(ci->max_values[p], ci->max_lens[p]);
        if (ci->null_counts)
            touch(&ci->null_counts[p], sizeof ci->null_counts[p]);
    }
}

/* The rows of the first and the last page of chosen (pages between them
 * skipped; or, without an indexed chunk, the middle row), read and checked
 * against the schema and their count. Two pages keep the cost of a
 * mutant low while reaching every path: the pages before the first listed
 * one, runs, skips. */
static void read_some_ranges(struct pq_reader *r, size_t g, const struct pq_page_index *chosen,
                             int64_t rows, const struct ArrowSchema *schema,
                             struct pq_exercise_result *res)
{
    size_t np = chosen ? chosen->offsets.npages : 0;
    bool *keep = calloc(np ? np : 1, sizeof *keep);
    struct pq_row_range *ranges = calloc(np ? np : 1, sizeof *ranges);
    size_t n = 0;
    if (keep && ranges) {
        if (np) {
            keep[0] = true;
            keep[np - 1] = true;
        }
        if (chosen)
            n = pq_page_index_ranges(chosen, keep, ranges);
        else if (rows > 0)
            ranges[n++] = (struct pq_row_range){rows / 2, rows / 2 + 1};
        int64_t want = 0;
        for (size_t i = 0; i < n; i++)
            want += ranges[i].end - ranges[i].begin;
        struct ArrowArray out;
        struct error err;
        if (pq_reader_read_row_ranges(r, g, ranges, n, &out, NULL, &err) == 0) {
            if (out.length != want)
                bad_array("(row ranges)", "a row count other than the ranges'");
            check_array(schema, &out, "(row ranges)");
            out.release(&out);
            res->range_reads++;
        } else if (out.release) {
            bad_array("(row ranges)", "an error left an unreleased array");
        }
    }
    free(keep);
    free(ranges);
}

static void exercise_page_index(struct pq_reader *r, struct pq_exercise_result *res)
{
    const struct pq_file_meta *m = pq_reader_meta(r);
    int nleaves = pq_reader_schema(r)->nleaves;
    struct ArrowSchema schema;
    struct error err;
    if (pq_reader_arrow_schema(r, &schema, &err) != 0)
        return;
    for (size_t g = 0; g < m->nrow_groups && g < 64; g++) {
        struct arena a;
        arena_init(&a, 64 << 20);
        struct pq_page_index pi, chosen;
        bool have = false;
        for (int l = 0; l < nleaves && l < 64; l++) {
            if (pq_reader_page_index(r, g, l, &a, &pi, &err) != 0)
                continue;
            res->indexes_read++;
            touch_page_index(&pi);
            if (!have && pi.has_offsets) {
                chosen = pi;
                have = true;
            }
        }
        read_some_ranges(r, g, have ? &chosen : NULL, m->row_groups[g].num_rows, &schema, res);
        arena_free(&a);
    }
    schema.release(&schema);
}

/* ---- reading a whole file ---- */

static void note(struct pq_exercise_result *res, const struct error *err)
{
    if (res->code == ERR_OK)
        res->code = err->code != ERR_OK ? err->code : ERR_CORRUPT;
}

static void read_groups(struct pq_reader *r, struct pq_exercise_result *res, bool count,
                        struct error *err)
{
    struct ArrowSchema schema;
    if (pq_reader_arrow_schema(r, &schema, err) != 0) {
        note(res, err);
        return;
    }
    const struct pq_file_meta *m = pq_reader_meta(r);
    for (size_t g = 0; g < m->nrow_groups; g++) {
        struct ArrowArray out;
        if (pq_reader_read_row_group(r, g, &out, err) != 0) {
            if (out.release)
                bad_array("(row group)", "an error left an unreleased array");
            note(res, err);
            continue;
        }
        if (out.length != m->row_groups[g].num_rows)
            bad_array("(row group)", "a row count other than the footer's");
        check_array(&schema, &out, "(row group)");
        if (count) {
            res->groups_read++;
            res->rows_read += out.length;
        }
        out.release(&out);
    }
    schema.release(&schema);
}

struct pq_exercise_result pq_exercise_file(const uint8_t *data, size_t len,
                                           const struct pq_read_limits *limits, int flags,
                                           struct error *err)
{
    struct pq_exercise_result res = {ERR_OK, 0, 0, 0, 0};
    memset(err, 0, sizeof *err);
    struct pq_source src;
    pq_source_memory(&src, data, len);
    struct pq_reader *r;
    if (pq_reader_open(&src, &r, err) != 0) {
        if (r)
            bad_array("(open)", "a failed open returned a reader");
        note(&res, err);
        return res;
    }
    if (limits)
        pq_reader_set_limits(r, limits);
    read_groups(r, &res, true, err);

    /* Again, selected by name in reverse order (each name once). */
    const struct pq_schema *s = pq_reader_schema(r);
    int nc = s->root->nchildren;
    if ((flags & PQ_EXERCISE_RESELECT) && nc > 1) {
        const char **names = calloc((size_t)nc, sizeof *names);
        if (names) {
            size_t k = 0;
            for (int i = nc - 1; i >= 0; i--) {
                const char *name = s->root->children[i]->el->name;
                bool dup = false;
                for (size_t j = 0; j < k; j++)
                    dup = dup || strcmp(names[j], name) == 0;
                if (!dup)
                    names[k++] = name;
            }
            struct error e2;
            if (pq_reader_select_names(r, names, k, &e2) == 0)
                read_groups(r, &res, false, &e2);
            free(names);
        }
    }
    if (flags & PQ_EXERCISE_POINTED)
        decode_pointed_structs(pq_reader_meta(r), data, len);
    if (flags & PQ_EXERCISE_PAGE_INDEX)
        exercise_page_index(r, &res);
    pq_reader_free(r);
    if (res.code != ERR_OK && err->code == ERR_OK)
        err->code = res.code;
    return res;
}

void pq_exercise_structs(const uint8_t *data, size_t len)
{
    struct arena a;
    arena_init(&a, 64 << 20);
    struct error err;
    struct pq_page_header h;
    size_t hl;
    if (pq_decode_page_header(data, len, &a, &h, &hl, &err) == 0 && hl > len)
        bad_array("(page header)", "a header longer than its input");
    pq_decode_page_header(data, len, NULL, &h, &hl, &err);
    struct pq_column_index ci;
    if (pq_decode_column_index(data, len, &a, &ci, &err) == 0)
        for (size_t i = 0; i < ci.npages; i++) {
            touch(ci.min_values[i], ci.min_lens[i]);
            touch(ci.max_values[i], ci.max_lens[i]);
            touch(&ci.null_pages[i], 1);
            if (ci.null_counts)
                touch(&ci.null_counts[i], sizeof *ci.null_counts);
        }
    struct pq_offset_index oi;
    if (pq_decode_offset_index(data, len, &a, &oi, &err) == 0)
        touch(oi.pages, oi.npages * sizeof *oi.pages);
    struct pq_file_meta m;
    pq_decode_file_meta(data, len, &a, &m, &err);
    uint32_t flen;
    pq_parse_footer_tail(data, len, &a, &m, &flen, &err);
    arena_free(&a);
}
