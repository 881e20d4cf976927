/* JSON out: a writer that produces compact or indented JSON with exact
 * numbers (for rendered rows and `hoglake parquet inspect`). It nests as
 * deep as the reader (rows/rows_json.h) reads. */
#ifndef HL_TEXTIO_JSON_H
#define HL_TEXTIO_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rows/rows_json.h"
#include "util/buf.h"

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
/* A value read by rows/rows_json.h, written back (numbers as their text,
 * object members in their order). */
void jw_value(struct jw *w, const struct rj_value *v);
/* Appends s as a quoted, escaped JSON string to out (no separators). */
void jw_escape(struct buf *out, const char *s, size_t len);

#endif
