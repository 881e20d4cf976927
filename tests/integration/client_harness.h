/* What integration tests driving libhoglake share: the S3 servers'
 * environment (set by scripts/test.sh), client handles for file:// and S3
 * backends, and a status check that fails the test with the error. */
#ifndef HL_TEST_CLIENT_HARNESS_H
#define HL_TEST_CLIENT_HARNESS_H

#include "hoglake/hoglake.h"

/* The variable's value; fails the test when it is unset or empty (the
 * suite must skip nothing silently). */
const char *test_need_env(const char *name);

/* A client of server_url whose objects go to `endpoint` (NULL: file://
 * only), with the test S3 region and keys. Caller frees. */
hl_client *test_client_new(const char *server_url, const char *endpoint);

/* Fails the test, naming `what`, unless st is HL_OK. */
void test_check(hl_status st, const struct hl_error *err, const char *what);

/* An Arrow stream of one batch: the JSON Lines `jsonl` (one object per
 * line, each line ending in a newline) parsed against the column spec
 * `spec` ("id:long!, name:string"). Fails the test on a bad spec or row. */
struct ArrowArrayStream;
void test_rows_stream(const char *spec, const char *jsonl, struct ArrowArrayStream *out);

#endif
