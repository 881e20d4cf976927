#include "parquet/page_job.h"

#include <stdlib.h>
#include <string.h>

#include "parquet/encoding.h"
#include "parquet/meta.h"
#include "util/array.h"
#include "util/failpoint.h"

int pq_page_scratch_init(struct pq_page_scratch *s)
{
    memset(s, 0, sizeof *s);
    s->codec = pq_codec_ctx_new();
    return s->codec ? 0 : -1;
}

void pq_page_scratch_free(struct pq_page_scratch *s)
{
    pq_codec_ctx_free(s->codec);
    buf_free(&s->body);
    free(s->bools);
    memset(s, 0, sizeof *s);
}

static int encode_levels(struct buf *body, const uint16_t *levels, size_t n, int16_t max_level)
{
    /* Data page v1: a 4-byte little-endian length, then the RLE runs. */
    size_t at = body->len;
    uint32_t len = 0;
    if (buf_append(body, &len, 4) != 0 ||
        pq_rle_encode_u16(levels, n, pq_bit_width((uint64_t)max_level), body) != 0)
        return -1;
    len = (uint32_t)(body->len - at - 4);
    memcpy(body->data + at, &len, 4);
    return 0;
}

/* Lays out a data page's body: levels, then values. PLAIN values that
 * leave room for the levels in their headroom get them written in front
 * of them, and are not copied. */
static int data_page_body(struct pq_page_job *j, struct pq_page_scratch *s, const char **page,
                          size_t *len)
{
    struct buf *body = &s->body;
    buf_reset(body);
    if (j->max_rep > 0 && encode_levels(body, j->in.rep, j->in.nlev, j->max_rep) != 0)
        return -1;
    if (j->max_def > 0 && encode_levels(body, j->in.def, j->in.nlev, j->max_def) != 0)
        return -1;
    size_t head = j->in.plain.len ? PQ_PAGE_HEADROOM : 0;
    const char *values = j->in.plain.len ? j->in.plain.data + head : NULL;
    size_t nvalues_bytes = j->in.plain.len - head;
    switch (j->encoding) {
    case PQ_ENC_RLE_DICTIONARY:
        if (buf_putc(body, (char)j->dict_bit_width) != 0 ||
            pq_rle_encode_u32(j->in.idx, j->in.nidx, j->dict_bit_width, body) != 0)
            return -1;
        break;
    case PQ_ENC_RLE:
        /* Booleans as RLE runs of width 1 (long runs of one value are
         * common), framed like v1 levels. */
        if (ARRAY_RESERVE(s->bools, s->bools_cap, nvalues_bytes, 1024) != 0)
            return -1;
        for (size_t i = 0; i < nvalues_bytes; i++)
            s->bools[i] = (uint8_t)values[i];
        if (encode_levels(body, s->bools, nvalues_bytes, 1) != 0)
            return -1;
        break;
    case PQ_ENC_DELTA_BINARY_PACKED:
        /* (values sit after PQ_PAGE_HEADROOM bytes of a malloc'd buffer:
         * aligned for int64) */
        if (pq_delta_encode_i64((const int64_t *)(const void *)values, nvalues_bytes / 8, body) !=
            0)
            return -1;
        break;
    default:
        if (head && body->len <= head) {
            char *start = j->in.plain.data + head - body->len;
            if (body->len)
                memcpy(start, body->data, body->len);
            *page = start;
            *len = body->len + nvalues_bytes;
            return 0;
        }
        if (nvalues_bytes && buf_append(body, values, nvalues_bytes) != 0)
            return -1;
    }
    *page = body->data;
    *len = body->len;
    return 0;
}

static int run(struct pq_page_job *j, struct pq_page_scratch *s)
{
    if (failpoint_on("parquet-page-job-nomem"))
        return error_fail(&j->err, ERR_NOMEM, "out of memory (failpoint)");
    const char *page = j->in.plain.data;
    size_t len = j->in.plain.len;
    if (j->type == PQ_DATA_PAGE && data_page_body(j, s, &page, &len) != 0)
        return error_fail(&j->err, ERR_NOMEM, "out of memory");
    if (len > INT32_MAX)
        return error_fail(&j->err, ERR_INVALID, "a page exceeds 2 GiB");
    buf_reset(&j->comp);
    if (pq_compress(s->codec, j->codec, j->level, page ? page : "", len, &j->comp, &j->err) != 0)
        return -1;
    if (j->comp.len > INT32_MAX)
        return error_fail(&j->err, ERR_INVALID, "a page exceeds 2 GiB");
    struct pq_page_header h = {
        .type = j->type,
        .uncompressed_size = (int32_t)len,
        .compressed_size = (int32_t)j->comp.len,
        .num_values = j->num_values,
        .encoding = j->encoding,
        .def_encoding = PQ_ENC_RLE,
        .rep_encoding = PQ_ENC_RLE,
    };
    j->uncompressed_size = h.uncompressed_size;
    buf_reset(&j->header);
    if (pq_encode_page_header(&h, &j->header) != 0)
        return error_fail(&j->err, ERR_NOMEM, "out of memory");
    return 0;
}

void pq_page_job_run(struct pq_page_job *j, struct pq_page_scratch *s)
{
    j->rc = run(j, s);
}

size_t pq_page_job_input_bytes(const struct pq_page_job *j)
{
    size_t levels = (size_t)(j->max_def > 0) + (size_t)(j->max_rep > 0);
    return j->in.plain.len + j->in.nidx * sizeof *j->in.idx +
           j->in.nlev * levels * sizeof *j->in.def;
}

void pq_page_bufs_free(struct pq_page_bufs *b)
{
    free(b->def);
    free(b->rep);
    free(b->idx);
    buf_free(&b->plain);
    memset(b, 0, sizeof *b);
}

void pq_page_job_free(struct pq_page_job *j)
{
    pq_page_bufs_free(&j->in);
    buf_free(&j->header);
    buf_free(&j->comp);
    memset(j, 0, sizeof *j);
}
