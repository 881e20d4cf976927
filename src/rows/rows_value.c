#include "rows/rows_value.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

int64_t rows_unit_per_second(enum rows_unit u)
{
    int64_t p = 1;
    for (int i = 0; i < (int)u; i++)
        p *= 10;
    return p;
}

bool rows_unit_of(char c, enum rows_unit *u)
{
    switch (c) {
    case 's': *u = ROWS_SECONDS; return true;
    case 'm': *u = ROWS_MILLIS; return true;
    case 'u': *u = ROWS_MICROS; return true;
    case 'n': *u = ROWS_NANOS; return true;
    default: return false;
    }
}

int64_t rows_load_signed(const void *p, int width)
{
    uint64_t u = rows_load_unsigned(p, width);
    int shift = 64 - 8 * width;
    return shift ? (int64_t)(u << shift) >> shift : (int64_t)u;
}

uint64_t rows_load_unsigned(const void *p, int width)
{
    uint64_t v = 0;
    memcpy(&v, p, (size_t)width); /* little-endian */
    return v;
}

void rows_where_init(struct rows_where *w, struct error *err)
{
    w->path[0] = '\0';
    w->path_len = 0;
    w->err = err;
}

int rows_fail(struct rows_where *w, enum error_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_failv(w->err, code, fmt, ap);
    va_end(ap);
    return w->path[0] ? error_prefix(w->err, "column '%s'", w->path) : -1;
}

float rows_half_to_float(uint16_t h)
{
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float v;
    if (exp == 0)
        v = ldexpf((float)mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexpf((float)(mant | 0x400), exp - 25);
    return (h & 0x8000) ? -v : v;
}
