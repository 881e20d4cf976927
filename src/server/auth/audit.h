/* The audit log (contract §8.2): one JSON line per consequential action,
 *   {"time", "action", "actor": {"token_id", "name"}, "outcome", "catalog"?,
 *    "object"?, "detail"?, "request_id"?}
 * written after the action's transaction resolved, never inside it.
 *
 * Destinations (--audit-log / HOGLAKE_AUDIT_LOG):
 *  - unset: the process log on stderr, as logger "hoglake.audit"
 *    ("<time> info  hoglake.audit {json}"), whatever --log-level says: the
 *    audit trail is a record, not a diagnostic;
 *  - "-": bare JSON lines on stderr (for a log shipper);
 *  - a path: the file, opened O_APPEND (created 0640), one write(2) per
 *    line, so lines from every thread and every replica sharing the file
 *    stay whole.
 *
 * Emitting never blocks on I/O and never fails the caller: audit_emit
 * formats the line and queues it; one writer thread drains the queue in
 * order. A full queue drops the line (hoglake_audit_lines_dropped_total);
 * a line that cannot be written (the file cannot be opened, the disk is
 * full) is counted in hoglake_audit_write_failures_total and logged at
 * most once a minute. An unopenable path is retried, at most once a
 * second, so fixing it needs no restart.
 *
 * Thread-safety: audit_emit may be called from any thread. */
#ifndef HL_SERVER_AUTH_AUDIT_H
#define HL_SERVER_AUTH_AUDIT_H

#include <jansson.h>
#include <stdint.h>

struct metrics;
struct audit;

/* Who acted: a token's id and name, never its secret. */
struct audit_actor {
    const char *token_id; /* NULL: no token (auth off, an anonymous refusal) */
    const char *name;
};

struct audit_event {
    const char *action; /* required: catalog_create, commit, ... */
    /* NULL: the server's own work (maintenance loops), written as
     * {"token_id": null, "name": "hoglaked"}. */
    const struct audit_actor *actor;
    const char *outcome;    /* required: ok, committed, conflict, ... */
    const char *catalog;    /* optional */
    const char *object;     /* optional: "ns", "ns.table", a consumer, ... */
    const json_t *detail;   /* optional, borrowed: any JSON value */
    const char *request_id; /* optional */
};

/* Starts the sink (path NULL or "": the process log). NULL only when the
 * writer thread cannot start or memory runs out; an unwritable path is not
 * an error here (see above). */
struct audit *audit_open(const char *path, struct metrics *metrics);
/* Writes what is queued, stops the writer and frees a. NULL is a no-op. */
void audit_close(struct audit *a);

/* Queues one line. a NULL (no sink) or an event without action/outcome is
 * a no-op. */
void audit_emit(struct audit *a, const struct audit_event *ev);

/* The contract's outcome for an answered request: `success` below 400,
 * else from the error: ddl_since_read_snapshot and table_recreated as
 * they are, offset_regression -> regression, other 409s -> conflict,
 * 404 -> not_found, 400/410/413/422 -> validation, 503 -> timeout,
 * anything else -> error. Also hoglake_commits_total's result label. */
const char *audit_outcome(int status, const char *code, const char *success);

/* The line for ev without its newline (malloc'd; NULL when out of memory).
 * time_us is the event time in microseconds since the epoch. */
char *audit_format(const struct audit_event *ev, int64_t time_us);

#endif
