#include "util/numfmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lays out significant digits (value = 0.d1d2... x 10^decpt): positional
 * from 1e-4 up to 1e16, else scientific with a two-digit-minimum
 * exponent. Every result is a JSON number token. */
static size_t layout_digits(bool neg, const char *d, int nd, int decpt, char *out)
{
    char *o = out;
    if (neg)
        *o++ = '-';
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            *o++ = '0';
            *o++ = '.';
            for (int i = 0; i < -decpt; i++)
                *o++ = '0';
            memcpy(o, d, (size_t)nd);
            o += nd;
        } else if (decpt >= nd) {
            memcpy(o, d, (size_t)nd);
            o += nd;
            for (int i = nd; i < decpt; i++)
                *o++ = '0';
            *o++ = '.';
            *o++ = '0';
        } else {
            memcpy(o, d, (size_t)decpt);
            o += decpt;
            *o++ = '.';
            memcpy(o, d + decpt, (size_t)(nd - decpt));
            o += nd - decpt;
        }
        *o = '\0';
        return (size_t)(o - out);
    }
    *o++ = d[0];
    if (nd > 1) {
        *o++ = '.';
        memcpy(o, d + 1, (size_t)(nd - 1));
        o += nd - 1;
    }
    int e = decpt - 1;
    o += snprintf(o, 16, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    return (size_t)(o - out);
}

size_t numfmt_shortest(double v, bool single, char *out)
{
    if (v == 0)
        return (size_t)snprintf(out, NUMFMT_TEXT_MAX, "%s", signbit(v) ? "-0.0" : "0.0");
    /* The fewest significant digits that round-trip: at most 9 for a
     * float, 17 for a double. */
    char tmp[48];
    int maxp = single ? 9 : 17;
    for (int p = 1; p <= maxp; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
        if (single ? strtof(tmp, NULL) == (float)v : strtod(tmp, NULL) == v)
            break;
    }
    const char *q = tmp;
    bool neg = *q == '-';
    if (neg)
        q++;
    char digits[24];
    int nd = 0;
    for (; *q && *q != 'e'; q++)
        if (*q >= '0' && *q <= '9' && nd < (int)sizeof digits)
            digits[nd++] = *q;
    int e = *q == 'e' ? atoi(q + 1) : 0;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    return layout_digits(neg, digits, nd, e + 1, out);
}

__extension__ size_t numfmt_decimal(__int128 v, int scale, char *out)
{
    __extension__ typedef unsigned __int128 u128;
    bool neg = v < 0;
    u128 u = neg ? (u128)0 - (u128)v : (u128)v;
    char d[48];
    int nd = 0;
    do {
        d[nd++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (nd <= scale)
        d[nd++] = '0';
    char *o = out;
    if (neg)
        *o++ = '-';
    for (int i = nd - 1; i >= 0; i--) {
        *o++ = d[i];
        if (i == scale && scale > 0)
            *o++ = '.';
    }
    *o = '\0';
    return (size_t)(o - out);
}
