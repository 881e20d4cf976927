#include "util/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_free(struct buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void buf_reset(struct buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

int buf_reserve(struct buf *b, size_t extra)
{
    if (extra > SIZE_MAX - b->len - 1)
        return -1;
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *p = realloc(b->data, cap);
    if (!p)
        return -1;
    b->data = p;
    b->cap = cap;
    return 0;
}

int buf_append(struct buf *b, const void *data, size_t len)
{
    if (buf_reserve(b, len) != 0)
        return -1;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

int buf_puts(struct buf *b, const char *s)
{
    return buf_append(b, s, strlen(s));
}

int buf_putc(struct buf *b, char c)
{
    return buf_append(b, &c, 1);
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0 || buf_reserve(b, (size_t)n) != 0)
        return -1;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

char *buf_take(struct buf *b)
{
    char *p = b->data;
    if (!p)
        p = calloc(1, 1);
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}
