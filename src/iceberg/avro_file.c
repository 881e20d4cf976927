/* The Avro object container file: "Obj\x01", a header map<bytes>, a
 * 16-byte sync marker, then blocks of (record count, byte size, records,
 * sync). Codecs: null and deflate (raw RFC 1951). */
#include "iceberg/avro_internal.h"
#include "util/array.h"
#include "util/random.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { SYNC_BYTES = 16 };

static const uint8_t magic[4] = {'O', 'b', 'j', 1};

/* Values that take no bytes (nulls, empty records) a file may produce in
 * all: the only bound on the work of a count over such values. */
#define EMPTY_VALUE_BUDGET ((uint64_t)1 << 22)

static int nomem(struct error *err)
{
    return error_fail(err, ERR_NOMEM, "out of memory");
}

/* ---- writer ---- */

struct meta_entry {
    char *key;
    uint8_t *value;
    size_t len;
};

struct avro_writer {
    struct avro_schema *schema;
    enum avro_codec codec;
    int level;
    size_t block_bytes;
    uint8_t sync[SYNC_BYTES];
    struct meta_entry *meta;
    size_t nmeta, meta_cap;
    struct buf block; /* records of the open block */
    uint64_t block_count;
    struct buf body; /* closed blocks */
    uint64_t count;
    bool finished;
};

int avro_writer_new(const char *schema_text, const struct avro_writer_options *opts,
                    struct avro_writer **out, struct error *err)
{
    *out = NULL;
    struct avro_writer_options o = opts ? *opts : (struct avro_writer_options){0};
    if (o.codec != AVRO_CODEC_NULL && o.codec != AVRO_CODEC_DEFLATE)
        return error_fail(err, ERR_INVALID, "unknown codec %d", (int)o.codec);
    if (o.deflate_level < 0 || o.deflate_level > 9)
        return error_fail(err, ERR_INVALID, "deflate level %d", o.deflate_level);
    struct avro_writer *w = calloc(1, sizeof *w);
    if (!w)
        return nomem(err);
    if (avro_schema_parse(schema_text, schema_text ? strlen(schema_text) : 0, &w->schema, err) <
        0) {
        free(w);
        return -1;
    }
    w->codec = o.codec;
    w->level = o.deflate_level ? o.deflate_level : Z_DEFAULT_COMPRESSION;
    w->block_bytes = o.block_bytes ? o.block_bytes : 64 * 1024;
    if (o.sync) {
        memcpy(w->sync, o.sync, SYNC_BYTES);
    } else if (random_bytes(w->sync, SYNC_BYTES) < 0) {
        avro_writer_free(w);
        return error_fail(err, ERR_INVALID, "no randomness for the sync marker");
    }
    *out = w;
    return 0;
}

void avro_writer_free(struct avro_writer *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->nmeta; i++) {
        free(w->meta[i].key);
        free(w->meta[i].value);
    }
    free(w->meta);
    buf_free(&w->block);
    buf_free(&w->body);
    avro_schema_free(w->schema);
    free(w);
}

int avro_writer_set_meta(struct avro_writer *w, const char *key, const void *value, size_t len,
                         struct error *err)
{
    if (w->finished)
        return error_fail(err, ERR_INVALID, "writer already finished");
    if (!key || !*key || strncmp(key, "avro.", 5) == 0 || (!value && len))
        return error_fail(err, ERR_INVALID, "metadata key \"%s\" is reserved or empty",
                          key ? key : "");
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        return nomem(err);
    if (len)
        memcpy(copy, value, len);
    for (size_t i = 0; i < w->nmeta; i++) {
        if (strcmp(w->meta[i].key, key) == 0) {
            free(w->meta[i].value);
            w->meta[i].value = copy;
            w->meta[i].len = len;
            return 0;
        }
    }
    if (ARRAY_RESERVE(w->meta, w->meta_cap, w->nmeta + 1, 8) != 0) {
        free(copy);
        return nomem(err);
    }
    char *k = strdup(key);
    if (!k) {
        free(copy);
        return nomem(err);
    }
    w->meta[w->nmeta++] = (struct meta_entry){k, copy, len};
    return 0;
}

int avro_writer_set_meta_str(struct avro_writer *w, const char *key, const char *value,
                             struct error *err)
{
    if (!value)
        return error_fail(err, ERR_INVALID, "NULL metadata value");
    return avro_writer_set_meta(w, key, value, strlen(value), err);
}

