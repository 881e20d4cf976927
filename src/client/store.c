/* The client's object store, opened on first use (a client that only reads
 * metadata never needs credentials). */
#include "client/internal.h"
#include "hoglake/sys/table.h"
#include "objstore/objstore.h"

/* The object store's diagnostics, to the caller's log at the levels it
 * asked for, else nowhere: a library does not write to stderr. */
static void to_caller_log(void *ctx, enum log_level level, const char *message)
{
    hl_client *c = ctx;
    hl_log_level l = level == LOG_ERROR  ? HL_LOG_ERROR
                     : level == LOG_WARN ? HL_LOG_WARN
                     : level == LOG_INFO ? HL_LOG_INFO
                                         : HL_LOG_DEBUG;
    if (c->log && l <= c->log_level)
        c->log(c->log_ctx, l, message);
}

hl_status client_store(hl_client *c, struct objstore **out, struct hl_error *err)
{
    pthread_mutex_lock(&c->store_lock);
    hl_status st = HL_OK;
    if (!c->store) {
        struct objstore_config cfg = {
            .s3_endpoint = c->s3_endpoint,
            .s3_region = c->s3_region,
            .s3_access_key = c->s3_access_key,
            .s3_secret_key = c->s3_secret_key,
            .s3_session_token = c->s3_session_token,
            .connect_timeout_ms = c->connect_timeout_ms,
            .max_retries = c->storage_retries,
            .log = {to_caller_log, c},
        };
        if (objstore_open(&cfg, &c->store, err) != 0)
            st = err ? err->status : HL_ERR_IO;
    }
    *out = c->store;
    pthread_mutex_unlock(&c->store_lock);
    return st;
}

hl_status hl_table_object_store(hl_table *t, struct objstore **out, struct hl_error *err)
{
    return client_store(t->ns->catalog->client, out, err);
}

void client_store_free(hl_client *c)
{
    objstore_free(c->store);
    c->store = NULL;
}
