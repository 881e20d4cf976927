/* Writes the fuzzer's seed corpus: every file shape in pq_shapes.c, and,
 * cut out of those files, the metadata structures the target also decodes
 * on their own (a page header of each kind, column and offset indexes,
 * footers). Each file is checked to read back before it is written.
 *
 *   fuzz_pq_seeds DIR */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "parquet/reader.h"
#include "pq_fuzzlib.h"
#include "pq_shapes.h"

static const char *dir;
static size_t written, max_size;

static void put(const char *name, const void *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "fuzz_pq_seeds: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    written++;
    if (len > max_size)
        max_size = len;
}

static void cut_structs(const char *shape, const struct buf *file)
{
    struct pq_source src;
    pq_source_memory(&src, file->data, file->len);
    struct arena a;
    arena_init(&a, 0);
    struct pq_file_meta m;
    uint32_t flen;
    struct error err;
    if (pq_read_footer(&src, &a, &m, &flen, &err) != 0) {
        fprintf(stderr, "fuzz_pq_seeds: %s: %s\n", shape, err.msg);
        exit(1);
    }
    const uint8_t *d = (const uint8_t *)file->data;
    char name[256];
    snprintf(name, sizeof name, "footer_%s", shape);
    put(name, d + file->len - 8 - flen, flen);
    bool seen_type[4] = {false};
    for (size_t g = 0; g < m.nrow_groups && g < 1; g++) {
        for (size_t c = 0; c < m.row_groups[g].ncolumns && c < 3; c++) {
            const struct pq_column_chunk *cc = &m.row_groups[g].columns[c];
            if (cc->has_column_index) {
                snprintf(name, sizeof name, "colidx_%s_%zu", shape, c);
                put(name, d + cc->column_index_offset, (size_t)cc->column_index_length);
            }
            if (cc->has_offset_index) {
                snprintf(name, sizeof name, "offidx_%s_%zu", shape, c);
                put(name, d + cc->offset_index_offset, (size_t)cc->offset_index_length);
            }
        }
        for (size_t c = 0; c < m.row_groups[g].ncolumns; c++) {
            const struct pq_column_meta *cm = &m.row_groups[g].columns[c].meta;
            int64_t at =
                cm->has_dictionary_page_offset ? cm->dictionary_page_offset : cm->data_page_offset;
            struct pq_page_header h;
            size_t hl;
            if (pq_decode_page_header(d + at, file->len - (size_t)at, &a, &h, &hl, &err) != 0 ||
                (unsigned)h.type > 3 || seen_type[h.type])
                continue;
            seen_type[h.type] = true;
            snprintf(name, sizeof name, "pagehdr_%s_%d", shape, (int)h.type);
            put(name, d + at, hl);
        }
    }
    arena_free(&a);
}

static int run(void)
{
    for (size_t i = 0; i < pq_shape_count(); i++) {
        struct buf file = BUF_INIT;
        pq_shape_build(i, &file);
        struct error err;
        struct pq_exercise_result res =
            pq_exercise_file((const uint8_t *)file.data, file.len, 0, PQ_EXERCISE_ALL, &err);
        if (res.code != ERR_OK) {
            fprintf(stderr, "fuzz_pq_seeds: shape %s does not read back: %s\n", pq_shape_name(i),
                    err.msg);
            return 1;
        }
        char name[256];
        snprintf(name, sizeof name, "file_%s.parquet", pq_shape_name(i));
        put(name, file.data, file.len);
        cut_structs(pq_shape_name(i), &file);
        buf_free(&file);
    }
    printf("fuzz_pq_seeds: %zu seeds in %s, the largest %zu bytes\n", written, dir, max_size);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "fuzz_pq_seeds: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    return run();
}
