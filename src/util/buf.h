/* A growable byte buffer, always NUL-terminated when non-empty.
 *
 * Functions returning int give 0 on success and -1 when memory runs out;
 * after a failure the buffer keeps its previous contents. */
#ifndef HL_UTIL_BUF_H
#define HL_UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
    char *data;
    size_t len;
    size_t cap;
};

#define BUF_INIT                                                                                   \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void buf_free(struct buf *b);
void buf_reset(struct buf *b); /* len = 0, keeps the memory */
int buf_reserve(struct buf *b, size_t extra);
int buf_append(struct buf *b, const void *data, size_t len);
int buf_puts(struct buf *b, const char *s);
int buf_putc(struct buf *b, char c);
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Transfers ownership of the contents to the caller (free() it); b is reset. */
char *buf_take(struct buf *b);

#endif
