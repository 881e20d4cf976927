/* What the Parquet fuzz target does with an input, shared with the
 * corruption test (tests/unit/test_pq_corrupt.c) so both hold the reader to
 * the same contract: any input gives an error code or Arrow arrays that are
 * internally consistent; never a crash, a sanitizer report or a leak.
 *
 * A consistency failure in the reader's output is a bug, not an input
 * error: it aborts (the fuzzer reports it as a crash). */
#ifndef HL_FUZZ_PQ_FUZZLIB_H
#define HL_FUZZ_PQ_FUZZLIB_H

#include <stddef.h>
#include <stdint.h>

#include "parquet/pq.h"
#include "parquet/reader.h"

struct pq_exercise_result {
    enum error_code code; /* ERR_OK, or the first error met */
    size_t groups_read;   /* row groups read without error */
    int64_t rows_read;
    /* PQ_EXERCISE_PAGE_INDEX: page indexes read and checked, and reads of
     * row ranges that succeeded (their errors are not the file's code: a
     * whole read does not use the index) */
    size_t indexes_read, range_reads;
};

enum {
    /* Read the columns again, selected by name in reverse order. */
    PQ_EXERCISE_RESELECT = 1,
    /* Decode every page header, column index and offset index the footer
     * points at. */
    PQ_EXERCISE_POINTED = 2,
    /* Read every chunk's page index through the reader, and each row
     * group's rows in the first and last pages of an indexed chunk (or
     * one row, without one), checking the arrays. */
    PQ_EXERCISE_PAGE_INDEX = 4,
    PQ_EXERCISE_ALL = 7,
};

/* Opens data as a Parquet file held in memory, builds its Arrow schema,
 * reads every row group of every column, checks every array it gets, and
 * does what flags add, within the reader's limits (NULL: its defaults).
 * The result's code is that of the first error; err holds its message. */
struct pq_exercise_result pq_exercise_file(const uint8_t *data, size_t len,
                                           const struct pq_read_limits *limits, int flags,
                                           struct error *err);

/* Decodes data as each metadata structure in turn: a page header, a
 * column index, an offset index, a FileMetaData and a footer tail. */
void pq_exercise_structs(const uint8_t *data, size_t len);

#endif