static int deflate_into(const struct buf *in, int level, struct buf *out, struct error *err)
{
    if (in->len > UINT_MAX / 2)
        return error_fail(err, ERR_INVALID, "block too large to deflate");
    z_stream zs = {0};
    if (deflateInit2(&zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return nomem(err);
    uLong bound = deflateBound(&zs, (uLong)in->len);
    if (buf_reserve(out, bound) < 0) {
        deflateEnd(&zs);
        return nomem(err);
    }
    zs.next_in = (Bytef *)in->data;
    zs.avail_in = (uInt)in->len;
    zs.next_out = (Bytef *)out->data + out->len;
    zs.avail_out = (uInt)bound;
    int rc = deflate(&zs, Z_FINISH);
    out->len += bound - zs.avail_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END)
        return error_fail(err, ERR_INVALID, "deflate failed (%d)", rc);
    return 0;
}

static int flush_block(struct avro_writer *w, struct error *err)
{
    if (w->block_count == 0)
        return 0;
    struct buf packed = BUF_INIT;
    const struct buf *data = &w->block;
    if (w->codec == AVRO_CODEC_DEFLATE) {
        if (deflate_into(&w->block, w->level, &packed, err) < 0) {
            buf_free(&packed);
            return -1;
        }
        data = &packed;
    }
    int rc = avro_put_long(&w->body, (int64_t)w->block_count) < 0 ||
                     avro_put_long(&w->body, (int64_t)data->len) < 0 ||
                     buf_append(&w->body, data->data, data->len) < 0 ||
                     buf_append(&w->body, w->sync, SYNC_BYTES) < 0
                 ? nomem(err)
                 : 0;
    buf_free(&packed);
    if (rc == 0) {
        buf_reset(&w->block);
        w->block_count = 0;
    }
    return rc;
}

int avro_writer_append(struct avro_writer *w, const json_t *record, struct error *err)
{
    if (w->finished)
        return error_fail(err, ERR_INVALID, "writer already finished");
    if (avro_encode(avro_schema_root(w->schema), record, &w->block, err) < 0)
        return -1;
    w->block_count++;
    w->count++;
    return w->block.len >= w->block_bytes ? flush_block(w, err) : 0;
}

uint64_t avro_writer_count(const struct avro_writer *w)
{
    return w->count;
}

static int put_meta(struct buf *b, const char *key, const void *value, size_t len)
{
    size_t klen = strlen(key);
    if (avro_put_long(b, (int64_t)klen) < 0 || buf_append(b, key, klen) < 0 ||
        avro_put_long(b, (int64_t)len) < 0 || buf_append(b, value, len) < 0)
        return -1;
    return 0;
}

int avro_writer_finish(struct avro_writer *w, struct buf *out, struct error *err)
{
    if (w->finished)
        return error_fail(err, ERR_INVALID, "writer already finished");
    if (flush_block(w, err) < 0)
        return -1;
    w->finished = true;
    size_t mark = out->len;
    size_t schema_len;
    const char *schema = avro_schema_text(w->schema, &schema_len);
    const char *codec = w->codec == AVRO_CODEC_DEFLATE ? "deflate" : "null";
    int bad = buf_append(out, magic, sizeof magic) < 0 ||
              avro_put_long(out, (int64_t)(w->nmeta + 2)) < 0 ||
              put_meta(out, "avro.schema", schema, schema_len) < 0 ||
              put_meta(out, "avro.codec", codec, strlen(codec)) < 0;
    for (size_t i = 0; !bad && i < w->nmeta; i++)
        bad = put_meta(out, w->meta[i].key, w->meta[i].value, w->meta[i].len) < 0;
    if (bad || avro_put_long(out, 0) < 0 || buf_append(out, w->sync, SYNC_BYTES) < 0 ||
        buf_append(out, w->body.data, w->body.len) < 0) {
        out->len = mark;
        return nomem(err);
    }
    return 0;
}

/* ---- reader ---- */

struct read_meta {
    char *key;
    const uint8_t *value;
    size_t len;
};

struct avro_reader {
    struct avro_cursor file; /* what is left of the file */
    struct avro_schema *schema;
    enum avro_codec codec;
    uint8_t sync[SYNC_BYTES];
    struct read_meta *meta;
    size_t nmeta;
    size_t max_block;
    struct avro_cursor block; /* what is left of the current block */
    uint64_t left;            /* records left in it */
    struct buf inflated;
    uint64_t empty_budget;
    bool failed;
};

static int corrupt(struct error *err, const char *what)
{
    return error_fail(err, ERR_CORRUPT, "%s", what);
}

static int take(struct avro_cursor *c, size_t n, const uint8_t **p)
{
    if (n > c->avail)
        return -1;
    *p = c->p;
    c->p += n;
    c->avail -= n;
    return 0;
}

/* A zigzag length that must fit in what is left of c. */
static int take_sized(struct avro_cursor *c, const uint8_t **p, size_t *len, struct error *err)
{
    *p = NULL; /* set on every path: callers read them only on success */
    *len = 0;
    int64_t n;
    if (avro_cursor_long(c, &n, err) < 0)
        return -1;
    if (n < 0 || (uint64_t)n > c->avail)
        return corrupt(err, "header entry length out of range");
    *len = (size_t)n;
    return take(c, *len, p);
}

static int read_header_map(struct avro_reader *r, struct error *err)
{
    size_t cap = 0;
    for (;;) {
        int64_t count;
        if (avro_cursor_long(&r->file, &count, err) < 0)
            return -1;
        if (count == 0)
            return 0;
        if (count < 0) {
            int64_t size;
            if (count == INT64_MIN || avro_cursor_long(&r->file, &size, err) < 0)
                return count == INT64_MIN ? corrupt(err, "absurd header count") : -1;
            count = -count;
        }
        /* Each entry takes at least two bytes (two lengths). */
        if ((uint64_t)count > r->file.avail / 2)
            return corrupt(err, "header entry count exceeds the file");
        if (r->nmeta + (size_t)count > cap) {
            cap = r->nmeta + (size_t)count;
            struct read_meta *grown = realloc(r->meta, cap * sizeof *grown);
            if (!grown)
                return nomem(err);
            r->meta = grown;
        }
        for (int64_t i = 0; i < count; i++) {
            const uint8_t *k, *v;
            size_t klen, vlen;
            if (take_sized(&r->file, &k, &klen, err) < 0 ||
                take_sized(&r->file, &v, &vlen, err) < 0)
                return -1;
            if (klen == 0 || memchr(k, 0, klen))
                return corrupt(err, "bad header key");
            /* (Not strndup: the key is not NUL-terminated in the file.) */
            char *key = malloc(klen + 1);
            if (!key)
                return nomem(err);
            memcpy(key, k, klen);
            key[klen] = '\0';
            if (avro_reader_meta(r, key, NULL)) {
                free(key);
                return corrupt(err, "header key repeated");
            }
            r->meta[r->nmeta++] = (struct read_meta){key, v, vlen};
        }
    }
}

int avro_reader_open(const void *data, size_t len, const struct avro_reader_options *opts,
                     struct avro_reader **out, struct error *err)
{
    *out = NULL;
    if (!data && len)
        return error_fail(err, ERR_INVALID, "NULL data");
    struct avro_reader *r = calloc(1, sizeof *r);
    if (!r)
        return nomem(err);
    r->file = (struct avro_cursor){data, len, &r->empty_budget};
    r->block = (struct avro_cursor){NULL, 0, &r->empty_budget};
    r->empty_budget = EMPTY_VALUE_BUDGET;
    r->max_block = opts && opts->max_block_bytes ? opts->max_block_bytes : (size_t)64 << 20;
    const uint8_t *p;
    int rc = -1;
    if (take(&r->file, sizeof magic, &p) < 0 || memcmp(p, magic, sizeof magic) != 0)
        corrupt(err, "not an Avro container (bad magic)");
    else if (read_header_map(r, err) < 0)
        ;
    else if (take(&r->file, SYNC_BYTES, &p) < 0)
        corrupt(err, "truncated sync marker");
    else
        rc = 0;
    if (rc == 0) {
        memcpy(r->sync, p, SYNC_BYTES);
        size_t slen, clen;
        const char *schema = avro_reader_meta(r, "avro.schema", &slen);
        const char *codec = avro_reader_meta(r, "avro.codec", &clen);
        if (!schema) {
            rc = corrupt(err, "no avro.schema in the header");
        } else if (avro_schema_parse(schema, slen, &r->schema, err) < 0) {
            if (err && err->code == ERR_MALFORMED)
                err->code = ERR_CORRUPT;
            rc = -1;
        } else if (!codec || (clen == 4 && memcmp(codec, "null", 4) == 0)) {
            r->codec = AVRO_CODEC_NULL;
        } else if (clen == 7 && memcmp(codec, "deflate", 7) == 0) {
            r->codec = AVRO_CODEC_DEFLATE;
        } else {
            rc = error_fail(err, ERR_UNSUPPORTED, "codec \"%.*s\" is not supported",
                            (int)(clen > 32 ? 32 : clen), codec);
        }
    }
    if (rc < 0) {
        avro_reader_free(r);
        return -1;
    }
    *out = r;
    return 0;
}

void avro_reader_free(struct avro_reader *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nmeta; i++)
        free(r->meta[i].key);
    free(r->meta);
    buf_free(&r->inflated);
    avro_schema_free(r->schema);
    free(r);
}

