/* Versioned schema migrations, compiled into hoglaked from sql/migrations.
 *
 * Applied at start under a session advisory lock, so replicas starting
 * together never race: the first applies, the rest find the work done. Each
 * migration runs in its own transaction and is recorded with its SHA-256;
 * an applied migration whose text has since changed stops the start,
 * because schema changes must be new files, never edits. */
#ifndef HL_SERVER_MIGRATE_H
#define HL_SERVER_MIGRATE_H

#include <stddef.h>

#include "util/embedded.h"
#include "util/error.h"

/* Returns 0 on success; -1 with a message in err. `applied` (may be NULL)
 * receives the number of migrations this call applied. */
int db_migrate(const char *conninfo, const struct embedded_file *migrations, size_t count,
               int *applied, struct error *err);

#endif
