/* An append's upload claims (contract 2.7, docs/client.md): every object
 * the writer path uploads is first claimed under one owner (a fresh uuid4
 * per append), in batches (POST .../uploads), at the path the server
 * answers. The commit names the owner (upload_owner), which registers the
 * claimed paths it lists and releases the owner's other claims. An append
 * that does not commit abandons them (POST .../uploads/abandon), after
 * deleting what it wrote when nothing can have been committed. */
#ifndef HL_CLIENT_CLAIMS_H
#define HL_CLIENT_CLAIMS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "client/internal.h"

/* The server's bound on upload_ids per claim request. */
enum { CLAIMS_MAX_BATCH = 1000 };

/* What the claimed paths will hold: data files (.parquet) or deletion
 * vectors (.puffin), the claim's file_kind. */
enum claims_kind { CLAIMS_DATA, CLAIMS_DELETES };

struct claims {
    hl_catalog *catalog;
    enum claims_kind kind;
    char owner[37];
    char *prefix; /* "<data_path>/data/<ns>/<table>/[<key>/]" */
    char **paths; /* claimed, not yet taken */
    size_t npaths, taken_from;
    size_t batch;       /* upload ids in the next claim request */
    size_t budget;      /* claims still allowed; SIZE_MAX: no bound */
    bool requested;     /* a claim request was sent: the server may hold claims of owner */
    double renew_after; /* seconds between renewals of a long append's claims */
    double renewed_at;  /* monotonic seconds of the first claim or the last renewal */
};

/* A fresh owner for the objects written under prefix (copied). The first
 * request claims first_batch ids, each later one twice the one before, up
 * to CLAIMS_MAX_BATCH; total bounds the claims in all (0: no bound). */
hl_status claims_init(struct claims *c, hl_catalog *catalog, enum claims_kind kind,
                      const char *prefix, size_t first_batch, size_t total, struct hl_error *err);
void claims_free(struct claims *c);

/* The path of the next object to write (into out), claiming a batch when
 * none is left. */
hl_status claims_take(struct claims *c, char *out, size_t size, struct hl_error *err);

/* The size of the claim request after one of `previous` ids. */
size_t claims_next_batch(size_t previous);

/* Checks a claim answer against the ids asked for (in that order) and the
 * prefix: each path must be the prefix followed by one segment, ending in
 * ".parquet" (".puffin" for deletion vectors). Appends the paths to c's pool. HL_ERR_PROTOCOL
 * otherwise. */
hl_status claims_accept(struct claims *c, const json_t *answer, char (*ids)[37], size_t n,
                        struct hl_error *err);

/* Renews the owner's claims when the last claim or renewal is older than
 * renew_after: an append that reads its input for longer than a lease
 * keeps its claims. A failure is logged: the commit then tells whether
 * the claims held. */
void claims_keep_alive(struct claims *c);

/* Sets "upload_owner" on a commit body. 0 or -1 (out of memory). */
int claims_name_owner(const struct claims *c, json_t *body);

/* After an append that did not commit: when nothing can have been
 * committed (delete_objects), deletes every object res->uploaded lists
 * (those that could not be deleted stay listed, res->nremoved counts the
 * others); then abandons the owner's claims, so that the server's cleanup
 * reclaims whatever is left. Failures go to the client's log, never to the
 * caller's error, which stands. */
void claims_discard(struct claims *c, struct hl_append_result *res, bool delete_objects);

/* Whether a failed commit was answered by the server (an HTTP 4xx): it
 * then definitely did not commit. Anything else (timeout, transport, 5xx,
 * an answer that cannot be read) leaves the outcome unknown. */
bool claims_refused(hl_status st, const struct hl_error *err);

#endif
