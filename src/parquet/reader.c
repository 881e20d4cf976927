#include "parquet/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parquet/compress.h"
#include "parquet/encoding.h"
#include "util/arrow.h"
#include "util/blockpool.h"
#include "util/bytes.h"

/* ---- sources ---- */

struct mem_source {
    const uint8_t *data;
};

static int mem_read_at(void *ctx, uint64_t off, void *dst, size_t len, struct error *err)
{
    (void)err;
    memcpy(dst, (const uint8_t *)ctx + off, len);
    return 0;
}

void pq_source_memory(struct pq_source *src, const void *data, size_t len)
{
    src->read_at = mem_read_at;
    src->ctx = (void *)data;
    src->size = len;
    src->fd = -1;
}

static int file_read_at(void *ctx, uint64_t off, void *dst, size_t len, struct error *err)
{
    int fd = (int)(intptr_t)ctx;
    char *p = dst;
    while (len) {
        ssize_t n = pread(fd, p, len, (off_t)off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return error_fail(err, ERR_IO, "read: %s", strerror(errno));
        }
        if (n == 0)
            return error_fail(err, ERR_IO, "the file ended early (it changed while being read?)");
        p += n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}

int pq_source_file(struct pq_source *src, const char *path, struct error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return error_fail(err, ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return error_fail(err, ERR_IO, "%s: not a regular file", path);
    }
    src->read_at = file_read_at;
    src->ctx = (void *)(intptr_t)fd;
    src->size = (uint64_t)st.st_size;
    src->fd = fd;
    return 0;
}

void pq_source_close(struct pq_source *src)
{
    if (src->fd >= 0)
        close(src->fd);
    src->fd = -1;
}

/* Reads [off, off+len) after checking it lies inside the source. */
static int read_range(const struct pq_source *src, uint64_t off, void *dst, size_t len,
                      struct error *err)
{
    if (off > src->size || len > src->size - off)
        return error_fail(err, ERR_CORRUPT, "a range [%llu, +%zu) lies outside the %llu-byte file",
                          (unsigned long long)off, len, (unsigned long long)src->size);
    return src->read_at(src->ctx, off, dst, len, err);
}

/* ---- footer ---- */

int pq_parse_footer_tail(const void *tail, size_t len, struct arena *a, struct pq_file_meta *meta,
                         uint32_t *footer_len, struct error *err)
{
    const uint8_t *t = tail;
    if (len < 8)
        return error_fail(err, ERR_CORRUPT, "too short to hold a Parquet footer");
    if (memcmp(t + len - 4, "PARE", 4) == 0)
        return error_fail(err, ERR_UNSUPPORTED, "the file is encrypted (PARE footer)");
    if (memcmp(t + len - 4, "PAR1", 4) != 0)
        return error_fail(err, ERR_CORRUPT, "not a Parquet file (no PAR1 at the end)");
    uint32_t flen;
    memcpy(&flen, t + len - 8, 4);
    if (flen > len - 8 || flen > PQ_MAX_FOOTER_BYTES)
        return error_fail(err, ERR_CORRUPT, "the footer claims %u bytes, but %zu are there", flen,
                          len - 8);
    if (pq_decode_file_meta(t + len - 8 - flen, flen, a, meta, err) != 0)
        return -1;
    if (meta->encrypted)
        return error_fail(err, ERR_UNSUPPORTED, "the file's columns are encrypted");
    *footer_len = flen;
    return 0;
}

int pq_read_footer(const struct pq_source *src, struct arena *a, struct pq_file_meta *meta,
                   uint32_t *footer_len, struct error *err)
{
    if (src->size < 12)
        return error_fail(err, ERR_CORRUPT, "the file is %llu bytes, too short for Parquet",
                          (unsigned long long)src->size);
    uint8_t end[8];
    if (read_range(src, src->size - 8, end, 8, err) != 0)
        return -1;
    uint8_t head[4];
    if (read_range(src, 0, head, 4, err) != 0)
        return -1;
    if (memcmp(head, "PAR1", 4) != 0 && memcmp(head, "PARE", 4) != 0)
        return error_fail(err, ERR_CORRUPT, "not a Parquet file (no PAR1 at the start)");
    uint32_t flen;
    memcpy(&flen, end, 4);
    if (memcmp(end + 4, "PAR1", 4) != 0 && memcmp(end + 4, "PARE", 4) != 0)
        return error_fail(err, ERR_CORRUPT, "not a Parquet file (no PAR1 at the end)");
    if ((uint64_t)flen > src->size - 12 || flen > PQ_MAX_FOOTER_BYTES)
        return error_fail(err, ERR_CORRUPT, "the footer claims %u bytes of a %llu-byte file", flen,
                          (unsigned long long)src->size);
    uint8_t *tail = malloc((size_t)flen + 8);
    if (!tail)
        return error_fail(err, ERR_NOMEM, "out of memory");
    int rc = read_range(src, src->size - 8 - flen, tail, (size_t)flen + 8, err);
    if (rc == 0)
        rc = pq_parse_footer_tail(tail, (size_t)flen + 8, a, meta, footer_len, err);
    free(tail);
    return rc;
}

/* ---- the Arrow type of each leaf ---- */

enum leaf_conv {
    LC_BOOL,
    LC_COPY, /* same width: INT32->int32, INT64->int64/timestamps, floats, FLBA */
    LC_I32_TO_I8,
    LC_I32_TO_I16,
    LC_I32_TO_DEC,
    LC_I64_TO_DEC,
    LC_BYTES_TO_DEC, /* BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY big-endian */
    LC_INT96,        /* to a timestamp of type.unit */
    LC_BYTES,        /* BYTE_ARRAY to utf8/binary */
    LC_INTERVAL,     /* INTERVAL's three little-endian uint32 to Arrow month_day_nano */
};

struct leaf_type {
    enum leaf_conv conv;
    int width;     /* physical width in the dense buffer (0: byte array) */
    int out_width; /* Arrow value width in bytes (0: bits or variable) */
    char format[40];
    /* INT96: the unit produced, and whether it is settled (asked for by the
     * caller or decided from the values: see pq_reader_set_int96_unit) */
    enum pq_time_unit unit;
    bool unit_settled;
    /* The null (UNKNOWN) type: decoded as its physical type, which must
     * yield no value, and handed out as an Arrow null array. */
    bool null_only;
};

static void set_int96_unit(struct leaf_type *lt, enum pq_time_unit unit)
{
    lt->unit = unit;
    lt->unit_settled = true;
    snprintf(lt->format, sizeof lt->format, "ts%c:",
             unit == PQ_MILLIS   ? 'm'
             : unit == PQ_MICROS ? 'u'
                                 : 'n');
}

/* Sets how a leaf converts and the Arrow type it becomes. */
static void leaf_as(struct leaf_type *lt, enum leaf_conv conv, int out_width, const char *format)
{
    lt->conv = conv;
    lt->out_width = out_width;
    snprintf(lt->format, sizeof lt->format, "%s", format);
}

/* A decimal leaf: 16-byte Arrow decimal128. */
static void leaf_as_decimal(struct leaf_type *lt, enum leaf_conv conv, int precision, int scale)
{
    char format[sizeof lt->format];
    snprintf(format, sizeof format, "d:%d,%d", precision, scale);
    leaf_as(lt, conv, 16, format);
}

static int physical_leaf_type(const struct pq_node *n, struct leaf_type *lt, struct error *err)
{
    const struct pq_schema_element *e = n->el;
    const struct pq_logical *l = &e->logical;
    bool has_ct = e->has_converted;
    enum pq_converted ct = e->converted;
    bool dec = l->kind == PQ_LT_DECIMAL || (has_ct && ct == PQ_CT_DECIMAL);
    int precision = l->kind == PQ_LT_DECIMAL ? l->precision : e->precision;
    int scale = l->kind == PQ_LT_DECIMAL ? l->scale : e->scale;
    memset(lt, 0, sizeof *lt);
    if (dec && (precision < 1 || precision > 38 || scale < 0 || scale > precision))
        return error_fail(err, ERR_UNSUPPORTED,
                          "column '%s': decimal(%d, %d) (precision 1 to 38 is read)", n->path,
                          (int)precision, (int)scale);
    switch (e->type) {
    case PQ_BOOLEAN:
        lt->conv = LC_BOOL;
        lt->width = 1;
        strcpy(lt->format, "b");
        return 0;
    case PQ_INT32:
        lt->width = 4;
        if (dec) {
            leaf_as_decimal(lt, LC_I32_TO_DEC, precision, scale);
            return 0;
        }
        leaf_as(lt, LC_COPY, 4, "i");
        if (l->kind == PQ_LT_INTEGER || (has_ct && ct >= PQ_CT_UINT_8 && ct <= PQ_CT_INT_32)) {
            int bits = l->kind == PQ_LT_INTEGER                      ? l->bit_width
                       : (ct == PQ_CT_UINT_8 || ct == PQ_CT_INT_8)   ? 8
                       : (ct == PQ_CT_UINT_16 || ct == PQ_CT_INT_16) ? 16
                                                                     : 32;
            bool is_signed = l->kind == PQ_LT_INTEGER ? l->is_signed : ct >= PQ_CT_INT_8;
            if (bits == 8) {
                leaf_as(lt, LC_I32_TO_I8, 1, is_signed ? "c" : "C");
            } else if (bits == 16) {
                leaf_as(lt, LC_I32_TO_I16, 2, is_signed ? "s" : "S");
            } else if (!is_signed) {
                strcpy(lt->format, "I");
            }
        } else if (l->kind == PQ_LT_DATE || (has_ct && ct == PQ_CT_DATE)) {
            strcpy(lt->format, "tdD");
        } else if ((l->kind == PQ_LT_TIME && l->unit == PQ_MILLIS) ||
                   (has_ct && ct == PQ_CT_TIME_MILLIS)) {
            strcpy(lt->format, "ttm");
        }
        return 0;
    case PQ_INT64:
        lt->width = 8;
        if (dec) {
            leaf_as_decimal(lt, LC_I64_TO_DEC, precision, scale);
            return 0;
        }
        leaf_as(lt, LC_COPY, 8, "l");
        if ((l->kind == PQ_LT_INTEGER && !l->is_signed) || (has_ct && ct == PQ_CT_UINT_64)) {
            strcpy(lt->format, "L");
        } else if (l->kind == PQ_LT_TIMESTAMP) {
            char u = l->unit == PQ_MILLIS ? 'm' : l->unit == PQ_NANOS ? 'n' : 'u';
            snprintf(lt->format, sizeof lt->format, "ts%c:%s", u, l->utc ? "UTC" : "");
        } else if (has_ct && (ct == PQ_CT_TIMESTAMP_MILLIS || ct == PQ_CT_TIMESTAMP_MICROS)) {
            snprintf(lt->format, sizeof lt->format, "ts%c:UTC",
                     ct == PQ_CT_TIMESTAMP_MILLIS ? 'm' : 'u');
        } else if (l->kind == PQ_LT_TIME) {
            strcpy(lt->format, l->unit == PQ_NANOS ? "ttn" : "ttu");
        } else if (has_ct && ct == PQ_CT_TIME_MICROS) {
            strcpy(lt->format, "ttu");
        }
        return 0;
    case PQ_INT96:
        lt->conv = LC_INT96;
        lt->width = 12;
        lt->out_width = 8;
        set_int96_unit(lt, PQ_NANOS);
        lt->unit_settled = false;
        return 0;
    case PQ_FLOAT:
        lt->width = 4;
        leaf_as(lt, LC_COPY, 4, "f");
        return 0;
    case PQ_DOUBLE:
        lt->width = 8;
        leaf_as(lt, LC_COPY, 8, "g");
        return 0;
    case PQ_BYTE_ARRAY:
        if (dec) {
            leaf_as_decimal(lt, LC_BYTES_TO_DEC, precision, scale);
            return 0;
        }
        lt->conv = LC_BYTES;
        bool text = l->kind == PQ_LT_STRING || l->kind == PQ_LT_JSON || l->kind == PQ_LT_ENUM ||
                    (has_ct && (ct == PQ_CT_UTF8 || ct == PQ_CT_JSON || ct == PQ_CT_ENUM));
        strcpy(lt->format, text ? "u" : "z");
        return 0;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        lt->width = e->type_length;
        if (dec && e->type_length > 16)
            return error_fail(err, ERR_UNSUPPORTED, "column '%s': a %d-byte decimal", n->path,
                              (int)e->type_length);
        if (dec) {
            leaf_as_decimal(lt, LC_BYTES_TO_DEC, precision, scale);
            return 0;
        }
        if (has_ct && ct == PQ_CT_INTERVAL && e->type_length == 12) {
            leaf_as(lt, LC_INTERVAL, 16, "tin");
            return 0;
        }
        lt->conv = LC_COPY;
        lt->out_width = e->type_length;
        if (l->kind == PQ_LT_FLOAT16 && e->type_length == 2)
            strcpy(lt->format, "e");
        else
            snprintf(lt->format, sizeof lt->format, "w:%d", (int)e->type_length);
        return 0;
    }
    return error_fail(err, ERR_CORRUPT, "column '%s' has physical type %d", n->path, (int)e->type);
}

static int leaf_type_of(const struct pq_node *n, struct leaf_type *lt, struct error *err)
{
    if (physical_leaf_type(n, lt, err) != 0)
        return -1;
    if (n->el->logical.kind == PQ_LT_UNKNOWN) {
        lt->null_only = true;
        strcpy(lt->format, "n");
    }
    return 0;
}

/* ---- per-leaf decoded data ---- */

struct leaf_data {
    const struct pq_node *leaf;
    struct leaf_type type;
    size_t chunk_values; /* the chunk's value count (level entries) */
    size_t max_bytes;    /* the reader's limit on the value stores' bytes */
    uint16_t *def, *rep; /* NULL when the leaf's maximum level is 0 */
    size_t nlev, defcap, repcap;
    struct buf fixed; /* dense non-null values, type.width bytes each */
    int64_t *offsets; /* byte arrays: nvalues + 1 */
    size_t offcap;
    struct buf bytes;
    size_t nvalues;
    /* the chunk's dictionary, PLAIN-decoded */
    bool has_dict;
    size_t dict_n;
    struct buf dict_fixed;
    int64_t *dict_off;
    struct buf dict_bytes;
};

/* Gives the leaf's large buffers back to the pool for the next column or
 * row group; the dictionary goes to the allocator. */
static void leaf_data_free(struct block_pool *pool, struct leaf_data *d)
{
    block_pool_put(pool, d->def, d->defcap * sizeof *d->def);
    block_pool_put(pool, d->rep, d->repcap * sizeof *d->rep);
    block_pool_put(pool, d->fixed.data, d->fixed.cap);
    block_pool_put(pool, d->offsets, d->offcap * sizeof *d->offsets);
    block_pool_put(pool, d->bytes.data, d->bytes.cap);
    buf_free(&d->dict_fixed);
    free(d->dict_off);
    buf_free(&d->dict_bytes);
    memset(d, 0, sizeof *d);
}

struct pq_reader {
    struct pq_source src;
    struct arena arena;
    struct pq_file_meta meta;
    struct pq_schema schema;
    uint32_t footer_len;
    struct leaf_type *types; /* per leaf */
    int *select;             /* top-level child indexes */
    size_t nselect;
    uint64_t max_values; /* refuse chunks holding more level entries */
    size_t max_bytes;    /* ... or decoding to more value bytes */
    struct pq_codec_ctx *codec;
    /* Large buffers, decoded and handed out, come from and return to this
     * pool (batches hold a reference): see util/blockpool.h. */
    struct block_pool *pool;
    struct leaf_data *leaf; /* per leaf; filled for the selected ones while reading */
    struct buf chunk;       /* the column chunk being read */
    struct buf page;        /* a decompressed page */
    struct buf values;      /* a v2 page's decompressed values */
    uint32_t *indices;
    size_t idxcap;
    uint16_t *scratch_levels;
    size_t scratch_cap;
    size_t next_group; /* for the stream */
    char stream_error[ERROR_MESSAGE_MAX];
};

static int nomem(struct error *err)
{
    return error_fail(err, ERR_NOMEM, "out of memory");
}

static int reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    /* Allocates even for need == 0: callers index the array (p + 0). */
    if (*p && need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 256;
    while (n < need) {
        if (n > SIZE_MAX / 2 / elem)
            return -1;
        n *= 2;
    }
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* The metadata's sizes only hint at how large a chunk decodes (a hostile
 * file may lie): hints are capped at this expansion of the chunk's bytes
 * (plus slack), and buffers still grow when a hint falls short. */
enum {
    SEED_EXPANSION = 16,
    SEED_SLACK = 1 << 20,
    SEED_MAX_GATHER = 256 << 20, /* dictionary strings: the most reserved up front */
};

/* The most value bytes a column chunk may decode to: what Arrow's 32-bit
 * offsets address. */
#define BYTES_MAX ((size_t)INT32_MAX)

/* What the reader's pool may keep for reuse between row groups. */
enum { POOL_MAX_BLOCKS = 256 };
#define POOL_MAX_BYTES ((size_t)1 << 30)

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Takes a buffer of about `bytes` from the pool into *p, recording its
 * capacity in elements of elem bytes. */
static int seed(struct pq_reader *r, void **p, size_t *cap, size_t bytes, size_t elem,
                struct error *err)
{
    size_t got;
    void *b = block_pool_get(r->pool, bytes + elem, &got);
    if (!b)
        return nomem(err);
    *p = b;
    *cap = got / elem;
    return 0;
}

/* Sizes a leaf's buffers for its chunk before decoding, from the pool, so
 * that they neither grow page by page nor fault in fresh memory. */
static int seed_leaf(struct pq_reader *r, struct leaf_data *d, const struct pq_column_meta *m,
                     struct error *err)
{
    size_t n = (size_t)m->num_values;
    size_t bound = (size_t)m->total_compressed_size * SEED_EXPANSION + SEED_SLACK;
    size_t levels = min_size(n, bound / 2);
    d->chunk_values = n;
    d->max_bytes = r->max_bytes;
    if (d->leaf->def_level > 0 &&
        seed(r, (void **)&d->def, &d->defcap, levels * 2, sizeof *d->def, err) != 0)
        return -1;
    if (d->leaf->rep_level > 0 &&
        seed(r, (void **)&d->rep, &d->repcap, levels * 2, sizeof *d->rep, err) != 0)
        return -1;
    if (d->leaf->el->type == PQ_BYTE_ARRAY) {
        if (seed(r, (void **)&d->offsets, &d->offcap, min_size(n, bound / 8) * 8,
                 sizeof *d->offsets, err) != 0 ||
            seed(r, (void **)&d->bytes.data, &d->bytes.cap,
                 min_size((size_t)m->total_uncompressed_size, bound), 1, err) != 0)
            return -1;
        d->bytes.data[0] = '\0';
        d->offsets[0] = 0; /* values decode from the start of the bytes */
        return 0;
    }
    size_t w = (size_t)d->type.width;
    if (seed(r, (void **)&d->fixed.data, &d->fixed.cap, n <= bound / w ? n * w : bound, 1, err) !=
        0)
        return -1;
    d->fixed.data[0] = '\0';
    return 0;
}

/* Decodes n PLAIN values of the leaf's physical type, appending to a dense
 * value store (fixed-width values, or byte-array offsets and bytes). */
static int decode_plain(const struct leaf_data *d, const uint8_t *data, size_t len, size_t n,
                        struct buf *fixed, int64_t **offsets, size_t *offcap, size_t *count,
                        struct buf *bytes, struct error *err)
{
    /* Every value occupies input (a byte array at least its 4-byte length,
     * a boolean a bit): a count past that is corrupt, and is refused
     * before it can size an allocation. */
    size_t w = (size_t)d->type.width;
    bool byte_array = d->leaf->el->type == PQ_BYTE_ARRAY;
    bool too_many = byte_array ? n > len / 4 : d->type.conv == LC_BOOL ? n / 8 > len : n > len / w;
    if (too_many)
        return error_fail(err, ERR_CORRUPT, "column '%s': %zu values cannot fit in %zu bytes",
                          d->leaf->path, n, len);
    if (byte_array) {
        if (reserve((void **)offsets, offcap, *count + n + 1, sizeof **offsets) != 0)
            return nomem(err);
        if (*count == 0)
            (*offsets)[0] = (int64_t)bytes->len;
        if (pq_plain_decode_byte_array(data, len, n, *offsets + *count, bytes, err) != 0)
            return -1;
        *count += n;
        return 0;
    }
    if (buf_reserve(fixed, n * w) != 0)
        return nomem(err);
    int rc = d->type.conv == LC_BOOL
                 ? pq_plain_decode_bool(data, len, (uint8_t *)fixed->data + fixed->len, n, err)
                 : pq_plain_decode_fixed(data, len, w, fixed->data + fixed->len, n, err);
    if (rc != 0)
        return -1;
    fixed->len += n * w;
    *count += n;
    return 0;
}

static int read_dictionary(struct pq_reader *r, struct leaf_data *d, const uint8_t *data,
                           size_t len, const struct pq_page_header *h, struct error *err)
{
    if (d->has_dict)
        return error_fail(err, ERR_CORRUPT, "column '%s' has two dictionary pages", d->leaf->path);
    if (h->encoding != PQ_ENC_PLAIN && h->encoding != PQ_ENC_PLAIN_DICTIONARY)
        return error_fail(err, ERR_UNSUPPORTED, "column '%s': a dictionary in %s", d->leaf->path,
                          pq_encoding_name(h->encoding));
    if (d->leaf->el->type == PQ_BOOLEAN)
        return error_fail(err, ERR_CORRUPT, "column '%s': a dictionary of booleans", d->leaf->path);
    size_t count = 0, cap = 0;
    if (decode_plain(d, data, len, (size_t)h->num_values, &d->dict_fixed, &d->dict_off, &cap,
                     &count, &d->dict_bytes, err) != 0)
        return -1;
    d->dict_n = count;
    d->has_dict = true;
    /* Gathered strings take about the dictionary's mean length each: size
     * the (still empty) byte buffer for that. */
    if (d->leaf->el->type == PQ_BYTE_ARRAY && count && d->bytes.len == 0) {
        size_t mean = d->dict_bytes.len / count + 1;
        size_t want =
            d->chunk_values <= SEED_MAX_GATHER / mean ? d->chunk_values * mean : SEED_MAX_GATHER;
        if (want > d->bytes.cap) {
            block_pool_put(r->pool, d->bytes.data, d->bytes.cap);
            d->bytes.data = NULL;
            d->bytes.cap = 0;
            if (seed(r, (void **)&d->bytes.data, &d->bytes.cap, want, 1, err) != 0)
                return -1;
            d->bytes.data[0] = '\0';
        }
    }
    return 0;
}

/* Decodes one level stream of n values into out. RLE in data page v1
 * carries a 4-byte length; v2 gives the length in the header (len_known). */
static int decode_levels(const uint8_t **p, size_t *avail, enum pq_encoding enc, bool len_known,
                         size_t known_len, int16_t max_level, uint16_t *out, size_t n,
                         const char *path, struct error *err)
{
    int bw = pq_bit_width((uint64_t)max_level);
    size_t len;
    if (enc == PQ_ENC_BIT_PACKED && !len_known) {
        uint64_t bits = (uint64_t)n * (uint64_t)bw;
        len = (size_t)((bits + 7) / 8);
        if (len > *avail)
            return error_fail(err, ERR_CORRUPT, "column '%s': levels run past the page", path);
        if (pq_bitpacked_decode_levels(*p, len, bw, out, n, err) != 0)
            return -1;
    } else if (enc == PQ_ENC_RLE || len_known) {
        if (len_known) {
            len = known_len;
        } else {
            if (*avail < 4)
                return error_fail(err, ERR_CORRUPT, "column '%s': levels run past the page", path);
            uint32_t l32;
            memcpy(&l32, *p, 4);
            *p += 4;
            *avail -= 4;
            len = l32;
        }
        if (len > *avail)
            return error_fail(err, ERR_CORRUPT, "column '%s': levels run past the page", path);
        if (pq_rle_decode_u16(*p, len, bw, out, n, err) != 0)
            return -1;
    } else {
        return error_fail(err, ERR_UNSUPPORTED, "column '%s': levels in %s", path,
                          pq_encoding_name(enc));
    }
    for (size_t i = 0; i < n; i++)
        if (out[i] > max_level)
            return error_fail(err, ERR_CORRUPT, "column '%s': a level above its maximum %d", path,
                              max_level);
    *p += len;
    *avail -= len;
    return 0;
}

/* Whether n more values of w bytes keep the leaf's value store of `used`
 * bytes within the reader's limit: checked before allocating them. */
static int within_byte_limit(const struct leaf_data *d, size_t used, size_t n, size_t w,
                             struct error *err)
{
    if (used <= d->max_bytes && n <= (d->max_bytes - used) / w)
        return 0;
    return error_fail(err, ERR_UNSUPPORTED,
                      "column '%s' decodes to more than %zu bytes in one row group (the reader's "
                      "limit)",
                      d->leaf->path, d->max_bytes);
}

/* Gathers dictionary entries for n indices into the dense store. */
static int gather(struct leaf_data *d, const uint32_t *idx, size_t n, struct error *err)
{
    if (!d->has_dict)
        return error_fail(err, ERR_CORRUPT,
                          "column '%s': dictionary-encoded data without a dictionary",
                          d->leaf->path);
    for (size_t i = 0; i < n; i++)
        if (idx[i] >= d->dict_n)
            return error_fail(err, ERR_CORRUPT,
                              "column '%s': dictionary index %u past the %zu entries",
                              d->leaf->path, idx[i], d->dict_n);
    if (d->leaf->el->type == PQ_BYTE_ARRAY) {
        if (reserve((void **)&d->offsets, &d->offcap, d->nvalues + n + 1, sizeof *d->offsets) != 0)
            return nomem(err);
        if (d->nvalues == 0)
            d->offsets[0] = (int64_t)d->bytes.len;
        /* A few bytes of indices can repeat a long entry many times:
         * refuse what the limit forbids before allocating it. (n < 2^31
         * and entries < 2^31: no overflow.) */
        size_t total = 0;
        for (size_t i = 0; i < n; i++)
            total += (size_t)(d->dict_off[idx[i] + 1] - d->dict_off[idx[i]]);
        if (within_byte_limit(d, d->bytes.len, total, 1, err) != 0)
            return -1;
        if (buf_reserve(&d->bytes, total) != 0)
            return nomem(err);
        char *out = d->bytes.data + d->bytes.len;
        int64_t *off = d->offsets + d->nvalues;
        int64_t pos = (int64_t)d->bytes.len;
        const char *src = d->dict_bytes.data;
        for (size_t i = 0; i < n; i++) {
            int64_t b = d->dict_off[idx[i]], e = d->dict_off[idx[i] + 1];
            memcpy(out, src + b, (size_t)(e - b));
            out += e - b;
            pos += e - b;
            off[i + 1] = pos;
        }
        d->bytes.len = (size_t)pos;
        d->bytes.data[d->bytes.len] = '\0';
        d->nvalues += n;
        return 0;
    }
    size_t w = (size_t)d->type.width;
    if (within_byte_limit(d, d->fixed.len, n, w, err) != 0)
        return -1;
    if (buf_reserve(&d->fixed, n * w) != 0)
        return nomem(err);
    uint8_t *out = (uint8_t *)d->fixed.data + d->fixed.len;
    const uint8_t *src = (const uint8_t *)d->dict_fixed.data;
    if (w == 8) {
        for (size_t i = 0; i < n; i++)
            memcpy(out + i * 8, src + (size_t)idx[i] * 8, 8);
    } else if (w == 4) {
        for (size_t i = 0; i < n; i++)
            memcpy(out + i * 4, src + (size_t)idx[i] * 4, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            memcpy(out + i * w, src + (size_t)idx[i] * w, w);
    }
    d->fixed.len += n * w;
    d->nvalues += n;
    return 0;
}

/* Decodes n non-null values in `enc` from the page's value section. */
static int decode_values(struct pq_reader *r, struct leaf_data *d, enum pq_encoding enc,
                         const uint8_t *p, size_t len, size_t n, struct error *err)
{
    enum pq_type t = d->leaf->el->type;
    size_t w = (size_t)d->type.width;
    switch (enc) {
    case PQ_ENC_PLAIN:
        return decode_plain(d, p, len, n, &d->fixed, &d->offsets, &d->offcap, &d->nvalues,
                            &d->bytes, err);
    case PQ_ENC_PLAIN_DICTIONARY:
    case PQ_ENC_RLE_DICTIONARY: {
        if (n == 0)
            return 0;
        if (len < 1)
            return error_fail(err, ERR_CORRUPT, "column '%s': dictionary indices missing",
                              d->leaf->path);
        int bw = p[0];
        if (bw > 32)
            return error_fail(err, ERR_CORRUPT, "column '%s': index bit width %d", d->leaf->path,
                              bw);
        if (reserve((void **)&r->indices, &r->idxcap, n, sizeof *r->indices) != 0)
            return nomem(err);
        if (pq_rle_decode_u32(p + 1, len - 1, bw, r->indices, n, err) != 0)
            return -1;
        return gather(d, r->indices, n, err);
    }
    case PQ_ENC_RLE: {
        if (t != PQ_BOOLEAN)
            break;
        if (len < 4)
            return error_fail(err, ERR_CORRUPT, "column '%s': RLE booleans truncated",
                              d->leaf->path);
        uint32_t l32;
        memcpy(&l32, p, 4);
        if (l32 > len - 4)
            return error_fail(err, ERR_CORRUPT, "column '%s': RLE booleans truncated",
                              d->leaf->path);
        if (reserve((void **)&r->scratch_levels, &r->scratch_cap, n, sizeof *r->scratch_levels) !=
                0 ||
            buf_reserve(&d->fixed, n) != 0)
            return nomem(err);
        if (pq_rle_decode_u16(p + 4, l32, 1, r->scratch_levels, n, err) != 0)
            return -1;
        uint8_t *out = (uint8_t *)d->fixed.data + d->fixed.len;
        for (size_t i = 0; i < n; i++)
            out[i] = (uint8_t)r->scratch_levels[i];
        d->fixed.len += n;
        d->nvalues += n;
        return 0;
    }
    case PQ_ENC_DELTA_BINARY_PACKED: {
        if (t != PQ_INT32 && t != PQ_INT64)
            break;
        if (n > SIZE_MAX / w || buf_reserve(&d->fixed, n * w) != 0)
            return nomem(err);
        size_t used;
        void *out = d->fixed.data + d->fixed.len;
        int rc = t == PQ_INT32 ? pq_delta_decode_i32(p, len, out, n, &used, err)
                               : pq_delta_decode_i64(p, len, out, n, &used, err);
        if (rc != 0)
            return -1;
        d->fixed.len += n * w;
        d->nvalues += n;
        return 0;
    }
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
    case PQ_ENC_DELTA_BYTE_ARRAY: {
        if (t != PQ_BYTE_ARRAY)
            break;
        if (n > len * 8 + 64)
            return error_fail(err, ERR_CORRUPT, "column '%s': %zu values cannot fit in %zu bytes",
                              d->leaf->path, n, len);
        if (reserve((void **)&d->offsets, &d->offcap, d->nvalues + n + 1, sizeof *d->offsets) != 0)
            return nomem(err);
        if (d->nvalues == 0)
            d->offsets[0] = (int64_t)d->bytes.len;
        int rc =
            enc == PQ_ENC_DELTA_LENGTH_BYTE_ARRAY
                ? pq_delta_length_decode(p, len, n, d->offsets + d->nvalues, &d->bytes, err)
                : pq_delta_byte_array_decode(p, len, n, d->offsets + d->nvalues, &d->bytes, err);
        if (rc != 0)
            return -1;
        d->nvalues += n;
        return 0;
    }
    case PQ_ENC_BYTE_STREAM_SPLIT: {
        if (t == PQ_BOOLEAN || t == PQ_BYTE_ARRAY || t == PQ_INT96)
            break;
        if (n > len / w)
            return error_fail(err, ERR_CORRUPT, "column '%s': %zu values cannot fit in %zu bytes",
                              d->leaf->path, n, len);
        if (buf_reserve(&d->fixed, n * w) != 0)
            return nomem(err);
        if (pq_byte_stream_split_decode(p, len, w, d->fixed.data + d->fixed.len, n, err) != 0)
            return -1;
        d->fixed.len += n * w;
        d->nvalues += n;
        return 0;
    }
    default: break;
    }
    return error_fail(err, ERR_UNSUPPORTED, "column '%s': %s values in %s", d->leaf->path,
                      pq_type_name(t), pq_encoding_name(enc));
}

/* The most bytes n compressed bytes can expand to, by the codec's format:
 * a ZSTD block of at most 128 KiB costs at least 4 bytes (an RLE block);
 * deflate tops out near 1032:1; an LZ4 match grows 255 bytes per length
 * byte (the Hadoop framing of codec LZ4 only adds bytes); a SNAPPY copy
 * yields at most 64 bytes for 2 or 3 bytes; a BROTLI meta-block makes at
 * most 16 MiB and costs at least ~100 bits (its header, three one-symbol
 * prefix codes, a copy length's 24 extra bits), under 1.4M:1. A page
 * claiming more is refused before its buffer is allocated. */
static size_t max_expansion(enum pq_codec codec, size_t n)
{
    size_t ratio, slack;
    switch (codec) {
    case PQ_ZSTD:
        ratio = 32 * 1024;
        slack = 128 * 1024;
        break;
    case PQ_GZIP:
        ratio = 1032;
        slack = 1024;
        break;
    case PQ_LZ4_RAW:
    case PQ_LZ4:
        ratio = 256;
        slack = 1024;
        break;
    case PQ_SNAPPY:
        ratio = 32;
        slack = 64;
        break;
    case PQ_BROTLI:
        ratio = 2 * 1024 * 1024;
        slack = 1024;
        break;
    default: return n;
    }
    return n > (SIZE_MAX - slack) / ratio ? SIZE_MAX : n * ratio + slack;
}

/* Returns the uncompressed form of a page region: the input itself when
 * it is not compressed, else r->page (or r->values). */
static const uint8_t *decompress_into(struct pq_reader *r, struct buf *dst, enum pq_codec codec,
                                      const uint8_t *src, size_t n, size_t out_len,
                                      const char *path, struct error *err)
{
    if (codec == PQ_UNCOMPRESSED) {
        if (n != out_len) {
            error_fail(err, ERR_CORRUPT,
                       "column '%s': an uncompressed page of %zu bytes claims %zu", path, n,
                       out_len);
            return NULL;
        }
        return src;
    }
    if (out_len > PQ_MAX_PAGE_BYTES || out_len > max_expansion(codec, n)) {
        error_fail(err, ERR_CORRUPT, "column '%s': a %s page of %zu bytes claims %zu", path,
                   pq_codec_name((int)codec), n, out_len);
        return NULL;
    }
    buf_reset(dst);
    if (buf_reserve(dst, out_len) != 0) {
        nomem(err);
        return NULL;
    }
    if (pq_decompress(r->codec, codec, src, n, dst->data, out_len, err) != 0)
        return NULL;
    dst->len = out_len;
    return (const uint8_t *)dst->data;
}

/* Some writers give a flat column's data pages v2 repetition levels all
 * the same: an RLE/bit-packed stream at bit width 0 (the width of max_rep
 * 0), which is nothing but run headers, each run holding no value bytes.
 * Such a stream is skipped when it is exactly that: run headers filling
 * the declared length and covering the page's n levels exactly (a final
 * bit-packed run rounds up to a group of 8). Anything else (a value byte, too few or too
 * many levels) would be levels of another schema than the file's, which
 * could place values in the wrong rows: still corrupt. */
static int skip_zero_width_levels(const uint8_t **p, size_t *avail, size_t len, size_t n,
                                  const char *path, struct error *err)
{
    if (len > *avail)
        return error_fail(err, ERR_CORRUPT, "column '%s': levels run past the page", path);
    uint64_t covered = 0;
    size_t pos = 0;
    bool packed_last = false; /* only a bit-packed run may pad past n */
    while (pos < len) {
        uint64_t h;
        size_t k = varint_decode(*p + pos, len - pos, 64, &h);
        pos += k;
        if (k == 0 || (h >> 1) == 0 || (h >> 1) > (uint64_t)n + 7)
            goto not_zero_width;
        packed_last = h & 1;
        covered += packed_last ? (h >> 1) * 8 : h >> 1;
        if (covered > (uint64_t)n + 7)
            goto not_zero_width;
    }
    if (covered != n && !(packed_last && covered > n && covered - n < 8))
        goto not_zero_width;
    *p += len;
    *avail -= len;
    return 0;
not_zero_width:
    return error_fail(err, ERR_CORRUPT,
                      "column '%s': repetition levels on a flat column that are not %zu levels at "
                      "bit width 0",
                      path, n);
}

/* Decodes a data page's repetition then definition levels (n of each),
 * appending them to the leaf's level arrays. */
static int append_levels(struct leaf_data *d, const uint8_t **p, size_t *avail,
                         const struct pq_page_header *h, size_t n, struct error *err)
{
    int16_t max_def = d->leaf->def_level, max_rep = d->leaf->rep_level;
    bool v2 = h->type == PQ_DATA_PAGE_V2;
    if (max_rep > 0) {
        if (reserve((void **)&d->rep, &d->repcap, d->nlev + n, sizeof *d->rep) != 0)
            return nomem(err);
        if (decode_levels(p, avail, h->rep_encoding, v2, (size_t)h->rep_levels_len, max_rep,
                          d->rep + d->nlev, n, d->leaf->path, err) != 0)
            return -1;
    } else if (v2 && h->rep_levels_len &&
               skip_zero_width_levels(p, avail, (size_t)h->rep_levels_len, n, d->leaf->path, err) !=
                   0) {
        return -1;
    }
    if (max_def > 0) {
        if (reserve((void **)&d->def, &d->defcap, d->nlev + n, sizeof *d->def) != 0)
            return nomem(err);
        if (decode_levels(p, avail, h->def_encoding, v2, (size_t)h->def_levels_len, max_def,
                          d->def + d->nlev, n, d->leaf->path, err) != 0)
            return -1;
    } else if (v2 && h->def_levels_len) {
        return error_fail(err, ERR_CORRUPT, "column '%s': definition levels on a required column",
                          d->leaf->path);
    }
    return 0;
}

/* ---- reading a column chunk ---- */

/* Counts the entries whose definition level reaches the leaf (its
 * non-null values). */
static size_t count_present(const struct leaf_data *d, size_t from, size_t n)
{
    if (!d->def)
        return n;
    uint16_t max = (uint16_t)d->leaf->def_level;
    size_t c = 0;
    for (size_t i = from; i < from + n; i++)
        c += d->def[i] == max;
    return c;
}

static int read_data_page(struct pq_reader *r, struct leaf_data *d, enum pq_codec codec,
                          const struct pq_page_header *h, const uint8_t *body, size_t n,
                          struct error *err)
{
    const char *path = d->leaf->path;
    size_t cs = (size_t)h->compressed_size, us = (size_t)h->uncompressed_size;
    const uint8_t *p;
    size_t avail;
    if (h->type == PQ_DATA_PAGE) {
        p = decompress_into(r, &r->page, codec, body, cs, us, path, err);
        if (!p)
            return -1;
        avail = us;
        if (append_levels(d, &p, &avail, h, n, err) != 0)
            return -1;
    } else {
        /* v2: the levels lead the page uncompressed; only the values are
         * compressed. */
        size_t lv = (size_t)h->rep_levels_len + (size_t)h->def_levels_len;
        if (lv > cs || lv > us)
            return error_fail(err, ERR_CORRUPT, "column '%s': page levels larger than the page",
                              path);
        p = body;
        avail = lv;
        if (append_levels(d, &p, &avail, h, n, err) != 0)
            return -1;
        p = decompress_into(r, &r->values, h->is_compressed ? codec : PQ_UNCOMPRESSED, body + lv,
                            cs - lv, us - lv, path, err);
        if (!p)
            return -1;
        avail = us - lv;
    }
    size_t nonnull = count_present(d, d->nlev, n);
    if (decode_values(r, d, h->encoding, p, avail, nonnull, err) != 0)
        return -1;
    if (within_byte_limit(d, d->bytes.len, 0, 1, err) != 0)
        return -1;
    d->nlev += n;
    return 0;
}

/* Some writers give the column chunks of a file (or row group) of 0 rows
 * offsets inside the leading "PAR1", as they wrote no page. Accepted
 * exactly so: a chunk of 0 values in a row group of 0 rows whose whole
 * claimed range lies within the magic. A chunk claiming values, or bytes
 * past the magic, is still checked as any other. */
static bool empty_chunk_inside_magic(const struct pq_column_meta *m, int64_t num_rows)
{
    int64_t start = m->data_page_offset, size = m->total_compressed_size;
    if (num_rows != 0 || m->num_values != 0 || start < 0 || start >= 4 || size < 0 ||
        size > 4 - start)
        return false;
    return !m->has_dictionary_page_offset ||
           (m->dictionary_page_offset >= 0 && m->dictionary_page_offset < 4);
}

/* parquet-mr before 1.2.9 (PARQUET-816, IMPALA-694) wrote no
 * dictionary_page_offset, pointed data_page_offset at the chunk's
 * dictionary page, and left that page's header out of
 * total_compressed_size: read as declared, the last page runs past the
 * chunk. When the metadata has no dictionary_page_offset and the chunk's
 * first page is a dictionary page, the chunk read (*len, already in
 * r->chunk) grows by that page's header, if the data holds it; read_chunk
 * then accepts the pages ending either at the declared size or exactly at
 * the grown one, nowhere else. */
static int add_unsized_dictionary_header(struct pq_reader *r, const struct pq_column_meta *m,
                                         uint64_t start, uint64_t data_end, size_t *len,
                                         struct error *err)
{
    if (m->has_dictionary_page_offset || *len == 0)
        return 0;
    struct pq_page_header h;
    size_t hl;
    struct error ignored;
    /* A header that does not decode is the page loop's to report. */
    if (pq_decode_page_header(r->chunk.data, *len, NULL, &h, &hl, &ignored) != 0 ||
        h.type != PQ_DICTIONARY_PAGE || hl > data_end - start - *len)
        return 0;
    if (buf_reserve(&r->chunk, *len + hl) != 0)
        return nomem(err);
    if (read_range(&r->src, start + *len, r->chunk.data + *len, hl, err) != 0)
        return -1;
    *len += hl;
    return 0;
}

/* What any read of a column chunk checks first: the chunk is in this
 * file, described, of the leaf's type, of a value count its row group and
 * the reader's limit allow, and in a codec this reader decodes. */
static int check_chunk(const struct pq_reader *r, const struct pq_column_chunk *cc,
                       int64_t num_rows, const struct leaf_data *d, struct error *err)
{
    const char *path = d->leaf->path;
    const struct pq_column_meta *m = &cc->meta;
    if (cc->file_path)
        return error_fail(err, ERR_UNSUPPORTED, "column '%s' is stored in another file (%.100s)",
                          path, cc->file_path);
    if (!cc->has_meta)
        return error_fail(err, ERR_CORRUPT, "column '%s' has no metadata", path);
    if (m->type != d->leaf->el->type)
        return error_fail(err, ERR_CORRUPT, "column '%s' is %s in the schema but %s in its chunk",
                          path, pq_type_name(d->leaf->el->type), pq_type_name(m->type));
    if (m->num_values < 0)
        return error_fail(err, ERR_CORRUPT, "column '%s' holds %lld values", path,
                          (long long)m->num_values);
    if ((uint64_t)m->num_values > r->max_values)
        return error_fail(err, ERR_UNSUPPORTED,
                          "column '%s' holds %lld values in a row group (the limit is %llu)", path,
                          (long long)m->num_values, (unsigned long long)r->max_values);
    if (d->leaf->rep_level == 0 && m->num_values != num_rows)
        return error_fail(err, ERR_CORRUPT, "column '%s' holds %lld values for %lld rows", path,
                          (long long)m->num_values, (long long)num_rows);
    if (!pq_codec_can_read(m->codec))
        return error_fail(
            err, ERR_UNSUPPORTED,
            "column '%s' is compressed with %s, which is not supported (ZSTD, SNAPPY, "
            "GZIP, LZ4_RAW, LZ4, BROTLI and UNCOMPRESSED are)",
            path, pq_codec_name((int)m->codec));
    return 0;
}

/* Where the pages before the footer end. */
static uint64_t data_end(const struct pq_reader *r)
{
    return r->src.size - 8 - r->footer_len;
}

/* The bytes a column chunk's pages take, [*start, *start + *len), checked
 * to lie between the leading magic and the footer. */
static int chunk_extent(const struct pq_reader *r, const struct pq_column_meta *m, const char *path,
                        uint64_t *start, size_t *len, struct error *err)
{
    int64_t first = m->data_page_offset;
    /* Writers that got this field wrong left 0 in it; a dictionary page
     * always precedes the data pages. */
    if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
        m->dictionary_page_offset < first)
        first = m->dictionary_page_offset;
    uint64_t end = data_end(r);
    if (first < 4 || m->total_compressed_size < 0 || (uint64_t)first > end ||
        (uint64_t)m->total_compressed_size > end - (uint64_t)first)
        return error_fail(err, ERR_CORRUPT, "column '%s': its pages lie outside the data", path);
    *start = (uint64_t)first;
    *len = (size_t)m->total_compressed_size;
    return 0;
}

/* Decodes the page header at base + *pos and steps *pos past the page,
 * whose body must end by len (`end` names that place in the error). */
static int next_page(const uint8_t *base, size_t len, size_t *pos, struct pq_page_header *h,
                     const uint8_t **body, const char *path, const char *end, struct error *err)
{
    size_t hl;
    if (pq_decode_page_header(base + *pos, len - *pos, NULL, h, &hl, err) != 0)
        return -1;
    *pos += hl;
    if ((size_t)h->compressed_size > len - *pos)
        return error_fail(err, ERR_CORRUPT, "column '%s': a page runs past %s", path, end);
    *body = base + *pos;
    *pos += (size_t)h->compressed_size;
    return 0;
}

static int decode_dictionary_page(struct pq_reader *r, struct leaf_data *d, enum pq_codec codec,
                                  const struct pq_page_header *h, const uint8_t *body,
                                  struct error *err)
{
    const uint8_t *p = decompress_into(r, &r->page, codec, body, (size_t)h->compressed_size,
                                       (size_t)h->uncompressed_size, d->leaf->path, err);
    if (!p)
        return -1;
    return read_dictionary(r, d, p, (size_t)h->uncompressed_size, h, err);
}

/* Decodes every page of one column chunk into d. */
static int read_chunk(struct pq_reader *r, const struct pq_column_chunk *cc, int64_t num_rows,
                      struct leaf_data *d, struct error *err)
{
    const char *path = d->leaf->path;
    const struct pq_column_meta *m = &cc->meta;
    if (check_chunk(r, cc, num_rows, d, err) != 0)
        return -1;
    if (empty_chunk_inside_magic(m, num_rows))
        return seed_leaf(r, d, m, err);
    uint64_t start = 0;
    size_t len = 0;
    if (chunk_extent(r, m, path, &start, &len, err) != 0 || seed_leaf(r, d, m, err) != 0)
        return -1;
    buf_reset(&r->chunk);
    if (buf_reserve(&r->chunk, len) != 0)
        return nomem(err);
    if (read_range(&r->src, start, r->chunk.data, len, err) != 0)
        return -1;
    size_t declared = len;
    if (add_unsized_dictionary_header(r, m, start, data_end(r), &len, err) != 0)
        return -1;
    const uint8_t *base = (const uint8_t *)r->chunk.data;

    size_t pos = 0, want = (size_t)m->num_values;
    while (d->nlev < want) {
        if (pos >= len)
            return error_fail(err, ERR_CORRUPT,
                              "column '%s': its pages hold %zu values, the chunk claims %zu", path,
                              d->nlev, want);
        struct pq_page_header h;
        const uint8_t *body = NULL;
        if (next_page(base, len, &pos, &h, &body, path, "its chunk", err) != 0)
            return -1;
        if (h.type == PQ_DICTIONARY_PAGE) {
            if (d->nlev > 0)
                return error_fail(err, ERR_CORRUPT,
                                  "column '%s': a dictionary page after data pages", path);
            if (decode_dictionary_page(r, d, m->codec, &h, body, err) != 0)
                return -1;
        } else if (h.type == PQ_DATA_PAGE || h.type == PQ_DATA_PAGE_V2) {
            size_t n = (size_t)h.num_values;
            if (n > want - d->nlev)
                return error_fail(err, ERR_CORRUPT,
                                  "column '%s': its pages hold more values than the chunk claims",
                                  path);
            if (read_data_page(r, d, m->codec, &h, body, n, err) != 0)
                return -1;
        }
        /* Index pages and page types added after this reader are skipped,
         * as the format asks. */
    }
    /* With a dictionary header added, the pages end where the declared
     * size does (it was right) or exactly at the added header's end (the
     * writer bug); anywhere between, they read bytes of whatever follows. */
    if (len != declared && pos > declared && pos != len)
        return error_fail(err, ERR_CORRUPT,
                          "column '%s': its pages end %zu bytes past its declared size, which a "
                          "dictionary page header of %zu bytes does not explain",
                          path, pos - declared, len - declared);
    return 0;
}

/* ---- the page index ---- */

/* Reads a page index structure, which lies between the leading magic and
 * the footer, into a buffer the caller frees. */
static int read_index_bytes(const struct pq_reader *r, int64_t off, int32_t len, const char *what,
                            const char *path, uint8_t **out, struct error *err)
{
    uint64_t end = data_end(r);
    if (off < 4 || len <= 0 || (uint64_t)off > end || (uint64_t)len > end - (uint64_t)off ||
        len > PQ_MAX_FOOTER_BYTES)
        return error_fail(err, ERR_CORRUPT, "column '%s': its %s [%lld, +%d) lies outside the data",
                          path, what, (long long)off, (int)len);
    uint8_t *b = malloc((size_t)len);
    if (!b)
        return nomem(err);
    if (read_range(&r->src, (uint64_t)off, b, (size_t)len, err) != 0) {
        free(b);
        return -1;
    }
    *out = b;
    return 0;
}

/* An offset index the reader may follow: a page for each run of rows,
 * first rows rising strictly from 0 and below the row group's count, each
 * page inside the chunk, in file order and apart. */
static int check_offset_index(const struct pq_offset_index *oi, int64_t num_rows, uint64_t start,
                              size_t len, const char *path, struct error *err)
{
    if ((num_rows == 0) != (oi->npages == 0))
        return error_fail(err, ERR_CORRUPT,
                          "column '%s': its offset index lists %zu pages for %lld rows", path,
                          oi->npages, (long long)num_rows);
    uint64_t end = start + len;
    for (size_t i = 0; i < oi->npages; i++) {
        const struct pq_page_location *pl = &oi->pages[i], *prev = i ? pl - 1 : NULL;
        if (pl->compressed_page_size <= 0 || pl->offset < 0 || (uint64_t)pl->offset < start ||
            (uint64_t)pl->offset > end ||
            (uint64_t)pl->compressed_page_size > end - (uint64_t)pl->offset)
            return error_fail(err, ERR_CORRUPT,
                              "column '%s': page %zu of its offset index [%lld, +%d) is empty or "
                              "outside its chunk [%llu, +%zu)",
                              path, i, (long long)pl->offset, (int)pl->compressed_page_size,
                              (unsigned long long)start, len);
        if (prev && pl->offset < prev->offset + prev->compressed_page_size)
            return error_fail(err, ERR_CORRUPT,
                              "column '%s': page %zu of its offset index overlaps or precedes "
                              "page %zu",
                              path, i, i - 1);
        if (!prev && pl->first_row_index != 0)
            return error_fail(err, ERR_CORRUPT,
                              "column '%s': the first page of its offset index starts at row %lld",
                              path, (long long)pl->first_row_index);
        if (prev && pl->first_row_index <= prev->first_row_index)
            return error_fail(err, ERR_CORRUPT,
                              "column '%s': page %zu of its offset index starts at row %lld, page "
                              "%zu at %lld",
                              path, i, (long long)pl->first_row_index, i - 1,
                              (long long)prev->first_row_index);
        if (pl->first_row_index >= num_rows)
            return error_fail(
                err, ERR_CORRUPT,
                "column '%s': page %zu of its offset index starts at row %lld of %lld", path, i,
                (long long)pl->first_row_index, (long long)num_rows);
    }
    return 0;
}

/* Decodes and checks the offset index of column chunk l of rg into a;
 * *has is false when the chunk has none. */
static int load_offset_index(const struct pq_reader *r, const struct pq_row_group *rg, int l,
                             struct arena *a, bool *has, struct pq_offset_index *oi,
                             struct error *err)
{
    const struct pq_column_chunk *cc = &rg->columns[l];
    const char *path = r->schema.leaves[l]->path;
    *has = false;
    memset(oi, 0, sizeof *oi);
    if (!cc->has_offset_index)
        return 0;
    if (!cc->has_meta)
        return error_fail(err, ERR_CORRUPT, "column '%s' has no metadata", path);
    uint8_t *bytes;
    if (read_index_bytes(r, cc->offset_index_offset, cc->offset_index_length, "offset index", path,
                         &bytes, err) != 0)
        return -1;
    int rc = pq_decode_offset_index(bytes, (size_t)cc->offset_index_length, a, oi, err);
    free(bytes);
    if (rc != 0)
        return error_prefix(err, "column '%s': ", path);
    uint64_t start = 0;
    size_t len = 0;
    if (oi->npages && chunk_extent(r, &cc->meta, path, &start, &len, err) != 0)
        return -1;
    if (check_offset_index(oi, rg->num_rows, start, len, path, err) != 0)
        return -1;
    *has = true;
    return 0;
}

/* A column index the reader hands out: an entry per page of the offset
 * index in every list, a boundary order the format knows, bounds of the
 * physical type's width where a page holds values, and null counts that
 * are counts. */
static int check_column_index(const struct pq_column_index *ci, size_t npages, size_t width,
                              const char *path, struct error *err)
{
    if (ci->npages != npages)
        return error_fail(err, ERR_CORRUPT,
                          "column '%s': its column index lists %zu pages, its offset index %zu",
                          path, ci->npages, npages);
    if (ci->boundary_order != PQ_UNORDERED && ci->boundary_order != PQ_ASCENDING &&
        ci->boundary_order != PQ_DESCENDING)
        return error_fail(err, ERR_CORRUPT, "column '%s': its column index has boundary order %d",
                          path, (int)ci->boundary_order);
    for (size_t i = 0; i < npages; i++) {
        if (!ci->null_pages[i] && width && (ci->min_lens[i] != width || ci->max_lens[i] != width))
            return error_fail(err, ERR_CORRUPT,
                              "column '%s': page %zu of its column index has bounds of %u and %u "
                              "bytes for %zu-byte values",
                              path, i, ci->min_lens[i], ci->max_lens[i], width);
        if (ci->null_counts && ci->null_counts[i] < 0)
            return error_fail(err, ERR_CORRUPT,
                              "column '%s': page %zu of its column index has %lld nulls", path, i,
                              (long long)ci->null_counts[i]);
    }
    return 0;
}

int pq_reader_page_index(struct pq_reader *r, size_t g, int leaf, struct arena *a,
                         struct pq_page_index *out, struct error *err)
{
    memset(out, 0, sizeof *out);
    if (g >= r->meta.nrow_groups || leaf < 0 || leaf >= r->schema.nleaves)
        return error_fail(err, ERR_INVALID, "row group %zu, column %d: the file has %zu and %d", g,
                          leaf, r->meta.nrow_groups, r->schema.nleaves);
    const struct pq_row_group *rg = &r->meta.row_groups[g];
    const struct pq_column_chunk *cc = &rg->columns[leaf];
    const char *path = r->schema.leaves[leaf]->path;
    out->num_rows = rg->num_rows;
    if (load_offset_index(r, rg, leaf, a, &out->has_offsets, &out->offsets, err) != 0)
        return -1;
    /* Bounds are of use only for pages the offset index places in rows. */
    if (!out->has_offsets || !cc->has_column_index)
        return 0;
    uint8_t *bytes;
    if (read_index_bytes(r, cc->column_index_offset, cc->column_index_length, "column index", path,
                         &bytes, err) != 0)
        return -1;
    int rc = pq_decode_column_index(bytes, (size_t)cc->column_index_length, a, &out->bounds, err);
    free(bytes);
    if (rc != 0)
        return error_prefix(err, "column '%s': ", path);
    if (check_column_index(&out->bounds, out->offsets.npages, (size_t)r->types[leaf].width, path,
                           err) != 0)
        return -1;
    out->has_bounds = true;
    return 0;
}

void pq_page_index_rows(const struct pq_page_index *pi, size_t p, struct pq_row_range *rows)
{
    const struct pq_offset_index *oi = &pi->offsets;
    rows->begin = oi->pages[p].first_row_index;
    rows->end = p + 1 < oi->npages ? oi->pages[p + 1].first_row_index : pi->num_rows;
}

size_t pq_page_index_ranges(const struct pq_page_index *pi, const bool *keep,
                            struct pq_row_range *out)
{
    size_t n = 0;
    for (size_t p = 0; p < pi->offsets.npages; p++) {
        if (!keep[p])
            continue;
        struct pq_row_range rows;
        pq_page_index_rows(pi, p, &rows);
        if (n && out[n - 1].end == rows.begin)
            out[n - 1].end = rows.end;
        else
            out[n++] = rows;
    }
    return n;
}

/* ---- reading selected rows ---- */

/* The rows of a row group a read keeps: sorted, disjoint ranges. */
struct row_selection {
    const struct pq_row_range *ranges;
    size_t n;
    int64_t rows; /* their total */
};

/* A page as decoded into a leaf: its first row, and where its level
 * entries start. */
struct decoded_page {
    int64_t row;
    size_t lev;
};

/* Keeps, of the entries decoded into d (pages in row order), those of the
 * selected rows: levels and values move down in place, as each moves to
 * an index at most its own. */
static void keep_selected(struct leaf_data *d, const struct decoded_page *pages, size_t npages,
                          const struct row_selection *sel)
{
    bool bytes = d->leaf->el->type == PQ_BYTE_ARRAY;
    size_t width = (size_t)d->type.width;
    uint16_t max_def = (uint16_t)d->leaf->def_level;
    char *fixed = d->fixed.data, *data = d->bytes.data;
    size_t kept = 0, value = 0, kept_values = 0, k = 0;
    int64_t at = bytes ? d->offsets[0] : 0; /* where the next kept bytes go */
    for (size_t p = 0; p < npages; p++) {
        size_t end = p + 1 < npages ? pages[p + 1].lev : d->nlev;
        int64_t row = pages[p].row - 1;
        for (size_t i = pages[p].lev; i < end; i++) {
            if (!d->rep || d->rep[i] == 0)
                row++;
            while (k < sel->n && sel->ranges[k].end <= row)
                k++;
            bool keep = k < sel->n && sel->ranges[k].begin <= row;
            bool has_value = !d->def || d->def[i] == max_def;
            if (keep) {
                if (d->def)
                    d->def[kept] = d->def[i];
                if (d->rep)
                    d->rep[kept] = d->rep[i];
                kept++;
            }
            if (keep && has_value) {
                if (bytes) {
                    int64_t b = d->offsets[value], e = d->offsets[value + 1];
                    memmove(data + at, data + b, (size_t)(e - b));
                    at += e - b;
                    d->offsets[kept_values + 1] = at;
                } else if (kept_values != value) {
                    memmove(fixed + kept_values * width, fixed + value * width, width);
                }
                kept_values++;
            }
            value += has_value;
        }
    }
    d->nlev = kept;
    d->nvalues = kept_values;
    if (bytes)
        d->bytes.len = (size_t)at;
    else
        d->fixed.len = kept_values * width;
}

/* Marks the pages that hold a selected row; returns how many do. */
static size_t pages_touched(const struct pq_page_index *pi, const struct row_selection *sel,
                            bool *touched)
{
    size_t k = 0, n = 0;
    for (size_t p = 0; p < pi->offsets.npages; p++) {
        struct pq_row_range rows;
        pq_page_index_rows(pi, p, &rows);
        while (k < sel->n && sel->ranges[k].end <= rows.begin)
            k++;
        touched[p] = k < sel->n && sel->ranges[k].begin < rows.end;
        n += touched[p];
    }
    return n;
}

/* Decodes what a chunk holds before its first listed data page: its
 * dictionary page, if any. Index pages and page types added after this
 * reader are skipped; a data page there is one the offset index left
 * out. */
static int read_leading_pages(struct pq_reader *r, const struct pq_column_meta *m, uint64_t start,
                              uint64_t first_page, struct leaf_data *d, struct error *err)
{
    const char *path = d->leaf->path;
    size_t len = (size_t)(first_page - start);
    buf_reset(&r->chunk);
    if (len == 0)
        return 0;
    if (buf_reserve(&r->chunk, len) != 0)
        return nomem(err);
    if (read_range(&r->src, start, r->chunk.data, len, err) != 0)
        return -1;
    const uint8_t *base = (const uint8_t *)r->chunk.data;
    for (size_t pos = 0; pos < len;) {
        struct pq_page_header h;
        const uint8_t *body = NULL;
        if (next_page(base, len, &pos, &h, &body, path, "the first page its offset index lists",
                      err) != 0)
            return -1;
        if (h.type == PQ_DICTIONARY_PAGE) {
            if (decode_dictionary_page(r, d, m->codec, &h, body, err) != 0)
                return -1;
        } else if (h.type == PQ_DATA_PAGE || h.type == PQ_DATA_PAGE_V2) {
            return error_fail(err, ERR_CORRUPT,
                              "column '%s': a data page its offset index does not list", path);
        }
    }
    return 0;
}

/* Decodes one data page the offset index lists (page, its bytes in full)
 * and checks it against the index: it is a data page, of the size listed,
 * starting a row and holding exactly the rows listed. */
static int read_listed_page(struct pq_reader *r, const struct pq_column_meta *m,
                            const uint8_t *page, size_t size, const struct pq_row_range *rows,
                            struct leaf_data *d, struct error *err)
{
    const char *path = d->leaf->path;
    struct pq_page_header h;
    size_t hl;
    if (pq_decode_page_header(page, size, NULL, &h, &hl, err) != 0)
        return -1;
    if (h.type != PQ_DATA_PAGE && h.type != PQ_DATA_PAGE_V2)
        return error_fail(err, ERR_CORRUPT,
                          "column '%s': the page its offset index lists at row %lld is not a data "
                          "page",
                          path, (long long)rows->begin);
    if ((size_t)h.compressed_size != size - hl)
        return error_fail(err, ERR_CORRUPT,
                          "column '%s': the page at row %lld takes %zu bytes, its offset index "
                          "says %zu",
                          path, (long long)rows->begin, hl + (size_t)h.compressed_size, size);
    size_t n = (size_t)h.num_values, first = d->nlev;
    if (n > (size_t)m->num_values - d->nlev)
        return error_fail(err, ERR_CORRUPT,
                          "column '%s': its pages hold more values than the chunk claims", path);
    if (read_data_page(r, d, m->codec, &h, page + hl, n, err) != 0)
        return -1;
    int64_t held = (int64_t)n;
    if (d->rep) {
        held = 0;
        for (size_t i = first; i < d->nlev; i++)
            held += d->rep[i] == 0;
        if (n && d->rep[first] != 0)
            return error_fail(err, ERR_CORRUPT,
                              "column '%s': the page at row %lld starts inside a row", path,
                              (long long)rows->begin);
    }
    if (held != rows->end - rows->begin)
        return error_fail(err, ERR_CORRUPT,
                          "column '%s': the page at row %lld holds %lld rows, its offset index "
                          "says %lld",
                          path, (long long)rows->begin, (long long)held,
                          (long long)(rows->end - rows->begin));
    return 0;
}

/* Sizes the leaf's buffers for the share of the chunk the touched pages
 * take, rather than for all of it. */
static int seed_for_pages(struct pq_reader *r, struct leaf_data *d, const struct pq_column_meta *m,
                          const struct pq_offset_index *oi, const bool *touched, struct error *err)
{
    uint64_t all = 0, some = 0;
    for (size_t p = 0; p < oi->npages; p++) {
        all += (uint64_t)oi->pages[p].compressed_page_size;
        some += touched[p] ? (uint64_t)oi->pages[p].compressed_page_size : 0;
    }
    double share = all ? (double)some / (double)all : 1.0;
    struct pq_column_meta part = *m;
    part.num_values = (int64_t)((double)m->num_values * share) + 1;
    part.total_compressed_size = (int64_t)((double)m->total_compressed_size * share) + 1;
    part.total_uncompressed_size = (int64_t)((double)m->total_uncompressed_size * share) + 1;
    return seed_leaf(r, d, &part, err);
}

/* Decodes the pages of chunk cc that hold selected rows, by its offset
 * index, then keeps the selected rows. Consecutive pages are read at
 * once. */
static int read_indexed_pages(struct pq_reader *r, const struct pq_column_chunk *cc,
                              const struct pq_page_index *pi, const struct row_selection *sel,
                              struct leaf_data *d, struct pq_range_read_stats *st,
                              struct error *err)
{
    const struct pq_column_meta *m = &cc->meta;
    const struct pq_offset_index *oi = &pi->offsets;
    size_t np = oi->npages;
    bool *touched = calloc(np ? np : 1, sizeof *touched);
    struct decoded_page *decoded = calloc(np ? np : 1, sizeof *decoded);
    if (!touched || !decoded) {
        free(touched);
        free(decoded);
        return nomem(err);
    }
    size_t ndecoded = 0, ntouched = pages_touched(pi, sel, touched);
    int64_t rows_decoded = 0; /* of the pages touched */
    uint64_t start = 0;
    size_t len = 0;
    int rc = seed_for_pages(r, d, m, oi, touched, err);
    if (rc == 0 && ntouched &&
        (chunk_extent(r, m, d->leaf->path, &start, &len, err) != 0 ||
         read_leading_pages(r, m, start, (uint64_t)oi->pages[0].offset, d, err) != 0))
        rc = -1;
    for (size_t p = 0; rc == 0 && p < np; p++) {
        if (!touched[p])
            continue;
        size_t q = p;
        while (q + 1 < np && touched[q + 1])
            q++;
        uint64_t from = (uint64_t)oi->pages[p].offset;
        size_t span = (size_t)((uint64_t)oi->pages[q].offset +
                               (uint64_t)oi->pages[q].compressed_page_size - from);
        buf_reset(&r->chunk);
        if (buf_reserve(&r->chunk, span) != 0) {
            rc = nomem(err);
            break;
        }
        if (read_range(&r->src, from, r->chunk.data, span, err) != 0) {
            rc = -1;
            break;
        }
        for (; rc == 0 && p <= q; p++) {
            struct pq_row_range rows;
            pq_page_index_rows(pi, p, &rows);
            decoded[ndecoded++] = (struct decoded_page){rows.begin, d->nlev};
            rows_decoded += rows.end - rows.begin;
            const uint8_t *page = (const uint8_t *)r->chunk.data + (oi->pages[p].offset - from);
            rc = read_listed_page(r, m, page, (size_t)oi->pages[p].compressed_page_size, &rows, d,
                                  err);
        }
    }
    if (rc == 0) {
        /* The selection is within the pages touched: when it has as many
         * rows, it is those pages whole and every entry stays. */
        if (rows_decoded != sel->rows)
            keep_selected(d, decoded, ndecoded, sel);
        st->pages_read += ntouched;
        st->pages_skipped += np - ntouched;
    }
    free(touched);
    free(decoded);
    return rc;
}

/* Decodes the selected rows of column chunk l of rg into d: by its offset
 * index when it has one, else the whole chunk. */
static int read_leaf_rows(struct pq_reader *r, const struct pq_row_group *rg, int l,
                          const struct row_selection *sel, struct leaf_data *d,
                          struct pq_range_read_stats *st, struct error *err)
{
    const struct pq_column_chunk *cc = &rg->columns[l];
    if (check_chunk(r, cc, rg->num_rows, d, err) != 0)
        return -1;
    struct arena a;
    arena_init(&a, PQ_MAX_FOOTER_ARENA_BYTES);
    struct pq_page_index pi = {.num_rows = rg->num_rows};
    int rc = load_offset_index(r, rg, l, &a, &pi.has_offsets, &pi.offsets, err);
    if (rc == 0 && pi.has_offsets) {
        rc = read_indexed_pages(r, cc, &pi, sel, d, st, err);
    } else if (rc == 0) {
        struct decoded_page whole = {0, 0};
        rc = read_chunk(r, cc, rg->num_rows, d, err);
        if (rc == 0) {
            keep_selected(d, &whole, 1, sel);
            st->chunks_read_whole++;
        }
    }
    arena_free(&a);
    return rc;
}

/* ---- assembling Arrow arrays from levels ---- */

static inline uint16_t level_at(const uint16_t *levels, size_t i)
{
    return levels ? levels[i] : 0;
}

/* The slots a node has in this row group, found from one leaf beneath it
 * (every leaf under a node carries the same structure down to it). */
struct slots {
    size_t n;
    uint8_t *valid; /* Arrow validity bitmap, or NULL when every slot is valid */
    size_t valid_cap;
    int64_t nulls;
    int32_t *offsets; /* LIST/MAP: n + 1 entries */
    size_t offsets_cap;
};

static void slots_free(struct block_pool *pool, struct slots *s)
{
    block_pool_put(pool, s->valid, s->valid_cap);
    block_pool_put(pool, s->offsets, s->offsets_cap);
}

static int find_slots(struct block_pool *pool, const struct pq_node *x, const struct leaf_data *d,
                      int16_t valid_def, bool track_validity, struct slots *s, struct error *err)
{
    memset(s, 0, sizeof *s);
    bool list = x->kind == PQN_LIST || x->kind == PQN_MAP;
    const struct pq_node *el = list ? x->element : NULL;
    if (track_validity) {
        if (!(s->valid = block_pool_get(pool, d->nlev / 8 + 1, &s->valid_cap)))
            return nomem(err);
        memset(s->valid, 0, d->nlev / 8 + 1);
    }
    if (list &&
        !(s->offsets = block_pool_get(pool, (d->nlev + 1) * sizeof *s->offsets, &s->offsets_cap))) {
        slots_free(pool, s);
        return nomem(err);
    }
    size_t n = 0, children = 0;
    if (!d->rep && !list) {
        /* Flat: every entry is a slot. */
        n = d->nlev;
        if (track_validity) {
            if (!d->def || valid_def == 0) {
                s->nulls = 0;
            } else {
                uint8_t *v = s->valid;
                for (size_t i = 0; i < n; i++) {
                    bool ok = d->def[i] >= valid_def;
                    v[i >> 3] = (uint8_t)(v[i >> 3] | (ok << (i & 7)));
                    s->nulls += !ok;
                }
            }
        }
    } else {
        for (size_t i = 0; i < d->nlev; i++) {
            uint16_t rep = level_at(d->rep, i), def = level_at(d->def, i);
            if (rep <= x->slot_rep && def >= x->slot_def) {
                if (track_validity) {
                    if (def >= valid_def)
                        s->valid[n >> 3] = (uint8_t)(s->valid[n >> 3] | (1u << (n & 7)));
                    else
                        s->nulls++;
                }
                if (list)
                    s->offsets[n] = (int32_t)children;
                n++;
            }
            if (list && rep <= el->slot_rep && def >= el->slot_def)
                children++;
        }
        if (list)
            s->offsets[n] = (int32_t)children;
    }
    s->n = n;
    if (track_validity && s->nulls == 0) {
        block_pool_put(pool, s->valid, s->valid_cap);
        s->valid = NULL;
        s->valid_cap = 0;
    }
    return 0;
}

static void put_i128(uint8_t *dst, int64_t v)
{
    int64_t hi = v < 0 ? -1 : 0;
    memcpy(dst, &v, 8);
    memcpy(dst + 8, &hi, 8);
}

/* A big-endian two's-complement integer of n (1..16) bytes as a
 * little-endian 128-bit one. */
static void be_to_i128(uint8_t *dst, const uint8_t *src, size_t n)
{
    uint8_t fill = n && (src[0] & 0x80) ? 0xff : 0;
    for (size_t i = 0; i < 16; i++)
        dst[i] = i < n ? src[n - 1 - i] : fill;
}

/* An INT96 timestamp as a count of `unit` since the Unix epoch, floored
 * (digits below the unit are dropped); -1 when that does not fit an
 * int64. */
static int int96_to_unit(const uint8_t *v, enum pq_time_unit unit, int64_t *out)
{
    /* Nanoseconds of the day, then the Julian day number. */
    int64_t nanos;
    int32_t jd;
    memcpy(&nanos, v, 8);
    memcpy(&jd, v + 8, 4);
    const int64_t unix_epoch_jd = 2440588, ns_per_day = 86400LL * 1000000000LL;
    const int64_t per = unit == PQ_MILLIS ? 1000000 : unit == PQ_MICROS ? 1000 : 1;
    /* A day is a whole number of any unit: floor the nanoseconds alone. */
    int64_t in_day = nanos / per - (nanos % per < 0);
    int64_t days;
    if (__builtin_mul_overflow((int64_t)jd - unix_epoch_jd, ns_per_day / per, &days) ||
        __builtin_add_overflow(days, in_day, out))
        return -1;
    return 0;
}

static const char *unit_name(enum pq_time_unit unit)
{
    return unit == PQ_MILLIS ? "millisecond" : unit == PQ_MICROS ? "microsecond" : "nanosecond";
}

/* INTERVAL (months, days, milliseconds: unsigned, little-endian) as
 * Arrow's month_day_nano (int32, int32, int64). Months or days past
 * INT32_MAX do not fit and are refused rather than wrapped. */
static int put_interval(const struct leaf_data *d, const uint8_t *v, uint8_t *o, struct error *err)
{
    uint32_t months = le_load32(v), days = le_load32(v + 4), millis = le_load32(v + 8);
    if (months > INT32_MAX || days > INT32_MAX)
        return error_fail(
            err, ERR_UNSUPPORTED,
            "column '%s': an INTERVAL of %u months and %u days (2^31-1 each are read)",
            d->leaf->path, months, days);
    int32_t m = (int32_t)months, dd = (int32_t)days;
    int64_t nanos = (int64_t)millis * 1000000;
    memcpy(o, &m, 4);
    memcpy(o + 4, &dd, 4);
    memcpy(o + 8, &nanos, 8);
    return 0;
}

/* Writes value k of the dense store as Arrow value s of a fixed-width or
 * boolean output. */
static int convert_fixed(const struct leaf_data *d, size_t k, uint8_t *out, size_t s,
                         struct error *err)
{
    const struct leaf_type *lt = &d->type;
    const uint8_t *v = (const uint8_t *)d->fixed.data + k * (size_t)lt->width;
    uint8_t *o = out + s * (size_t)lt->out_width;
    switch (lt->conv) {
    case LC_BOOL:
        if (*v)
            out[s >> 3] = (uint8_t)(out[s >> 3] | (1u << (s & 7)));
        return 0;
    case LC_COPY: memcpy(o, v, (size_t)lt->width); return 0;
    case LC_I32_TO_I8:
    case LC_I32_TO_I16:
    case LC_I32_TO_DEC: {
        int32_t x;
        memcpy(&x, v, 4);
        if (lt->conv == LC_I32_TO_I8)
            *o = (uint8_t)x;
        else if (lt->conv == LC_I32_TO_I16) {
            uint16_t y = (uint16_t)x;
            memcpy(o, &y, 2);
        } else
            put_i128(o, x);
        return 0;
    }
    case LC_I64_TO_DEC: {
        int64_t x;
        memcpy(&x, v, 8);
        put_i128(o, x);
        return 0;
    }
    case LC_BYTES_TO_DEC: be_to_i128(o, v, (size_t)lt->width); return 0;
    case LC_INT96: {
        int64_t t;
        if (int96_to_unit(v, lt->unit, &t) != 0)
            return error_fail(err, ERR_UNSUPPORTED,
                              "column '%s': an INT96 timestamp outside the %s range", d->leaf->path,
                              unit_name(lt->unit));
        memcpy(o, &t, 8);
        return 0;
    }
    case LC_INTERVAL: return put_interval(d, v, o, err);
    case LC_BYTES: break;
    }
    return error_fail(err, ERR_INVALID, "column '%s': internal conversion error", d->leaf->path);
}

/* Lays the dense values of width w out one per slot of out, present[]
 * saying which slots hold one, the others zeroed: each run of present
 * slots is one copy (a column with few nulls has long runs). */
static void scatter_fixed(uint8_t *out, const uint8_t *values, const uint8_t *present,
                          size_t nslots, size_t w)
{
    size_t s = 0, k = 0;
    while (s < nslots) {
        size_t end = s;
        while (end < nslots && arrow_bit(present, (int64_t)end))
            end++;
        if (end > s) { /* values is NULL when there are none */
            memcpy(out + s * w, values + k * w, (end - s) * w);
            k += end - s;
        }
        s = end;
        while (end < nslots && !arrow_bit(present, (int64_t)end))
            end++;
        memset(out + s * w, 0, (end - s) * w);
        s = end;
    }
}

/* The leaf's values laid out one per slot (present[] says which slots hold
 * one; NULL: all). */
static int leaf_values(struct block_pool *pool, struct leaf_data *d, const uint8_t *present,
                       size_t nslots, struct ArrowArray *a, struct error *err)
{
    const struct leaf_type *lt = &d->type;
    const char *path = d->leaf->path;
    if (lt->conv == LC_BYTES) {
        /* The bytes were decoded from offset 0 of their buffer: it is the
         * Arrow data buffer as it stands; the offsets narrow to 32 bits. */
        int64_t total = d->nvalues ? d->offsets[d->nvalues] : 0;
        if (total > INT32_MAX)
            return error_fail(err, ERR_UNSUPPORTED,
                              "column '%s' holds more than 2 GiB of bytes in one row group", path);
        size_t cap;
        int32_t *off = block_pool_get(pool, (nslots + 1) * sizeof *off, &cap);
        if (!off)
            return nomem(err);
        arrow_array_own_pooled(a, 1, off, cap);
        off[0] = 0;
        if (!present) {
            for (size_t k = 0; k < nslots; k++)
                off[k + 1] = (int32_t)d->offsets[k + 1];
        } else {
            size_t k = 0;
            for (size_t s = 0; s < nslots; s++) {
                if (arrow_bit(present, (int64_t)s))
                    k++;
                off[s + 1] = (int32_t)d->offsets[k];
            }
        }
        arrow_array_own_pooled(a, 2, d->bytes.data, d->bytes.cap);
        d->bytes.data = NULL;
        d->bytes.len = d->bytes.cap = 0;
        return 0;
    }
    if (lt->conv == LC_COPY && !present) {
        /* The dense values are the Arrow buffer. */
        arrow_array_own_pooled(a, 1, d->fixed.data, d->fixed.cap);
        d->fixed.data = NULL;
        d->fixed.len = d->fixed.cap = 0;
        return 0;
    }
    /* Null slots cost the file nothing: a wide FIXED_LEN_BYTE_ARRAY must
     * not turn a run of nulls into an allocation of any size. */
    if (lt->conv != LC_BOOL && within_byte_limit(d, 0, nslots, (size_t)lt->out_width, err) != 0)
        return -1;
    size_t bytes = lt->conv == LC_BOOL ? nslots / 8 + 1 : nslots * (size_t)lt->out_width + 1;
    size_t cap;
    uint8_t *out = block_pool_get(pool, bytes, &cap);
    if (!out)
        return nomem(err);
    arrow_array_own_pooled(a, 1, out, cap);
    if (lt->conv == LC_COPY) {
        scatter_fixed(out, (const uint8_t *)d->fixed.data, present, nslots, (size_t)lt->width);
        return 0;
    }
    memset(out, 0, bytes);
    if (lt->conv == LC_BYTES_TO_DEC && d->leaf->el->type == PQ_BYTE_ARRAY) {
        size_t k = 0;
        for (size_t s = 0; s < nslots; s++) {
            if (present && !arrow_bit(present, (int64_t)s))
                continue;
            int64_t b = d->offsets[k], e = d->offsets[k + 1];
            k++;
            if (e - b < 1 || e - b > 16)
                return error_fail(err, ERR_UNSUPPORTED,
                                  "column '%s': a %lld-byte decimal (1 to 16 are read)", path,
                                  (long long)(e - b));
            be_to_i128(out + s * 16, (const uint8_t *)d->bytes.data + b, (size_t)(e - b));
        }
        return 0;
    }
    size_t k = 0;
    for (size_t s = 0; s < nslots; s++) {
        if (present && !arrow_bit(present, (int64_t)s))
            continue;
        if (convert_fixed(d, k++, out, s, err) != 0)
            return -1;
    }
    return 0;
}

static int build_node(struct pq_reader *r, const struct pq_node *x, struct ArrowArray *a,
                      struct error *err);

/* An array of the reader's pool: its buffers go back there on release. */
static int init_array(struct pq_reader *r, struct ArrowArray *a, int64_t nbuffers,
                      int64_t nchildren, struct error *err)
{
    if (arrow_array_init(a, nbuffers, nchildren) != 0)
        return nomem(err);
    arrow_array_use_pool(a, r->pool);
    return 0;
}

/* An UNKNOWN leaf's slots: all null. A leaf that cannot say null
 * (REQUIRED, or the elements of a bare repeated field) holds placeholders
 * (parquet-rs writes a non-nullable Arrow null column so); an OPTIONAL one
 * that defines a value contradicts its type, and that value would be
 * dropped, not read. */
static int null_leaf(struct pq_reader *r, const struct pq_node *x, size_t nslots, size_t nvalues,
                     struct ArrowArray *a, struct error *err)
{
    if (nvalues != 0 && x->el->repetition == PQ_OPTIONAL)
        return error_fail(err, ERR_CORRUPT,
                          "column '%s' has the null (UNKNOWN) type but holds %zu values", x->path,
                          nvalues);
    if (init_array(r, a, 0, 0, err) != 0)
        return -1;
    a->length = (int64_t)nslots;
    a->null_count = a->length;
    return 0;
}

static int build_leaf(struct pq_reader *r, const struct pq_node *x, struct ArrowArray *a,
                      struct error *err)
{
    struct leaf_data *d = &r->leaf[x->leaf_index];
    /* Slots whose entry reaches the leaf hold a value; the others are
     * null, or placeholders under a null parent when the leaf is required. */
    struct slots present;
    if (find_slots(r->pool, x, d, x->def_level, true, &present, err) != 0)
        return -1;
    size_t nvalues = present.n - (size_t)present.nulls;
    if (nvalues != d->nvalues) {
        slots_free(r->pool, &present);
        return error_fail(err, ERR_CORRUPT, "column '%s': %zu values for %zu defined entries",
                          x->path, d->nvalues, nvalues);
    }
    if (d->type.null_only) {
        slots_free(r->pool, &present);
        return null_leaf(r, x, present.n, nvalues, a, err);
    }
    if (init_array(r, a, d->type.conv == LC_BYTES ? 3 : 2, 0, err) != 0) {
        slots_free(r->pool, &present);
        return -1;
    }
    a->length = (int64_t)present.n;
    int rc = leaf_values(r->pool, d, present.valid, present.n, a, err);
    if (rc == 0 && x->arrow_nullable && present.valid) {
        arrow_array_own_pooled(a, 0, present.valid, present.valid_cap);
        a->null_count = present.nulls;
        present.valid = NULL;
    }
    slots_free(r->pool, &present);
    return rc;
}

static int build_node(struct pq_reader *r, const struct pq_node *x, struct ArrowArray *a,
                      struct error *err)
{
    if (x->kind == PQN_LEAF)
        return build_leaf(r, x, a, err);
    const struct leaf_data *d = &r->leaf[x->first_leaf];
    struct slots s;
    if (find_slots(r->pool, x, d, x->null_def, x->arrow_nullable, &s, err) != 0)
        return -1;
    bool list = x->kind != PQN_STRUCT;
    int64_t nchildren = list ? 1 : x->nchildren;
    if (init_array(r, a, list ? 2 : 1, nchildren, err) != 0) {
        slots_free(r->pool, &s);
        return -1;
    }
    a->length = (int64_t)s.n;
    a->null_count = s.nulls;
    arrow_array_own_pooled(a, 0, s.valid, s.valid_cap);
    if (list)
        arrow_array_own_pooled(a, 1, s.offsets, s.offsets_cap);
    for (int64_t i = 0; i < nchildren; i++) {
        const struct pq_node *c = list ? x->element : x->children[i];
        if (build_node(r, c, a->children[i], err) != 0)
            return -1;
        int64_t want = list ? s.offsets[s.n] : (int64_t)s.n;
        if (a->children[i]->length != want)
            return error_fail(err, ERR_CORRUPT, "'%s': %lld child slots where %lld belong", c->path,
                              (long long)a->children[i]->length, (long long)want);
    }
    return 0;
}

/* ---- the unit of INT96 columns ---- */

/* Whether any value of INT96 leaf l, in any row group, lies outside the
 * nanosecond range: its chunks are decoded for that alone. */
static int int96_leaf_exceeds_ns(struct pq_reader *r, int l, bool *exceeds, struct error *err)
{
    *exceeds = false;
    struct leaf_data *d = &r->leaf[l];
    for (size_t g = 0; g < r->meta.nrow_groups && !*exceeds; g++) {
        const struct pq_row_group *rg = &r->meta.row_groups[g];
        d->leaf = r->schema.leaves[l];
        d->type = r->types[l];
        int rc = read_chunk(r, &rg->columns[l], rg->num_rows, d, err);
        const uint8_t *v = (const uint8_t *)d->fixed.data;
        for (size_t k = 0; rc == 0 && k < d->nvalues && !*exceeds; k++) {
            int64_t ns;
            *exceeds = int96_to_unit(v + k * 12, PQ_NANOS, &ns) != 0;
        }
        leaf_data_free(r->pool, d);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Settles the unit of each selected INT96 leaf the caller left open, over
 * the whole file (see pq_reader_set_int96_unit for why), before its type
 * is handed out in a schema or an array. */
static int settle_int96_units(struct pq_reader *r, struct error *err)
{
    for (size_t i = 0; i < r->nselect; i++) {
        const struct pq_node *c = r->schema.root->children[r->select[i]];
        for (int l = c->first_leaf; l < c->first_leaf + c->nleaves; l++) {
            struct leaf_type *lt = &r->types[l];
            if (lt->conv != LC_INT96 || lt->unit_settled)
                continue;
            bool exceeds;
            if (int96_leaf_exceeds_ns(r, l, &exceeds, err) != 0)
                return -1;
            set_int96_unit(lt, exceeds ? PQ_MICROS : PQ_NANOS);
        }
    }
    return 0;
}

int pq_reader_set_int96_unit(struct pq_reader *r, enum pq_time_unit unit, struct error *err)
{
    if (unit != PQ_MILLIS && unit != PQ_MICROS && unit != PQ_NANOS)
        return error_fail(err, ERR_INVALID, "INT96 unit %d (millis, micros or nanos)", (int)unit);
    for (int l = 0; l < r->schema.nleaves; l++)
        if (r->types[l].conv == LC_INT96)
            set_int96_unit(&r->types[l], unit);
    return 0;
}

/* ---- the Arrow schema ---- */

/* GeoArrow's metadata of a GEOMETRY or GEOGRAPHY column: its CRS (the
 * Parquet default spelled out) and, for GEOGRAPHY, its edges. NULL when out
 * of memory; free() it. */
static char *geoarrow_metadata(const struct pq_logical *l)
{
    json_t *o = json_pack("{s:s}", "crs", pq_logical_crs(l));
    const char *edges = pq_edge_algorithm_name(l->edge_algorithm);
    if (o && l->kind == PQ_LT_GEOGRAPHY && strcmp(edges, "OTHER") != 0) {
        char lower[16]; /* GeoArrow spells the Parquet names in lower case */
        size_t i = 0;
        for (; edges[i] && i + 1 < sizeof lower; i++)
            lower[i] = (char)(edges[i] - 'A' + 'a');
        lower[i] = '\0';
        json_object_set_new(o, "edges", json_string(lower));
    }
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}

/* The field's Arrow metadata: its Parquet field id, and a geometry's
 * GeoArrow extension (WKB, the CRS and edges the file declares). */
static int set_field_metadata(const struct pq_node *x, bool with_id, struct ArrowSchema *s)
{
    const char *keys[3], *values[3];
    int n = 0;
    char id[16];
    if (with_id && x->el->has_field_id) {
        snprintf(id, sizeof id, "%d", (int)x->el->field_id);
        keys[n] = "PARQUET:field_id";
        values[n++] = id;
    }
    const struct pq_logical *l = &x->el->logical;
    char *geo = NULL;
    if (x->kind == PQN_LEAF && x->el->type == PQ_BYTE_ARRAY && pq_logical_is_geo(l)) {
        if (!(geo = geoarrow_metadata(l)))
            return -1;
        keys[n] = "ARROW:extension:name";
        values[n++] = "geoarrow.wkb";
        keys[n] = "ARROW:extension:metadata";
        values[n++] = geo;
    }
    int rc = n ? arrow_schema_set_metadata(s, keys, values, n) : 0;
    free(geo);
    return rc;
}

static int node_schema(const struct pq_reader *r, const struct pq_node *x, const char *name,
                       bool with_id, struct ArrowSchema *s, struct error *err)
{
    const char *format = "+s";
    int64_t nchildren = 0;
    switch (x->kind) {
    case PQN_LEAF: format = r->types[x->leaf_index].format; break;
    case PQN_STRUCT:
        format = "+s";
        nchildren = x->nchildren;
        break;
    case PQN_LIST:
        format = "+l";
        nchildren = 1;
        break;
    case PQN_MAP:
        /* A map without a value field reads as a list of key structs:
         * Arrow maps hold exactly a key and a value. */
        format = x->element->nchildren == 2 ? "+m" : "+l";
        nchildren = 1;
        break;
    }
    /* Arrow's null type holds only nulls, whatever the Parquet repetition. */
    bool nullable = x->arrow_nullable || strcmp(format, "n") == 0;
    if (arrow_schema_init(s, format, name, nullable ? ARROW_FLAG_NULLABLE : 0, nchildren) != 0)
        return nomem(err);
    if (set_field_metadata(x, with_id, s) != 0)
        return nomem(err);
    for (int64_t i = 0; i < nchildren; i++) {
        const struct pq_node *c = x->kind == PQN_STRUCT ? x->children[i] : x->element;
        /* A bare repeated field is both the list and its element: the id
         * belongs to the list. */
        bool id = c->el != x->el;
        if (node_schema(r, c, c->el->name, id, s->children[i], err) != 0)
            return -1;
    }
    return 0;
}

int pq_reader_arrow_schema(struct pq_reader *r, struct ArrowSchema *out, struct error *err)
{
    memset(out, 0, sizeof *out);
    if (settle_int96_units(r, err) != 0)
        return -1;
    if (arrow_schema_init(out, "+s", "", 0, (int64_t)r->nselect) != 0)
        return nomem(err);
    for (size_t i = 0; i < r->nselect; i++) {
        const struct pq_node *c = r->schema.root->children[r->select[i]];
        if (node_schema(r, c, c->el->name, true, out->children[i], err) != 0) {
            out->release(out);
            return -1;
        }
    }
    return 0;
}

/* ---- opening and selecting ---- */

void pq_reader_free(struct pq_reader *r)
{
    if (!r)
        return;
    if (r->leaf)
        for (int i = 0; i < r->schema.nleaves; i++)
            leaf_data_free(r->pool, &r->leaf[i]);
    free(r->leaf);
    free(r->types);
    free(r->select);
    pq_codec_ctx_free(r->codec);
    block_pool_unref(r->pool);
    buf_free(&r->chunk);
    buf_free(&r->page);
    buf_free(&r->values);
    free(r->indices);
    free(r->scratch_levels);
    arena_free(&r->arena);
    free(r);
}

static int select_all(struct pq_reader *r, struct error *err)
{
    size_t n = (size_t)r->schema.root->nchildren;
    int *sel = malloc((n ? n : 1) * sizeof *sel);
    if (!sel)
        return nomem(err);
    for (size_t i = 0; i < n; i++)
        sel[i] = (int)i;
    free(r->select);
    r->select = sel;
    r->nselect = n;
    return 0;
}

/* An old parquet-rs wrote 0 as the file's row count while its row groups
 * held rows (pq_meta_rows_only_in_groups): the row groups are trusted, as
 * every chunk is checked against its group's count while reading, and the
 * meta the reader hands out says their sum, since callers take the file's
 * row count from it. */
static bool accept_rows_from_groups(struct pq_reader *r)
{
    int64_t rows;
    if (!pq_meta_rows_only_in_groups(&r->meta, &rows))
        return false;
    r->meta.num_rows = rows;
    return true;
}

int pq_reader_open(const struct pq_source *src, struct pq_reader **out, struct error *err)
{
    *out = NULL;
    struct pq_reader *r = calloc(1, sizeof *r);
    if (!r)
        return nomem(err);
    r->src = *src;
    pq_reader_set_limits(r, &(struct pq_read_limits){0});
    /* Bounds what a hostile footer can expand to once decoded. */
    arena_init(&r->arena, PQ_MAX_FOOTER_ARENA_BYTES);
    if (pq_read_footer(src, &r->arena, &r->meta, &r->footer_len, err) != 0 ||
        pq_schema_from_file(&r->meta, &r->arena, &r->schema, err) != 0)
        goto fail;
    int nleaves = r->schema.nleaves;
    r->types = calloc((size_t)(nleaves ? nleaves : 1), sizeof *r->types);
    r->leaf = calloc((size_t)(nleaves ? nleaves : 1), sizeof *r->leaf);
    r->codec = pq_codec_ctx_new();
    r->pool = block_pool_new(POOL_MAX_BLOCKS, POOL_MAX_BYTES);
    if (!r->types || !r->leaf || !r->codec || !r->pool) {
        nomem(err);
        goto fail;
    }
    for (int i = 0; i < nleaves; i++)
        if (leaf_type_of(r->schema.leaves[i], &r->types[i], err) != 0)
            goto fail;
    if (r->meta.num_rows < 0)
        goto corrupt_rows;
    int64_t rows = 0;
    for (size_t g = 0; g < r->meta.nrow_groups; g++) {
        const struct pq_row_group *rg = &r->meta.row_groups[g];
        if (rg->ncolumns != (size_t)nleaves) {
            error_fail(err, ERR_CORRUPT, "row group %zu has %zu columns for %d schema leaves", g,
                       rg->ncolumns, nleaves);
            goto fail;
        }
        if (rg->num_rows < 0 || __builtin_add_overflow(rows, rg->num_rows, &rows))
            goto corrupt_rows;
        for (int l = 0; l < nleaves; l++) {
            const struct pq_column_chunk *cc = &rg->columns[l];
            if (cc->has_meta &&
                !pq_node_is_path(r->schema.leaves[l], cc->meta.path, cc->meta.npath)) {
                error_fail(err, ERR_CORRUPT,
                           "row group %zu: column chunk %d is not the schema's column '%.200s'", g,
                           l, r->schema.leaves[l]->path);
                goto fail;
            }
        }
    }
    if (rows != r->meta.num_rows && !accept_rows_from_groups(r))
        goto corrupt_rows;
    if (select_all(r, err) != 0)
        goto fail;
    *out = r;
    return 0;
corrupt_rows:
    error_fail(err, ERR_CORRUPT, "the row groups' row counts do not add up to the file's %lld",
               (long long)r->meta.num_rows);
fail:
    pq_reader_free(r);
    return -1;
}

const struct pq_file_meta *pq_reader_meta(const struct pq_reader *r)
{
    return &r->meta;
}

const struct pq_schema *pq_reader_schema(const struct pq_reader *r)
{
    return &r->schema;
}

uint32_t pq_reader_footer_size(const struct pq_reader *r)
{
    return r->footer_len;
}

void pq_reader_set_limits(struct pq_reader *r, const struct pq_read_limits *limits)
{
    uint64_t v = limits->max_values;
    size_t b = limits->max_bytes;
    r->max_values = v && v < INT32_MAX ? v : INT32_MAX;
    r->max_bytes = b && b < BYTES_MAX ? b : BYTES_MAX;
}

static int top_index(const struct pq_reader *r, const struct pq_node *n)
{
    for (int i = 0; i < r->schema.root->nchildren; i++)
        if (r->schema.root->children[i] == n)
            return i;
    return -1;
}

/* Selects by name (names != NULL) or by field id. */
static int select_columns(struct pq_reader *r, const char *const *names, const int32_t *ids,
                          size_t n, struct error *err)
{
    if (n == 0)
        return select_all(r, err);
    int *sel = malloc(n * sizeof *sel);
    if (!sel)
        return nomem(err);
    for (size_t i = 0; i < n; i++) {
        const struct pq_node *c = names ? pq_schema_find_top(&r->schema, names[i])
                                        : pq_schema_find_top_by_id(&r->schema, ids[i]);
        if (!c) {
            free(sel);
            if (names)
                return error_fail(err, ERR_INVALID, "the file has no column '%.200s'", names[i]);
            return error_fail(err, ERR_INVALID, "the file has no column with field id %d",
                              (int)ids[i]);
        }
        sel[i] = top_index(r, c);
    }
    free(r->select);
    r->select = sel;
    r->nselect = n;
    return 0;
}

int pq_reader_select_names(struct pq_reader *r, const char *const *names, size_t n,
                           struct error *err)
{
    return select_columns(r, names, NULL, n, err);
}

int pq_reader_select_field_ids(struct pq_reader *r, const int32_t *ids, size_t n, struct error *err)
{
    return select_columns(r, NULL, ids, n, err);
}

/* ---- reading ---- */

static void reset_leaves(struct pq_reader *r)
{
    for (int i = 0; i < r->schema.nleaves; i++)
        leaf_data_free(r->pool, &r->leaf[i]);
}

/* Reads the selected columns of rg: every row, or those of sel (with st
 * counting pages) when sel is not NULL. */
static int read_columns(struct pq_reader *r, const struct pq_row_group *rg,
                        const struct row_selection *sel, struct pq_range_read_stats *st,
                        struct ArrowArray *out, struct error *err)
{
    if (settle_int96_units(r, err) != 0)
        return -1;
    if (init_array(r, out, 1, (int64_t)r->nselect, err) != 0)
        return -1;
    out->length = sel ? sel->rows : rg->num_rows;
    for (size_t i = 0; i < r->nselect; i++) {
        const struct pq_node *c = r->schema.root->children[r->select[i]];
        for (int l = c->first_leaf; l < c->first_leaf + c->nleaves; l++) {
            struct leaf_data *d = &r->leaf[l];
            d->leaf = r->schema.leaves[l];
            d->type = r->types[l];
            int rc = sel ? read_leaf_rows(r, rg, l, sel, d, st, err)
                         : read_chunk(r, &rg->columns[l], rg->num_rows, d, err);
            if (rc != 0)
                return -1;
        }
        if (build_node(r, c, out->children[i], err) != 0)
            return -1;
        if (out->children[i]->length != out->length)
            return error_fail(err, ERR_CORRUPT, "column '%s' has %lld rows where %lld belong",
                              c->path, (long long)out->children[i]->length, (long long)out->length);
        /* Free the column's decoded pages before the next column's. */
        for (int l = c->first_leaf; l < c->first_leaf + c->nleaves; l++)
            leaf_data_free(r->pool, &r->leaf[l]);
    }
    return 0;
}

int pq_reader_read_row_group(struct pq_reader *r, size_t g, struct ArrowArray *out,
                             struct error *err)
{
    memset(out, 0, sizeof *out);
    if (g >= r->meta.nrow_groups)
        return error_fail(err, ERR_INVALID, "row group %zu of %zu", g, r->meta.nrow_groups);
    const struct pq_row_group *rg = &r->meta.row_groups[g];
    int rc = read_columns(r, rg, NULL, NULL, out, err);
    reset_leaves(r);
    if (rc != 0 && out->release)
        out->release(out);
    return rc;
}

int pq_reader_read_row_ranges(struct pq_reader *r, size_t g, const struct pq_row_range *ranges,
                              size_t n, struct ArrowArray *out, struct pq_range_read_stats *stats,
                              struct error *err)
{
    memset(out, 0, sizeof *out);
    struct pq_range_read_stats ignored;
    struct pq_range_read_stats *st = stats ? stats : &ignored;
    memset(st, 0, sizeof *st);
    if (g >= r->meta.nrow_groups)
        return error_fail(err, ERR_INVALID, "row group %zu of %zu", g, r->meta.nrow_groups);
    const struct pq_row_group *rg = &r->meta.row_groups[g];
    struct row_selection sel = {ranges, n, 0};
    for (size_t i = 0; i < n; i++) {
        const struct pq_row_range *k = &ranges[i];
        if (k->begin < (i ? ranges[i - 1].end : 0) || k->end <= k->begin || k->end > rg->num_rows)
            return error_fail(err, ERR_INVALID,
                              "row range %zu [%lld, %lld) is empty, out of order or past the row "
                              "group's %lld rows",
                              i, (long long)k->begin, (long long)k->end, (long long)rg->num_rows);
        sel.rows += k->end - k->begin;
    }
    int rc = read_columns(r, rg, &sel, st, out, err);
    reset_leaves(r);
    if (rc != 0 && out->release)
        out->release(out);
    return rc;
}

/* ---- the stream ---- */

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct pq_reader *r = s->private_data;
    struct error err = {0};
    if (pq_reader_arrow_schema(r, out, &err) != 0) {
        snprintf(r->stream_error, sizeof r->stream_error, "%s", err.msg);
        return err.code == ERR_NOMEM ? ENOMEM : EIO;
    }
    return 0;
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct pq_reader *r = s->private_data;
    if (r->next_group >= r->meta.nrow_groups) {
        memset(out, 0, sizeof *out); /* the end: a released array */
        return 0;
    }
    struct error err = {0};
    if (pq_reader_read_row_group(r, r->next_group, out, &err) != 0) {
        snprintf(r->stream_error, sizeof r->stream_error, "%s", err.msg);
        return err.code == ERR_NOMEM ? ENOMEM : EIO;
    }
    r->next_group++;
    return 0;
}

static const char *stream_last_error(struct ArrowArrayStream *s)
{
    struct pq_reader *r = s->private_data;
    return r->stream_error[0] ? r->stream_error : NULL;
}

static void stream_release(struct ArrowArrayStream *s)
{
    pq_reader_free(s->private_data);
    s->release = NULL;
    s->private_data = NULL;
}

int pq_reader_stream(struct pq_reader *r, struct ArrowArrayStream *out, struct error *err)
{
    (void)err;
    r->next_group = 0;
    out->get_schema = stream_get_schema;
    out->get_next = stream_get_next;
    out->get_last_error = stream_last_error;
    out->release = stream_release;
    out->private_data = r;
    return 0;
}
