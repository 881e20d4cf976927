/* JSON for row data: a reader that keeps numbers as their text (so 64-bit
 * integers and decimals stay exact). It checks a json column's values and
 * reads JSON Lines; the writer is textio/textio_json.h.
 *
 * The reader is strict RFC 8259: UTF-8 input only, no comments, no
 * trailing commas, no lone surrogates; duplicate object keys are kept in
 * order (callers decide). Values live in a caller's arena. */
#ifndef HL_ROWS_JSON_H
#define HL_ROWS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/error.h"

enum rj_type { RJ_NULL, RJ_FALSE, RJ_TRUE, RJ_NUMBER, RJ_STRING, RJ_ARRAY, RJ_OBJECT };

struct rj_value {
    enum rj_type type;
    /* NUMBER: the number's text; STRING: the decoded bytes (NUL-terminated,
     * may hold NULs). */
    const char *str;
    size_t len;
    /* ARRAY: items; OBJECT: member values, with keys[i] naming items[i]. */
    struct rj_value *items;
    const char **keys;
    size_t *key_lens;
    size_t n;
};

enum { RJ_MAX_DEPTH = 512 };

/* Parses exactly one JSON value (surrounded by optional whitespace) from
 * text[0..len). Returns NULL with ERR_MALFORMED and a message ("at byte
 * 12: expected ':'") on a syntax error, ERR_LIMIT past RJ_MAX_DEPTH. With
 * a == NULL the text is only validated (the return is then a non-NULL
 * dummy on success). */
const struct rj_value *rj_parse(const char *text, size_t len, struct arena *a, struct error *err);

/* Whether an object member's key equals the NUL-free string s. */
bool rj_key_is(const struct rj_value *obj, size_t i, const char *s);
/* A JSON type's name for messages ("a string", "an array"). */
const char *rj_type_name(enum rj_type t);

#endif
