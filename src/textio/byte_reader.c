#include "textio/byte_reader.h"

#include <errno.h>
#include <string.h>

void byte_reader_init(struct byte_reader *b, FILE *f)
{
    memset(b, 0, sizeof *b);
    b->f = f;
}

int byte_reader_next(struct byte_reader *b)
{
    if (b->pos == b->len) {
        if (b->eof)
            return b->failed ? -2 : -1;
        b->before += b->len;
        b->len = fread(b->in, 1, sizeof b->in, b->f);
        b->pos = 0;
        if (b->len == 0) {
            b->eof = true;
            if (ferror(b->f)) {
                b->failed = true;
                snprintf(b->why, sizeof b->why, "%s",
                         b->read_error && *b->read_error ? b->read_error : strerror(errno));
                return -2;
            }
            return -1;
        }
    }
    return (unsigned char)b->in[b->pos++];
}

int byte_reader_peek(struct byte_reader *b)
{
    int c = byte_reader_next(b);
    if (c >= 0)
        b->pos--;
    return c;
}