enum avro_codec avro_reader_codec(const struct avro_reader *r)
{
    return r->codec;
}

const void *avro_reader_meta(const struct avro_reader *r, const char *key, size_t *len)
{
    for (size_t i = 0; i < r->nmeta; i++) {
        if (strcmp(r->meta[i].key, key) == 0) {
            if (len)
                *len = r->meta[i].len;
            return r->meta[i].value;
        }
    }
    return NULL;
}

size_t avro_reader_meta_count(const struct avro_reader *r)
{
    return r->nmeta;
}

const char *avro_reader_meta_at(const struct avro_reader *r, size_t i, const void **value,
                                size_t *len)
{
    if (i >= r->nmeta)
        return NULL;
    *value = r->meta[i].value;
    *len = r->meta[i].len;
    return r->meta[i].key;
}

static int inflate_block(struct avro_reader *r, const uint8_t *p, size_t n, struct error *err)
{
    if (n > UINT_MAX)
        return corrupt(err, "compressed block too large");
    buf_reset(&r->inflated);
    z_stream zs = {0};
    if (inflateInit2(&zs, -15) != Z_OK)
        return nomem(err);
    zs.next_in = (Bytef *)p;
    zs.avail_in = (uInt)n;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        if (r->inflated.len >= r->max_block) {
            inflateEnd(&zs);
            return corrupt(err, "block inflates past the size limit");
        }
        size_t room = r->max_block - r->inflated.len;
        size_t want = n * 4 + 64 < room ? n * 4 + 64 : room;
        if (want > UINT_MAX / 2)
            want = UINT_MAX / 2;
        if (buf_reserve(&r->inflated, want) < 0) {
            inflateEnd(&zs);
            return nomem(err);
        }
        zs.next_out = (Bytef *)r->inflated.data + r->inflated.len;
        zs.avail_out = (uInt)want;
        rc = inflate(&zs, Z_NO_FLUSH);
        r->inflated.len += want - zs.avail_out;
        if (rc == Z_MEM_ERROR) {
            inflateEnd(&zs);
            return nomem(err);
        }
        if (rc != Z_OK && rc != Z_STREAM_END) {
            inflateEnd(&zs);
            return corrupt(err, rc == Z_BUF_ERROR ? "truncated deflate block" : "bad deflate data");
        }
        if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
            inflateEnd(&zs);
            return corrupt(err, "truncated deflate block");
        }
    }
    bool trailing = zs.avail_in != 0;
    inflateEnd(&zs);
    if (trailing)
        return corrupt(err, "bytes after the deflate stream");
    r->block.p = (const uint8_t *)r->inflated.data;
    r->block.avail = r->inflated.len;
    return 0;
}

