/* Shared between the Avro source files; not part of the API. */
#ifndef HL_ICEBERG_AVRO_INTERNAL_H
#define HL_ICEBERG_AVRO_INTERNAL_H

#include "iceberg/avro.h"

/* How deep schemas and values may nest: a recursive schema lets a few bytes
 * of a hostile file ask for unbounded recursion. */
enum { AVRO_MAX_DEPTH = 64 };

/* Fills err (when not NULL) and returns -1. */
int error_fail(struct error *err, enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A decode cursor with the budget of values that cost no bytes (nulls,
 * empty records), shared across a whole file, which bounds the work a
 * hostile count can ask for. */
struct avro_cursor {
    const uint8_t *p;
    size_t avail;
    uint64_t *empty_budget;
};

int avro_decode_value(const struct avro_node *n, struct avro_cursor *c, int depth, json_t **out,
                      struct error *err);
int avro_cursor_long(struct avro_cursor *c, int64_t *v, struct error *err);

#endif
