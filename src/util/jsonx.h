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

/* Finds the first string value holding a NUL character (parsed with
 * JSON_ALLOW_NUL) and writes its path ("$.ops[0].comment") into path.
 * Returns false when there is none. */
bool jsonx_find_nul(const json_t *v, char *path, size_t path_size);

#endif
