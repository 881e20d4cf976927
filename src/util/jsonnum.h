/* Exact JSON numbers that jansson cannot hold, and a serializer for them.
 *
 * jansson keeps integers as json_int_t (int64) and prints reals with
 * "%.17g", so a uint64 above 2^63-1, a 38-digit decimal, a decimal at its
 * scale ("0.00", "0.00000001") or a shortest-round-trip float ("0.1") has no
 * exact jansson value. A raw number is a JSON number token kept as text:
 *
 *   - it is represented as a jansson string whose first byte is 0xFF
 *     followed by the token. 0xFF never occurs in UTF-8, and every string
 *     jansson parses or builds with json_string()/json_stringn() is valid
 *     UTF-8, so no value from outside can ever be mistaken for one;
 *   - jsonnum_dumps() prints it as the bare token, everything else exactly
 *     as json_dumps() would;
 *   - plain json_dumps() refuses a tree holding one (it returns NULL on the
 *     invalid UTF-8), so a caller that forgets the exact serializer fails
 *     loudly instead of sending a string where the wire promises a number;
 *   - json_equal(), json_copy() and json_deep_copy() work on it as on any
 *     string (same token, equal; the token is not compared by value).
 */
#ifndef HL_UTIL_JSONNUM_H
#define HL_UTIL_JSONNUM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* True when text[0..len) is one RFC 8259 number token:
 * -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
bool jsonnum_valid(const char *text, size_t len);
/* The length of the number token text starts with (what follows is not
 * looked at), or 0 when it does not start with one. */
size_t jsonnum_span(const char *text, size_t len);

/* A new raw number (reference owned by the caller), or NULL when the text
 * is not a number token or memory runs out. */
json_t *jsonnum_new(const char *text, size_t len);

/* Whether v is a raw number, and its token (len may be NULL); NULL when v
 * is not one. */
bool jsonnum_is(const json_t *v);
const char *jsonnum_text(const json_t *v, size_t *len);

/* json_dumps() that prints raw numbers as bare tokens. Honours
 * JSON_COMPACT, JSON_INDENT(n), JSON_SORT_KEYS, JSON_ENSURE_ASCII,
 * JSON_ESCAPE_SLASH and JSON_REAL_PRECISION(n) like jansson (byte-identical
 * output for a tree without raw numbers); JSON_EMBED is not supported. Any
 * value may be the root (JSON_ENCODE_ANY is implied). Returns a malloc'd string
 * (free() it), or NULL when memory runs out or a string or key is not
 * valid UTF-8. */
char *jsonnum_dumps(const json_t *v, size_t flags);

/* json_loads(text, JSON_DECODE_ANY) that also takes integers jansson
 * cannot hold (a uint64 bound above 2^63-1): each such integer token is
 * read as a string of its digits, whose text a reader parses exactly
 * (jansson would refuse the whole document). A document without one costs
 * nothing extra. NULL with *error filled when text is not JSON. */
json_t *jsonnum_loads_wide(const char *text, json_error_t *error);

#endif
