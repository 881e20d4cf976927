/* Multi-table transactions (hl_transaction_*): appends, deletes and
 * updates on several tables of one catalog, committed as one snapshot with
 * one POST /commit/transaction.
 *
 * Every operation reads its table at the catalog's head when the
 * transaction began (its read_snapshot) and writes at once, at upload
 * claims of the transaction's one owner; the commit sends every group with
 * one idempotency key. The server refuses it with 409 commit_conflict when
 * a table the transaction deleted from or updated saw an insert or delete
 * since the read_snapshot: the caller runs the transaction again (the
 * appends consumed their streams, so it cannot be re-run here). A commit
 * whose outcome is unknown may be sent again, unchanged (same key: the
 * server replays it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/append.h"
#include "client/mutate.h"
#include "util/random.h"

enum tx_state {
    TX_OPEN,      /* operations may be added */
    TX_SENT,      /* a commit went out, outcome unknown: only the commit again */
    TX_COMMITTED, /* done */
    TX_FAILED,    /* an operation or the commit failed: what it wrote is gone */
};

struct hl_transaction {
    hl_catalog *catalog;
    char owner[37], key[37];
    int64_t read_snapshot;
    json_t *appends, *deletes; /* the commit's groups */
    json_t *changed;           /* "ns\ttable" of each table written to: true */
    struct hl_append_result *uploads;
    enum tx_state state;
    int64_t snapshot_id;
    /* The first commit's: a resend must be the same request. */
    char *author, *message;
};

hl_status hl_transaction_begin(hl_catalog *c, hl_transaction **out, struct hl_error *err)
{
    *out = NULL;
    if (!c)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "hl_transaction_begin needs a catalog");
    hl_transaction *tx = calloc(1, sizeof *tx);
    if (!tx)
        return client_nomem(err);
    tx->catalog = c;
    tx->snapshot_id = -1;
    tx->appends = json_array();
    tx->deletes = json_array();
    tx->changed = json_object();
    tx->uploads = client_append_result_new();
    hl_status st =
        tx->appends && tx->deletes && tx->changed && tx->uploads ? HL_OK : client_nomem(err);
    if (st == HL_OK && (random_uuid4(tx->owner) != 0 || random_uuid4(tx->key) != 0))
        st = client_fail(err, HL_ERR_INTERNAL, "internal", "no randomness for a commit key");
    /* The snapshot every operation reads: the catalog's head, now. */
    struct buf path = BUF_INIT;
    json_t *cat = NULL;
    if (st == HL_OK)
        st = client_catalog_path(&path, c) == 0
                 ? client_json(c->client, "GET", path.data, NULL, &cat, err)
                 : client_nomem(err);
    buf_free(&path);
    if (st == HL_OK && !client_json_int(cat, "head_snapshot_id", &tx->read_snapshot))
        st = client_fail(err, HL_ERR_PROTOCOL, "protocol", "the Catalog answer has no head");
    json_decref(cat);
    if (st != HL_OK) {
        hl_transaction_free(tx);
        return st;
    }
    *out = tx;
    return HL_OK;
}

/* Deletes what the transaction wrote (when nothing of it can have been
 * committed) and abandons its claims. */
static void discard(hl_transaction *tx, bool delete_objects)
{
    if (tx->uploads->nuploaded > 0 || json_object_size(tx->changed) > 0)
        mut_discard(tx->catalog, tx->owner, tx->uploads, delete_objects);
}

/* A failed operation fails the open transaction: what it wrote goes. */
static hl_status fail_open(hl_transaction *tx, hl_status st)
{
    if (tx && tx->state == TX_OPEN) {
        discard(tx, true);
        tx->state = TX_FAILED;
    }
    return st;
}

/* An operation may start: the transaction is open, and a delete or update
 * (reads) comes before anything else the transaction does to its table,
 * since an operation sees the tables at the read snapshot, not the
 * transaction's own writes. */
static hl_status check_start(hl_transaction *tx, hl_table *t, bool reads, char *key, size_t size,
                             struct hl_error *err)
{
    if (!tx || !t)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a transaction and a table are required");
    if (tx->state != TX_OPEN)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "transaction_closed",
                           "the transaction %s: no operation can be added",
                           tx->state == TX_FAILED ? "failed" : "was committed");
    if (t->ns->catalog != tx->catalog && strcmp(t->ns->catalog->name, tx->catalog->name) != 0)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "table %s.%s is not in the transaction's catalog %s", t->ns->name,
                           t->name, tx->catalog->name);
    if ((size_t)snprintf(key, size, "%s\t%s", t->ns->name, t->name) >= size)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument", "names too long");
    if (reads && json_object_get(tx->changed, key))
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "table %s.%s was already changed in this transaction: a delete or "
                           "update reads the table as the transaction began, so it must come "
                           "first",
                           t->ns->name, t->name);
    return HL_OK;
}

static hl_status may_start(hl_transaction *tx, hl_table *t, bool reads, char *key, size_t size,
                           struct hl_error *err)
{
    hl_status st = check_start(tx, t, reads, key, size, err);
    return st == HL_OK ? st : fail_open(tx, st);
}

/* After an operation: its groups join the commit's (taken), or, when it
 * failed, the transaction fails. */
static hl_status finish_op(hl_transaction *tx, const char *key, hl_status st, json_t *append,
                           json_t *delete, struct hl_error *err)
{
    if (st == HL_OK && ((append && json_array_append_new(tx->appends, append) != 0) ||
                        (delete &&json_array_append_new(tx->deletes, delete) != 0) ||
                        json_object_set_new(tx->changed, key, json_true()) != 0))
        st = client_nomem(err);
    else if (st != HL_OK) {
        json_decref(append);
        json_decref(delete);
    }
    return st == HL_OK ? st : fail_open(tx, st);
}

