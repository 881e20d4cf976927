/* PostgreSQL array literals built as text, for set-based statements that
 * take one array parameter per column and unnest() them into rows:
 * one round trip whatever the number of rows.
 *
 * Elements are appended in order; text and bytea elements are quoted and
 * escaped, so any value is safe. A failed append (out of memory) makes the
 * array unusable: pg_array_text returns NULL. */
#ifndef HL_SERVER_DB_PGARRAY_H
#define HL_SERVER_DB_PGARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct pg_array {
    struct buf text;
    size_t n;
    bool failed;
    bool finished; /* text holds the whole literal */
};

void pg_array_init(struct pg_array *a);
void pg_array_free(struct pg_array *a);
void pg_array_i64(struct pg_array *a, int64_t v);
void pg_array_null(struct pg_array *a);
/* A text element; NULL appends SQL NULL. */
void pg_array_str(struct pg_array *a, const char *s);
/* A bytea element (hex form); NULL appends SQL NULL. */
void pg_array_bytes(struct pg_array *a, const uint8_t *b, size_t n);
/* An int8[] literal nested as one text element (cast back with ::bigint[]);
 * n == 0 with v == NULL appends SQL NULL. */
void pg_array_i64_list(struct pg_array *a, const int64_t *v, size_t n);
/* The finished literal ("{...}"), owned by the array; NULL after a failure.
 * No element may be appended afterwards. */
const char *pg_array_text(struct pg_array *a);

#endif
