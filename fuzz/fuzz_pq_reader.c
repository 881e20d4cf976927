/* libFuzzer target for the Parquet reader: the input is a whole file held
 * in memory. It is opened, its schema built and every row group read (see
 * pq_fuzzlib.c), and the same bytes are also decoded as each metadata
 * structure on its own (page header, column index, offset index, footer).
 *
 * A custom mutator keeps a file's frame intact part of the time: byte
 * mutations that change the footer's size would otherwise break the footer
 * length and never get past it. So a third of mutations edit the footer
 * alone (and fix its length), a third edit the bytes before it, and the
 * rest are libFuzzer's own on the whole input.
 *
 * Built with -DHOGLAKE_FUZZ=ON and clang; run with scripts/fuzz.sh. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pq_fuzzlib.h"

/* The reader's limits are lowered so that a few bytes of RLE claiming two
 * billion levels, or a wide dictionary entry repeated a million times
 * (valid Parquet both), stay within the fuzzer's memory limit. */
static const struct pq_read_limits fuzz_limits = {.max_values = 1u << 20, .max_bytes = 64u << 20};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct error err;
    pq_exercise_file(data, size, &fuzz_limits, PQ_EXERCISE_ALL, &err);
    pq_exercise_structs(data, size);
    return 0;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint32_t flen = 0;
    bool framed = size >= 12 && memcmp(data + size - 4, "PAR1", 4) == 0;
    if (framed) {
        memcpy(&flen, data + size - 8, 4);
        framed = flen <= size - 12;
    }
    unsigned int how = seed % 3;
    if (!framed || how == 0)
        return LLVMFuzzerMutate(data, size, max_size);
    size_t fstart = size - 8 - flen;
    uint8_t *tail = malloc((size_t)flen + 8);
    if (!tail)
        return LLVMFuzzerMutate(data, size, max_size);
    memcpy(tail, data + fstart, (size_t)flen + 8);
    size_t out;
    if (how == 1) {
        /* The footer alone, within what max_size leaves. */
        size_t room = max_size - fstart - 8;
        size_t n = LLVMFuzzerMutate(data + fstart, flen, room);
        put_u32(data + fstart + n, (uint32_t)n);
        memcpy(data + fstart + n + 4, "PAR1", 4);
        out = fstart + n + 8;
    } else {
        /* The data before the footer; the footer follows it unchanged. */
        size_t n = LLVMFuzzerMutate(data, fstart, max_size - flen - 8);
        memcpy(data + n, tail, (size_t)flen + 8);
        out = n + flen + 8;
    }
    free(tail);
    return out;
}
