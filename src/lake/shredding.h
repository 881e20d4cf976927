/* A variant column's shredding declaration (type_params.shredding): which
 * object fields and array elements of its values get Parquet columns of
 * their own, and the Variant type of each (the Trino connector's layout).
 * Readers use each file's own layout, so a declaration changes no read;
 * it is fixed once the column exists.
 *
 * The grammar, a node being a JSON object:
 *   {"type": "object", "fields": [{"name": N, <node>}, ...]}   (non-empty)
 *   {"type": "array", "element": <node>}
 *   {"type": "variant" | "boolean" | "int8" | "int16" | "int32" | "int64" |
 *            "float" | "double" | "date" | "time" | "timestamp" |
 *            "timestamp_ns" | "timestamptz" | "timestamptz_ns" | "binary" |
 *            "string" | "uuid"}
 *   {"type": "decimal4" | "decimal8" | "decimal16", "precision": P, "scale": S}
 *     with 1 <= P <= 9 / 18 / 38 and 0 <= S <= P;
 * field names are Variant keys in their original case: not empty, no NUL,
 * no lone surrogate, unique ignoring case (lake/namecase.h); objects and
 * arrays nest at most 16 deep; at most 1000 fields and arrays in all; the
 * names on the way to a field at most 1024 bytes of UTF-8. Shared by the
 * server (the authority) and libhoglake (before any request), and checked
 * against shared/vectors/variant_shredding_vectors.json. Not installed. */
#ifndef HL_LAKE_SHREDDING_H
#define HL_LAKE_SHREDDING_H

#include <jansson.h>

#include "util/error.h"

enum {
    LAKE_SHRED_MAX_DEPTH = 16,
    LAKE_SHRED_MAX_NODES = 1000, /* fields and arrays, counted together */
    LAKE_SHRED_MAX_PATH_BYTES = 1024,
};

/* Checks a declaration (any JSON value; names may hold lone surrogates as
 * util/jsonx.h's stand-ins). 0 when it is one; else -1 with err:
 * ERR_INVALID and the message "<path> <problem>" ("$.price has precision
 * 18 and scale 2, which decimal4 does not hold"), which the server's 422
 * puts after "variant column 'v' has an invalid type_params.shredding: ";
 * or ERR_NOMEM. The first fault in document order is the one named. */
int lake_shredding_check(const json_t *decl, struct error *err);

/* The paths (named as lake_shredding_check names nodes: "$.price",
 * "$.tags[*]") of the leaves that values encoded from JSON text
 * (variant/variant.h) fill rarely or never, in document order, as a JSON
 * array into *out (the caller's): JSON has no float, temporal, binary or
 * uuid values; an integer within int64 is an integer, never a decimal or a
 * double; a fraction is a double, never a decimal; an integer past int64
 * fills only decimal16 with scale 0 and at least 19 digits. A declaration
 * lake_shredding_check refuses is refused as it refuses it. */
int lake_shredding_unshreddable(const json_t *decl, json_t **out, struct error *err);

/* The paths of every node of a declaration, depth first, each node before
 * its fields or element ("$", "$.a", "$.a.b", "$.tags", "$.tags[*]"): the
 * order of the groups of its storage layout. Refused as
 * lake_shredding_unshreddable refuses. */
int lake_shredding_node_paths(const json_t *decl, json_t **out, struct error *err);

#endif
