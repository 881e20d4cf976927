/* Variant field names as the catalog compares and shows them.
 *
 * Names are UTF-8, with a lone UTF-16 surrogate (which JSON may carry and
 * UTF-8 cannot) standing as JSONX_LONE_SURROGATE_BASE + (unit - 0xD800)
 * (util/jsonx.h). Two names differ only by case when their lowercase
 * forms are equal: the lowercase of Java's String.toLowerCase(Locale.ROOT),
 * which the catalog's contract was written against, so that a declaration
 * one server accepted every server accepts:
 *  - each code point's simple lowercase mapping (ICU's, with the case pairs
 *    Unicode 16 added), except U+0130, which becomes "i" U+0307;
 *  - GREEK CAPITAL SIGMA becomes final sigma at the end of a word that has
 *    a cased letter before it, else small sigma. Words are Java's: letters,
 *    marks, digits and connector punctuation ("_") join; a dash, U+00AD,
 *    U+2027, an apostrophe, a quote or a full stop joins two of them.
 * Not installed. */
#ifndef HL_LAKE_NAMECASE_H
#define HL_LAKE_NAMECASE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* The lowercase form of the UTF-8 name into out (reset first). -1 when
 * out of memory. */
int lake_name_lower(const char *name, size_t len, struct buf *out);

/* Whether the name holds a lone surrogate (as its stand-in code point). */
bool lake_name_has_lone_surrogate(const char *name, size_t len);

/* The name as messages quote it, appended to out: at most 64 UTF-16 units,
 * a longer one cut to 61 and "..." (a cut through a surrogate pair keeps
 * its high half, as a lone surrogate). -1 when out of memory. */
int lake_name_quote(const char *name, size_t len, struct buf *out);

#endif
