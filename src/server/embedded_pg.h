/* The embedded default: a private PostgreSQL cluster under the data dir.
 *
 * On first start the cluster is created with initdb; every start runs it
 * with no TCP listener (a Unix socket inside the private directory only),
 * as an unprivileged user when hoglaked runs as root, and stop shuts it down.
 * A lock file keeps two hoglaked processes off one data dir.
 *
 * Supervision: once the server is up, a thread checks every 500 ms that the
 * postmaster still runs and restarts it when it died (its leftover backends
 * ended, exponential backoff from 100 ms to 5 s between attempts, a log line
 * per attempt, hoglake_postgres_restarts_total counted per restart).
 *
 * Call start before other threads exist (it reads the environment and
 * process-wide user data); PostgreSQL's tools are forked with only
 * async-signal-safe calls before exec, so restarts may fork from a threaded
 * process. */
#ifndef HL_SERVER_EMBEDDED_PG_H
#define HL_SERVER_EMBEDDED_PG_H

#include <stddef.h>

#include "util/error.h"

struct config;
struct embedded_pg;
struct metrics;

/* Claims data_dir for this process (made when missing): the exclusive lock
 * of its hoglaked.lock, held for the server's life, since embedded mode runs
 * one server per data dir. Taken first, before anything in the data dir is
 * touched (handed to the server's user, or the cluster started), so a
 * second server refused here changes nothing. Returns the lock's fd, or -1
 * with a message. */
int embedded_pg_claim(const char *data_dir, struct error *err);

/* Starts (creating when missing) the cluster under the data dir claimed by
 * claim_fd, which it takes over (closed with the cluster, or on failure).
 * Writes the libpq conninfo of the cluster's `hoglake` database into
 * conninfo. Returns NULL with a message in err on failure. */
struct embedded_pg *embedded_pg_start(const struct config *cfg, int claim_fd, char *conninfo,
                                      size_t conninfo_size, struct error *err);
/* Starts the supervisor, which counts restarts in metrics (kept until
 * embedded_pg_unsupervise). When the postmaster cannot be watched (its pid
 * file or /proc unreadable) it logs a warning and supervises nothing.
 * Returns -1 with a message in err when the thread cannot be started. */
int embedded_pg_supervise(struct embedded_pg *pg, struct metrics *metrics, struct error *err);
/* Stops and joins the supervisor, cancelling a restart in progress; no
 * restart happens after it returns. Idempotent; NULL is a no-op. */
void embedded_pg_unsupervise(struct embedded_pg *pg);
/* Stops supervision, then the cluster. */
void embedded_pg_stop(struct embedded_pg *pg);

#endif
