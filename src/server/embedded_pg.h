/* The embedded default: a private PostgreSQL cluster under the data dir.
 *
 * On first start the cluster is created with initdb; every start runs it
 * with no TCP listener (a Unix socket inside the private directory only),
 * as an unprivileged user when hoglaked runs as root, and stop shuts it down.
 * A lock file keeps two hoglaked processes off one data dir.
 *
 * Call start before any thread is created and stop after all have ended:
 * both fork and exec PostgreSQL's tools. */
#ifndef HL_SERVER_EMBEDDED_PG_H
#define HL_SERVER_EMBEDDED_PG_H

#include <stddef.h>

struct config;
struct embedded_pg;

/* Writes the libpq conninfo of the cluster's `hoglake` database into
 * conninfo. Returns NULL with a message in err on failure. */
struct embedded_pg *embedded_pg_start(const struct config *cfg, char *conninfo,
                                      size_t conninfo_size, char *err, size_t err_size);
void embedded_pg_stop(struct embedded_pg *pg);

#endif