hl_status hl_transaction_append(hl_transaction *tx, hl_table *t, struct ArrowArrayStream *stream,
                                int64_t *rows, struct hl_error *err)
{
    int64_t scratch;
    if (!rows)
        rows = &scratch;
    *rows = 0;
    char key[1024];
    hl_status st = may_start(tx, t, false, key, sizeof key, err);
    if (st == HL_OK && (!stream || !stream->release))
        st = fail_open(tx, client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                                       "a stream is required"));
    if (st != HL_OK) {
        if (stream && stream->release)
            stream->release(stream);
        return st;
    }
    /* The table as the transaction reads it. */
    char *text = NULL;
    json_t *info = NULL;
    st = hl_table_info(t, &(struct hl_at){tx->read_snapshot, NULL}, &text, err);
    if (st == HL_OK && !(info = json_loads(text, 0, NULL)))
        st = client_nomem(err);
    free(text);
    const char *uuid = json_string_value(json_object_get(info, "table_uuid"));
    if (st == HL_OK && !uuid)
        st = client_fail(err, HL_ERR_PROTOCOL, "protocol", "the Table answer has no table_uuid");
    json_t *files = NULL, *group = NULL;
    if (st == HL_OK)
        st = client_append_stage(t, info, stream, tx->owner, tx->uploads, &files, rows, err);
    else
        stream->release(stream);
    /* An input without rows adds nothing. */
    if (st == HL_OK && json_array_size(files) > 0 &&
        !(group = json_pack("{s:s,s:s,s:s,s:O}", "namespace", t->ns->name, "table", t->name,
                            "expected_table_uuid", uuid, "files", files)))
        st = client_nomem(err);
    json_decref(files);
    json_decref(info);
    return finish_op(tx, key, st, group, NULL, err);
}

hl_status hl_transaction_delete(hl_transaction *tx, hl_table *t, const char *predicate,
                                int64_t *rows_deleted, struct hl_error *err)
{
    return hl_transaction_update(tx, t, NULL, predicate, rows_deleted, err);
}

hl_status hl_transaction_update(hl_transaction *tx, hl_table *t, const char *set_clause,
                                const char *predicate, int64_t *rows, struct hl_error *err)
{
    int64_t scratch;
    if (!rows)
        rows = &scratch;
    *rows = 0;
    char key[1024];
    hl_status st = may_start(tx, t, true, key, sizeof key, err);
    if (st == HL_OK && !predicate)
        st = fail_open(tx, client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                                       "a predicate is required (\"true\" selects every row)"));
    if (st != HL_OK)
        return st;
    struct mut_stats stats;
    memset(&stats, 0, sizeof stats);
    json_t *append = NULL, *delete = NULL;
    if (set_clause)
        st = client_update_stage(t, tx->read_snapshot, set_clause, predicate, tx->owner, false,
                                 tx->uploads, &stats, &append, &delete, err);
    else
        st = client_delete_stage(t, tx->read_snapshot, predicate, tx->owner, false, tx->uploads,
                                 &stats, &delete, err);
    *rows = stats.rows;
    return finish_op(tx, key, st, append, delete, err);
}

hl_status hl_transaction_commit(hl_transaction *tx, const char *author, const char *message,
                                int64_t *snapshot_id, struct hl_error *err)
{
    int64_t scratch;
    if (!snapshot_id)
        snapshot_id = &scratch;
    *snapshot_id = -1;
    if (!tx)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "hl_transaction_commit needs a transaction");
    if (tx->state == TX_FAILED)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "transaction_closed",
                           "the transaction failed: nothing to commit");
    /* Nothing to commit: no snapshot. */
    if (tx->state == TX_COMMITTED ||
        json_array_size(tx->appends) + json_array_size(tx->deletes) == 0) {
        tx->state = TX_COMMITTED;
        *snapshot_id = tx->snapshot_id;
        return HL_OK;
    }
    if (tx->state == TX_OPEN && ((author && !(tx->author = strdup(author))) ||
                                 (message && !(tx->message = strdup(message)))))
        return client_nomem(err);
    bool sent = false;
    hl_status st =
        mut_commit(tx->catalog, "/commit/transaction", tx->key, tx->read_snapshot, tx->owner,
                   tx->appends, tx->deletes, tx->author, tx->message, &tx->snapshot_id, &sent, err);
    if (st == HL_OK) {
        tx->state = TX_COMMITTED;
        *snapshot_id = tx->snapshot_id;
    } else if (sent && !claims_refused(st, err)) {
        /* It may have landed: the same request again tells. */
        tx->state = TX_SENT;
    } else if (sent || tx->state == TX_OPEN) {
        discard(tx, true);
        tx->state = TX_FAILED;
    }
    return st;
}

void hl_transaction_free(hl_transaction *tx)
{
    if (!tx)
        return;
    /* Never committed: what it wrote goes. Sent, outcome unknown: the
     * objects stay (they may be the table's), the claims are abandoned
     * (registered ones are never touched). */
    if (tx->state == TX_OPEN || tx->state == TX_SENT)
        discard(tx, tx->state == TX_OPEN);
    json_decref(tx->appends);
    json_decref(tx->deletes);
    json_decref(tx->changed);
    hl_append_result_free(tx->uploads);
    free(tx->author);
    free(tx->message);
    free(tx);
}
