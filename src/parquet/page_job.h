/* One page's encoding and compression, apart from the writer's state: a
 * job owns the page's raw levels and values and receives the sealed page
 * (its header and compressed body), so it can run on any thread. The
 * output depends only on the job's inputs, never on which thread or
 * codec context ran it.
 *
 * A job's buffers outlive its page: the writer swaps them with a column's
 * open-page buffers and reuses the job for later pages. */
#ifndef HL_PARQUET_PAGE_JOB_H
#define HL_PARQUET_PAGE_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "parquet/compress.h"
#include "parquet/pq.h"
#include "util/buf.h"

/* Room kept in front of a data page's PLAIN values for its levels, which
 * then need no copy to sit before the values. */
enum { PQ_PAGE_HEADROOM = 32 * 1024 };

/* A data page's levels and values as the shredder leaves them: nlev
 * levels (def and rep, each kept only when its maximum is above 0), nidx
 * dictionary indices, and values in plain after PQ_PAGE_HEADROOM bytes
 * (plain is empty when no value went there). */
struct pq_page_bufs {
    uint16_t *def, *rep;
    size_t defcap, repcap, nlev;
    uint32_t *idx;
    size_t idxcap, nidx;
    struct buf plain;
};

struct pq_page_job {
    /* In. A data page (data page v1): its levels, then the values by
     * `encoding`: RLE_DICTIONARY takes the indices at dict_bit_width;
     * RLE takes booleans, one byte each, from plain; DELTA_BINARY_PACKED
     * int64s from plain; PLAIN plain's bytes as they are. A dictionary
     * page: its whole body in in.plain, from offset 0. */
    enum pq_page_type type;
    enum pq_encoding encoding;
    int32_t num_values; /* the header's: levels, or dictionary entries */
    int16_t max_def, max_rep;
    int dict_bit_width;
    struct pq_page_bufs in;
    enum pq_codec codec;
    int level;
    int owner; /* the writer's tag: which column the page belongs to */

    /* Out. */
    struct buf header, comp;
    int32_t uncompressed_size;
    int rc; /* 0, or -1 with err filled */
    struct error err;
};

/* What encoding a page needs besides its job: one per thread. */
struct pq_page_scratch {
    struct pq_codec_ctx *codec;
    struct buf body;
    uint16_t *bools; /* a boolean page's values, widened for the RLE encoder */
    size_t bools_cap;
};

int pq_page_scratch_init(struct pq_page_scratch *s);
void pq_page_scratch_free(struct pq_page_scratch *s);

/* Encodes and compresses the page into header and comp; sets rc (and err). */
void pq_page_job_run(struct pq_page_job *j, struct pq_page_scratch *s);

/* The bytes of raw input the job holds (levels, indices, values). */
size_t pq_page_job_input_bytes(const struct pq_page_job *j);

void pq_page_bufs_free(struct pq_page_bufs *b);

void pq_page_job_free(struct pq_page_job *j);

#endif
