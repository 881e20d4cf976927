/* Strict reading of JSON objects received from outside.
 *
 * A request object is checked against a field table: unknown keys, missing
 * required keys and wrong JSON types are refused with a message naming the
 * field by its path ("columns[2].type"). Values are borrowed from the object
 * (jansson's refcounting keeps them alive while the object lives). */
#ifndef HL_UTIL_JSONX_H
#define HL_UTIL_JSONX_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct buf;

enum jfield_type { JF_STRING, JF_INT, JF_BOOL, JF_OBJECT, JF_ARRAY, JF_ANY };

struct jfield {
    const char *name;
    enum jfield_type type;
    bool required;
    bool nullable; /* JSON null is accepted (and handed out as json null) */
    json_t **out;  /* set to the value, or NULL when absent */
};

/* `where` prefixes messages ("" for the top-level body). Returns 0, or -1
 * with err filled (ERR_MALFORMED) on the first problem. */
int jsonx_read_object(const json_t *obj, const char *where, const struct jfield *fields,
                      size_t nfields, struct error *err);

/* Appends s[0..n) as a JSON string, quoted and escaped as json_dumps
 * escapes it (control characters, '"' and '\\'; the rest as UTF-8).
 * -1 when out of memory. */
int jsonx_put_string(struct buf *b, const char *s, size_t n);

/* What jsonx_find_unstorable found. */
enum jsonx_unstorable { JSONX_STORABLE, JSONX_NUL, JSONX_LONE_SURROGATE };

/* Finds the first string value that C strings and PostgreSQL text cannot
 * hold: one with a NUL character (parsed with JSON_ALLOW_NUL) or, when
 * stand_ins (jsonx_loadb_lenient met a lone surrogate), a lone
 * surrogate's stand-in; and writes its path ("$.ops[0].comment") into
 * path. Without stand_ins, U+10F800..U+10FFFF are characters like any
 * other. The string `key` members of objects anywhere under a member
 * named `under` are left out (under NULL: none), for a validator that
 * names what is wrong with them. */
enum jsonx_unstorable jsonx_find_unstorable(const json_t *v, bool stand_ins, const char *under,
                                            const char *key, char *path, size_t path_size);

/* json_loadb of JSON text with two things jansson refuses read as a
 * validator can name them:
 *  - a lone UTF-16 surrogate in a \u escape (JSON text may hold one, UTF-8
 *    cannot) stands as the code point JSONX_LONE_SURROGATE_BASE +
 *    (unit - 0xD800) (U+10F800..U+10FFFF, private use); *lone (when not
 *    NULL) tells whether there was one;
 *  - an integer outside int64 is read as a real.
 * A text without either is parsed as it is. */
#define JSONX_LONE_SURROGATE_BASE 0x10F800u
/* JSON text (from json_dumps) with each stand-in written back as the
 * \u escape of its lone surrogate, so a message naming one shows it as it
 * came. Takes text; returns it, or a new string in its place (text freed),
 * or NULL when out of memory (text freed). */
char *jsonx_escape_stand_ins(char *text);
json_t *jsonx_loadb_lenient(const char *text, size_t len, size_t flags, json_error_t *jerr,
                            bool *lone);

#endif
