/* The first admin: on start with authentication on, when the catalog
 * database holds no live admin token, the server makes one and writes its
 * secret to <data-dir>/admin.token (mode 0600, owned by the user the
 * server runs as), so the first request needs no setup. The secret is
 * never logged; the file's path is.
 *
 * Replicas sharing a database make one token between them (the check and
 * the insert run under an instance-wide advisory lock). A restart finds
 * the admin and writes nothing. `reset` (--reset-admin-token) revokes the
 * admin tokens the server made itself and writes a new one: the way back
 * in when the file is lost. */
#ifndef HL_SERVER_AUTH_AUTH_BOOTSTRAP_H
#define HL_SERVER_AUTH_AUTH_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

struct db_pool;

#define ADMIN_TOKEN_FILE "admin.token"

/* 0, or -1 with a message in err (the server must not start: nobody could
 * administer it). */
int auth_bootstrap(struct db_pool *pool, const char *data_dir, bool reset, struct error *err);

#endif
