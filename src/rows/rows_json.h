/* JSON for row data: a reader that keeps numbers as their text (so 64-bit
 * integers and decimals stay exact) and a writer that produces compact or
 * indented JSON with exact numbers.
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
#include "util/buf.h"
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

/* ---- writing ---- */

struct jw {
    struct buf *out;
    bool pretty; /* two-space indentation, one member per line */
    int depth;
    bool need_comma[RJ_MAX_DEPTH];
    bool after_key;
};

void jw_init(struct jw *w, struct buf *out, bool pretty);
void jw_begin_object(struct jw *w);
void jw_end_object(struct jw *w);
void jw_begin_array(struct jw *w);
void jw_end_array(struct jw *w);
void jw_key(struct jw *w, const char *key);
void jw_keyn(struct jw *w, const char *key, size_t len);
/* A string value: escaped, invalid UTF-8 replaced by U+FFFD. */
void jw_string(struct jw *w, const char *s, size_t len);
void jw_cstring(struct jw *w, const char *s); /* NULL writes null */
/* A value given as JSON text (numbers, true, false, null). */
void jw_raw(struct jw *w, const char *text, size_t len);
void jw_int(struct jw *w, int64_t v);
/* A float (single: as a float32) in its shortest form, NaN and the
 * infinities as the strings "NaN", "Infinity", "-Infinity". */
void jw_float(struct jw *w, double v, bool single);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);
/* Appends s as a quoted, escaped JSON string to out (no separators). */
void rj_escape(struct buf *out, const char *s, size_t len);

#endif