/* Opens the next block: 1 when there is one, 0 at the end of the file. */
static int next_block(struct avro_reader *r, struct error *err)
{
    if (r->file.avail == 0)
        return 0;
    int64_t count, size;
    if (avro_cursor_long(&r->file, &count, err) < 0 || avro_cursor_long(&r->file, &size, err) < 0)
        return -1;
    if (count < 0 || size < 0)
        return corrupt(err, "negative block count or size");
    const uint8_t *data, *sync;
    if ((uint64_t)size > r->file.avail || take(&r->file, (size_t)size, &data) < 0)
        return corrupt(err, "block size exceeds the file");
    if (take(&r->file, SYNC_BYTES, &sync) < 0)
        return corrupt(err, "truncated sync marker after a block");
    if (memcmp(sync, r->sync, SYNC_BYTES) != 0)
        return corrupt(err, "sync marker does not match the header's");
    if (r->codec == AVRO_CODEC_DEFLATE) {
        if (inflate_block(r, data, (size_t)size, err) < 0)
            return -1;
    } else {
        r->block.p = data;
        r->block.avail = (size_t)size;
    }
    size_t min = avro_schema_root(r->schema)->min_bytes;
    if (min > 0 && (uint64_t)count > r->block.avail / min)
        return corrupt(err, "block record count exceeds its bytes");
    if (min == 0) {
        if ((uint64_t)count > r->empty_budget)
            return corrupt(err, "too many empty records");
        r->empty_budget -= (uint64_t)count;
    }
    r->left = (uint64_t)count;
    return 1;
}

int avro_reader_next(struct avro_reader *r, json_t **out, struct error *err)
{
    *out = NULL;
    if (r->failed)
        return error_fail(err, ERR_INVALID, "the reader failed earlier");
    while (r->left == 0) {
        if (r->block.avail != 0) {
            r->failed = true;
            return corrupt(err, "block holds bytes past its records");
        }
        int rc = next_block(r, err);
        if (rc <= 0) {
            r->failed = rc < 0;
            return rc;
        }
    }
    json_t *v;
    if (avro_decode_value(avro_schema_root(r->schema), &r->block, 0, &v, err) < 0) {
        r->failed = true;
        return -1;
    }
    r->left--;
    *out = v;
    return 1;
}
