/* Loading a shared vector file with every number kept exact.
 *
 * jansson cannot load 18446744073709551615 or a 38-digit integer, and would
 * turn 0.1 into a double: every number token outside a string is loaded as
 * {"$num":"<token>"} instead. Failures abort the test (cmocka fail). */
#ifndef HL_TESTS_VECTORS_TESTLIB_H
#define HL_TESTS_VECTORS_TESTLIB_H

#include <jansson.h>

/* The file's JSON with numbers wrapped (a new reference). */
json_t *vectors_load_exact(const char *path);
/* The file's JSON as the server reads a request (jsonx_loadb_lenient: a
 * lone surrogate as its stand-in, an integer past int64 as a real). */
json_t *vectors_load_lenient(const char *path);
/* The exact token of a wrapped number, or NULL when v is not one. */
const char *vectors_num_token(const json_t *v);

#endif
