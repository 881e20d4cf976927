/* Valid Parquet files of several shapes, for the fuzzer's seed corpus and
 * the corruption test.
 *
 * Some come from the writer (flat and nested schemas, dictionary and
 * PLAIN, every codec, the page index on); the others are put together by
 * hand from the codec's encoders to cover what the writer never produces:
 * data pages v2 (compressed and not), the DELTA encodings,
 * BYTE_STREAM_SPLIT, RLE booleans, BIT_PACKED levels, INT96, decimals in
 * INT32/INT64/BYTE_ARRAY, two-level and bare repeated lists, a map without
 * values.
 *
 * Building uses cmocka assertions (tests/unit/pq_testlib.c): link cmocka. */
#ifndef HL_FUZZ_PQ_SHAPES_H
#define HL_FUZZ_PQ_SHAPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/meta.h"
#include "util/buf.h"

size_t pq_shape_count(void);
const char *pq_shape_name(size_t i);
/* Appends shape i to out (a whole file). */
void pq_shape_build(size_t i, struct buf *out);
/* The levels of the legacy shape's list columns (tests check values
 * against them): row r of a row group holds r % 4 entries (0: null when
 * nullable, else empty; 1: empty when nullable); max_def is the level of a
 * present entry. Returns the entry count. */
size_t pq_shape_list_levels(int rows, bool nullable, int16_t max_def, uint16_t *rep, uint16_t *def);

/* ---- putting files together by hand ----
 *
 * begin; then per row group: group, and per leaf in schema order: column,
 * its pages (dict, v1, v2 or raw page), column_end; finally finish, which
 * writes the footer (after `edit`, when given, has changed it) and the
 * tail. Pages are compressed with the file's codec. Levels are given as
 * arrays of n entries (NULL when the leaf's maximum level is 0). */
enum { CRAFT_MAX_COLUMNS = 16, CRAFT_MAX_GROUPS = 2, CRAFT_MAX_ENCODINGS = 8 };

struct pq_craft {
    struct buf *out;
    enum pq_codec codec;
    struct pq_codec_ctx *ctx;
    const struct pq_schema_element *el;
    size_t nel;
    struct pq_row_group groups[CRAFT_MAX_GROUPS];
    struct pq_column_chunk cols[CRAFT_MAX_GROUPS][CRAFT_MAX_COLUMNS];
    int32_t encodings[CRAFT_MAX_GROUPS][CRAFT_MAX_COLUMNS][CRAFT_MAX_ENCODINGS];
    size_t ngroups;
    /* the column being written */
    struct pq_column_chunk *cc;
    int16_t max_def, max_rep;
    size_t chunk_start;
    bool seen_data;
    int64_t total_uncompressed;
};

void pq_craft_begin(struct pq_craft *c, struct buf *out, enum pq_codec codec,
                    const struct pq_schema_element *el, size_t nel);
void pq_craft_group(struct pq_craft *c, int64_t rows);
void pq_craft_column(struct pq_craft *c, const char *const *path, size_t npath, enum pq_type type,
                     int16_t max_def, int16_t max_rep);
/* A PLAIN dictionary page of n entries. */
void pq_craft_dict(struct pq_craft *c, int32_t n, const struct buf *plain);
/* A data page v1: levels (RLE, or BIT_PACKED) then values, compressed. */
void pq_craft_v1(struct pq_craft *c, enum pq_encoding enc, size_t n, const uint16_t *rep,
                 const uint16_t *def, bool bitpacked, const struct buf *values);
/* A data page v2: uncompressed levels, then values, compressed when
 * `compressed`. */
void pq_craft_v2(struct pq_craft *c, enum pq_encoding enc, size_t n, int32_t rows,
                 const uint16_t *rep, const uint16_t *def, const struct buf *values,
                 bool compressed);
/* Any header followed by any body, as given. */
void pq_craft_page(struct pq_craft *c, const struct pq_page_header *h, const void *body, size_t n);
void pq_craft_column_end(struct pq_craft *c, int64_t num_values);
void pq_craft_finish(struct pq_craft *c, void (*edit)(struct pq_file_meta *m, void *arg),
                     void *arg);

/* Schema elements: a leaf, a group of n children, the root. */
struct pq_schema_element pq_el_leaf(const char *name, enum pq_repetition rep, enum pq_type type);
struct pq_schema_element pq_el_group(const char *name, enum pq_repetition rep, int32_t n);
struct pq_schema_element pq_el_root(int32_t n);

#endif
