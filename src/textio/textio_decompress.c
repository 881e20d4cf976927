#define _GNU_SOURCE /* fopencookie */
#include "textio/textio_decompress.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <zlib.h>
#include <zstd.h>

struct dstream {
    FILE *raw;
    enum textio_compression c;
    z_stream z;
    ZSTD_DCtx *zd;
    unsigned char in[65536];
    size_t in_len, in_pos;
    bool raw_eof;
    /* Inside a gzip member or zstd frame (from the start: an empty input
     * is not a compressed one). */
    bool in_frame;
    char why[240];
};

static const char *codec_name(const struct dstream *d)
{
    return d->c == TEXTIO_GZIP ? "gzip" : "zstd";
}

static ssize_t failed(struct dstream *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static ssize_t failed(struct dstream *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->why, sizeof d->why, fmt, ap);
    va_end(ap);
    errno = EIO;
    return -1;
}

/* One step of the codec over the buffered input into out: the bytes made,
 * or -1 (d->why set). */
static ssize_t gzip_step(struct dstream *d, char *out, size_t size)
{
    if (!d->in_frame) { /* another member follows */
        if (inflateReset(&d->z) != Z_OK)
            return failed(d, "gzip: cannot restart the decoder");
        d->in_frame = true;
    }
    d->z.next_in = d->in + d->in_pos;
    d->z.avail_in = (uInt)(d->in_len - d->in_pos);
    d->z.next_out = (Bytef *)out;
    d->z.avail_out = size > UINT32_MAX ? UINT32_MAX : (uInt)size;
    uInt avail_out = d->z.avail_out;
    int rc = inflate(&d->z, Z_NO_FLUSH);
    d->in_pos = d->in_len - d->z.avail_in;
    if (rc == Z_STREAM_END)
        d->in_frame = false;
    else if (rc != Z_OK && rc != Z_BUF_ERROR)
        return failed(d, "gzip data is corrupt (%s)", d->z.msg ? d->z.msg : "bad data");
    return (ssize_t)(avail_out - d->z.avail_out);
}

static ssize_t zstd_step(struct dstream *d, char *out, size_t size)
{
    ZSTD_inBuffer ib = {d->in, d->in_len, d->in_pos};
    ZSTD_outBuffer ob = {out, size, 0};
    size_t rc = ZSTD_decompressStream(d->zd, &ob, &ib);
    d->in_pos = ib.pos;
    if (ZSTD_isError(rc))
        return failed(d, "zstd data is corrupt (%s)", ZSTD_getErrorName(rc));
    d->in_frame = rc != 0; /* 0: a frame just ended */
    return (ssize_t)ob.pos;
}

static ssize_t dstream_read(void *cookie, char *out, size_t size)
{
    struct dstream *d = cookie;
    if (d->why[0]) {
        errno = EIO;
        return -1;
    }
    for (;;) {
        if (d->in_pos == d->in_len && !d->raw_eof) {
            d->in_len = fread(d->in, 1, sizeof d->in, d->raw);
            d->in_pos = 0;
            if (d->in_len == 0 && ferror(d->raw))
                return failed(d, "%s", strerror(errno));
            d->raw_eof = d->in_len == 0;
        }
        bool have_input = d->in_pos < d->in_len;
        if (!have_input && d->raw_eof)
            return d->in_frame
                       ? failed(d, "truncated %s data: the input ends mid-stream", codec_name(d))
                       : 0;
        size_t before = d->in_pos;
        ssize_t made = d->c == TEXTIO_GZIP ? gzip_step(d, out, size) : zstd_step(d, out, size);
        if (made != 0)
            return made;
        /* Neither output nor progress through the input: the codec is stuck. */
        if (d->in_pos == before && have_input && d->in_frame)
            return failed(d, "%s data is corrupt", codec_name(d));
    }
}

static int dstream_close(void *cookie)
{
    struct dstream *d = cookie;
    if (d->c == TEXTIO_GZIP)
        inflateEnd(&d->z);
    else
        ZSTD_freeDCtx(d->zd);
    free(d);
    return 0;
}

FILE *textio_decompress_open(FILE *raw, enum textio_compression c, const char **why)
{
    struct dstream *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->raw = raw;
    d->c = c;
    d->in_frame = true;
    bool ready = c == TEXTIO_GZIP ? inflateInit2(&d->z, 15 + 16) == Z_OK /* gzip only */
                                  : (d->zd = ZSTD_createDCtx()) != NULL;
    if (!ready) {
        free(d);
        return NULL;
    }
    cookie_io_functions_t io = {.read = dstream_read, .close = dstream_close};
    FILE *f = fopencookie(d, "r", io);
    if (!f) {
        dstream_close(d);
        return NULL;
    }
    *why = d->why;
    return f;
}
