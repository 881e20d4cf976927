#include "util/numfmt.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
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

/* Writes v's decimal digits (no sign, no leading zeros) at out; returns how many. */
static int put_digits(uint64_t v, char *out)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

size_t numfmt_u64(uint64_t v, char *out)
{
    size_t n = (size_t)put_digits(v, out);
    out[n] = '\0';
    return n;
}

size_t numfmt_i64(int64_t v, char *out)
{
    if (v >= 0)
        return numfmt_u64((uint64_t)v, out);
    /* The magnitude in unsigned arithmetic, so that INT64_MIN negates safely. */
    out[0] = '-';
    return 1 + numfmt_u64(0 - (uint64_t)v, out + 1);
}

void numfmt_fixed(uint64_t v, int width, char *out)
{
    for (int i = width - 1; i >= 0; i--) {
        out[i] = (char)('0' + (int)(v % 10));
        v /= 10;
    }
}

/* Powers of ten that doubles (to 1e22) and floats (to 1e10) hold exactly. */
static const double POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
static const float POW10F[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

/* The shortest digits of a positive finite a without printf, when a = m /
 * 10^k for an integer m < 2^(mant - 2) (mant: the type's significand bits)
 * and a power 10^k the type holds exactly: values with few decimals, as
 * most data has. The first such k is taken. m / 10^k is then the one
 * decimal with k places that reads back as a (10^-k is wider than two
 * ulps of a), every shorter one was tried, and a correctly rounded
 * division makes the check exact. Sets *m and *k, or returns false: the
 * digit search decides. */
static bool exact_decimal(double a, bool single, uint64_t *m, int *k)
{
    /* Beyond the bound, a's rounding interval is no longer narrower than
     * the spacing of the candidates. */
    const double bound = single ? 0x1p22 : 0x1p51;
    if (!(a < bound))
        return false;
#if FLT_EVAL_METHOD == 0
    int kmax = single ? (int)(sizeof POW10F / sizeof *POW10F) : (int)(sizeof POW10 / sizeof *POW10);
    for (int i = 0; i < kmax; i++) {
        double x = a * POW10[i]; /* exact for floats, within an ulp for doubles */
        if (x >= bound)
            return false;
        uint64_t c = (uint64_t)(x + 0.5);
        bool same = single ? (float)c / POW10F[i] == (float)a : (double)c / POW10[i] == a;
        if (c != 0 && same) {
            *m = c;
            *k = i;
            return true;
        }
    }
#else
    /* Excess precision would make the check inexact. */
    (void)single;
    (void)m;
    (void)k;
#endif
    return false;
}

size_t numfmt_shortest(double v, bool single, char *out)
{
    if (v == 0)
        return (size_t)snprintf(out, NUMFMT_TEXT_MAX, "%s", signbit(v) ? "-0.0" : "0.0");
    char digits[24];
    int nd = 0;
    bool neg = signbit(v);
    uint64_t m;
    int k;
    if (exact_decimal(fabs(v), single, &m, &k)) {
        nd = put_digits(m, digits);
        int decpt = nd - k;
        while (nd > 1 && digits[nd - 1] == '0')
            nd--;
        return layout_digits(neg, digits, nd, decpt, out);
    }
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
    if (*q == '-')
        q++;
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
