/* Variant field names compared and quoted: see namecase.h. */
#include "lake/namecase.h"

#include <stdint.h>
#include <stdlib.h>
#include <unicode/uchar.h>

#include "util/jsonx.h"
#include "util/strutil.h"

enum {
    CAPITAL_SIGMA = 0x3A3,
    SMALL_SIGMA = 0x3C3,
    FINAL_SIGMA = 0x3C2,
    CAPITAL_I_DOT = 0x130,
    COMBINING_DOT = 0x307,
    QUOTE_UNITS = 64, /* a quoted name's UTF-16 units at most */
    QUOTE_KEPT = 61,  /* kept of a longer one, before "..." */
};

/* Decodes one code point of s[*i..len); a byte that starts no valid
 * sequence reads as itself (names come from parsed JSON, so this is only
 * a guard). */
static uint32_t next_cp(const unsigned char *s, size_t len, size_t *i)
{
    size_t n = str_utf8_seq(s + *i, len - *i);
    uint32_t cp = n ? str_utf8_decode(s + *i, n) : s[*i];
    *i += n ? n : 1;
    return cp;
}

static int put_cp(struct buf *out, uint32_t cp)
{
    char b[4];
    return buf_append(out, b, str_utf8_encode(cp, b));
}

static bool is_lone_surrogate(uint32_t cp)
{
    return cp >= JSONX_LONE_SURROGATE_BASE && cp < JSONX_LONE_SURROGATE_BASE + 0x800;
}

/* The simple lowercase mapping: ICU's data (Unicode 15 on Debian 12),
 * with the pairs Unicode 16 added. */
static uint32_t simple_lower(uint32_t cp)
{
    static const uint32_t added[][2] = {
        {0x1C89, 0x1C8A}, {0xA7CB, 0x0264}, {0xA7CC, 0xA7CD}, {0xA7DA, 0xA7DB}, {0xA7DC, 0x019B},
    };
    for (size_t i = 0; i < sizeof added / sizeof *added; i++)
        if (cp == added[i][0])
            return added[i][1];
    if (cp >= 0x10D50 && cp <= 0x10D65) /* Garay */
        return cp + 0x20;
    return is_lone_surrogate(cp) ? cp : (uint32_t)u_tolower((UChar32)cp);
}

static bool word_char(uint32_t cp)
{
    if (is_lone_surrogate(cp))
        return false;
    switch (u_charType((UChar32)cp)) {
    case U_UPPERCASE_LETTER:
    case U_LOWERCASE_LETTER:
    case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER:
    case U_NON_SPACING_MARK:
    case U_ENCLOSING_MARK:
    case U_COMBINING_SPACING_MARK:
    case U_DECIMAL_DIGIT_NUMBER:
    case U_LETTER_NUMBER:
    case U_OTHER_NUMBER:
    case U_CONNECTOR_PUNCTUATION: return true;
    default: return false;
    }
}

static bool mid_word_char(uint32_t cp)
{
    return cp == 0xAD || cp == 0x2027 || cp == '"' || cp == '\'' || cp == '.' ||
           (!is_lone_surrogate(cp) && u_charType((UChar32)cp) == U_DASH_PUNCTUATION);
}

/* Whether cp[i - 1] and cp[i] are in one word (no boundary at i). */
static bool joined(const uint32_t *cp, size_t n, size_t i)
{
    if (i == 0 || i >= n)
        return false;
    uint32_t a = cp[i - 1], b = cp[i];
    if (word_char(a) && word_char(b))
        return true;
    if (mid_word_char(b))
        return word_char(a) && i + 1 < n && word_char(cp[i + 1]);
    if (mid_word_char(a))
        return word_char(b) && i >= 2 && word_char(cp[i - 2]);
    return false;
}

static bool cased(uint32_t cp)
{
    return !is_lone_surrogate(cp) && u_hasBinaryProperty((UChar32)cp, UCHAR_CASED);
}

/* Java's final-sigma condition: a cased letter before cp[at] in its word,
 * none after it. */
static bool final_in_word(const uint32_t *cp, size_t n, size_t at)
{
    for (size_t i = at; i > 0 && joined(cp, n, i); i--) {
        if (!cased(cp[i - 1]))
            continue;
        for (size_t j = at + 1; j < n && joined(cp, n, j); j++)
            if (cased(cp[j]))
                return false;
        return true;
    }
    return false;
}

int lake_name_lower(const char *name, size_t len, struct buf *out)
{
    buf_reset(out);
    uint32_t *cp = malloc((len + 1) * sizeof *cp);
    if (!cp)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < len;)
        cp[n++] = next_cp((const unsigned char *)name, len, &i);
    int rc = buf_reserve(out, len);
    for (size_t k = 0; rc == 0 && k < n; k++) {
        if (cp[k] == CAPITAL_I_DOT)
            rc = put_cp(out, 'i') || put_cp(out, COMBINING_DOT);
        else if (cp[k] == CAPITAL_SIGMA)
            rc = put_cp(out, final_in_word(cp, n, k) ? FINAL_SIGMA : SMALL_SIGMA);
        else
            rc = put_cp(out, simple_lower(cp[k]));
    }
    free(cp);
    return rc;
}

bool lake_name_has_lone_surrogate(const char *name, size_t len)
{
    for (size_t i = 0; i < len;)
        if (is_lone_surrogate(next_cp((const unsigned char *)name, len, &i)))
            return true;
    return false;
}

static size_t utf16_units(uint32_t cp)
{
    return cp >= 0x10000 && !is_lone_surrogate(cp) ? 2 : 1;
}

int lake_name_quote(const char *name, size_t len, struct buf *out)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t units = 0;
    for (size_t i = 0; i < len && units <= QUOTE_UNITS;)
        units += utf16_units(next_cp(s, len, &i));
    if (units <= QUOTE_UNITS)
        return buf_append(out, name, len);
    size_t kept = 0;
    for (size_t i = 0; i < len && kept < QUOTE_KEPT;) {
        uint32_t cp = next_cp(s, len, &i);
        if (kept + utf16_units(cp) > QUOTE_KEPT) {
            /* The cut falls inside a pair: its high half stays. */
            uint32_t high = 0xD800 + ((cp - 0x10000) >> 10);
            if (put_cp(out, JSONX_LONE_SURROGATE_BASE + (high - 0xD800)) != 0)
                return -1;
            break;
        }
        if (put_cp(out, cp) != 0)
            return -1;
        kept += utf16_units(cp);
    }
    return buf_puts(out, "...");
}
