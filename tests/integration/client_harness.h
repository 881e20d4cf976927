/* What integration tests driving libhoglake share: client handles for
 * file:// and S3 backends (the S3 servers' environment, set by
 * scripts/test.sh, is read with harness.h's test_need_env), and a status
 * check that fails the test with the error. */
#ifndef HL_TEST_CLIENT_HARNESS_H
#define HL_TEST_CLIENT_HARNESS_H

#include <libpq-fe.h>
#include <stddef.h>

#include "harness.h"
#include "hoglake/hoglake.h"

/* A client of server_url whose objects go to `endpoint` (NULL: file://
 * only), with the test S3 region and keys and the server's admin token.
 * Caller frees. */
hl_client *test_client_new(const char *server_url, const char *endpoint);

/* Fails the test, naming `what`, unless st is HL_OK. */
void test_check(hl_status st, const struct hl_error *err, const char *what);

/* Two hoglaked servers on one fresh database, both reading moto with the
 * test keys from the environment (as a deployment would), a scratch
 * warehouse directory for file:// catalogs, and clients of the first
 * server for file:// and moto. The connection is test_sql_use'd. */
struct client_stack {
    struct test_db db;
    struct test_server srv, srv2;
    PGconn *pg;
    char warehouse[256];
    const char *bucket;
    hl_client *file_client, *moto_client;
};
void client_stack_up(struct client_stack *st, const char *label);
void client_stack_down(struct client_stack *st);
/* Catalog `name`'s data path for client c: under the warehouse for the
 * file:// client, else under the bucket. */
void client_stack_data_path(const struct client_stack *st, const hl_client *c, const char *name,
                            char *out, size_t size);

/* An Arrow stream of one batch: the JSON Lines `jsonl` (one object per
 * line, each line ending in a newline) parsed against the column spec
 * `spec` ("id:long!, name:string"). Fails the test on a bad spec or row. */
struct ArrowArrayStream;
void test_rows_stream(const char *spec, const char *jsonl, struct ArrowArrayStream *out);

/* Appends the stream (taken) to t in one commit, in row groups of about
 * row_group_bytes; returns its snapshot. Fails the test on an error. */
int64_t test_append(hl_table *t, struct ArrowArrayStream *rows, int64_t row_group_bytes);

#endif
