#include "server/auth/auth_bootstrap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/db/db.h"
#include "server/store/tokens.h"
#include "util/datadir.h"
#include "util/log.h"

/* Writes the secret to <dir>/admin.token through a new 0600 file renamed
 * into place: never through an existing file or a link an attacker
 * planted, never half-written. */
static int write_secret_file(const char *dir, const char *secret, char *path, size_t path_size)
{
    char tmp[1100];
    if (snprintf(path, path_size, "%s/" ADMIN_TOKEN_FILE, dir) >= (int)path_size ||
        snprintf(tmp, sizeof tmp, "%s/.admin.token.XXXXXX", dir) >= (int)sizeof tmp)
        return -1;
    if (datadir_make_dirs(dir, 0755) != 0)
        return -1;
    int fd = mkstemp(tmp); /* O_EXCL, mode 0600 */
    if (fd < 0)
        return -1;
    size_t n = strlen(secret);
    bool ok = fchmod(fd, 0600) == 0 && write(fd, secret, n) == (ssize_t)n &&
              write(fd, "\n", 1) == 1 && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        errno = saved;
        return -1;
    }
    return 0;
}

/* Under the lock: decides, writes the file, inserts the token. */
static int bootstrap_locked(struct db_conn *c, const char *data_dir, bool reset, struct error *err)
{
    if (reset && store_token_revoke_bootstrap_admins(c, err) != 0)
        return -1;
    int exists = 0;
    if (!reset && (exists = store_token_has_live_admin(c, err)) < 0)
        return -1;
    if (exists) {
        log_info("authentication is on; an admin token exists");
        return 0;
    }
    char secret[TOKEN_SECRET_LEN + 1];
    uint8_t digest[SHA256_BYTES];
    if (token_secret_new(secret) != 0 || token_secret_hash(secret, TOKEN_SECRET_LEN, digest) != 0) {
        error_fail(err, ERR_INTERNAL, "cannot generate the admin token's secret");
        return -2;
    }
    char path[1024];
    int rc = write_secret_file(data_dir, secret, path, sizeof path);
    explicit_bzero(secret, sizeof secret);
    if (rc != 0) {
        error_fail(err, ERR_IO, "cannot write the admin token to %s/" ADMIN_TOKEN_FILE ": %s",
                   data_dir, strerror(errno));
        return -2;
    }
    struct store_token_new t = {.name = "bootstrap-admin", .role = ROLE_ADMIN};
    struct store_token_rows row = {NULL};
    if (store_token_insert(c, &t, digest, &row, err) != 0 ||
        (store_token_rows_count(&row) != 1 && error_nomem(err) != 0) ||
        db_commit(c->pg, err) != 0) {
        store_token_rows_free(&row);
        unlink(path); /* a secret for a token that never was */
        return -1;
    }
    log_info("authentication is on; created admin token %s, its secret is in %s (mode 0600)",
             store_token_rows_id(&row, 0), path);
    store_token_rows_free(&row);
    return 0;
}

int auth_bootstrap(struct db_pool *pool, const char *data_dir, bool reset, struct error *err)
{
    struct db_conn *c = db_pool_acquire(pool, 30000);
    if (!c)
        return error_fail(err, ERR_UNAVAILABLE, "admin token: no database connection");
    int rc = -1;
    if (db_begin(c->pg, err) != 0 || store_token_lock_bootstrap(c, err) != 0)
        goto db_fail;
    /* -1: the database failed; -2: err already says what else did. */
    rc = bootstrap_locked(c, data_dir, reset, err);
    if (rc == -1)
        goto db_fail;
    /* Still open when there was nothing to create. */
    struct error ignored;
    if (rc != 0)
        db_rollback(c->pg);
    else if (PQtransactionStatus(c->pg) != PQTRANS_IDLE)
        db_commit(c->pg, &ignored);
    db_pool_release(c);
    return rc == 0 ? 0 : -1;
db_fail:
    error_prefix(err, "admin token");
    db_rollback(c->pg);
    db_pool_release(c);
    return -1;
}
