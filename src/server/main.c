/* hoglaked: start-up, the wait for a stop signal, and an orderly shutdown. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "objstore/objstore.h"
#include "server/auth/audit.h"
#include "server/auth/auth.h"
#include "server/auth/auth_bootstrap.h"
#include "server/catalog/catalog_idents.h"
#include "server/config.h"
#include "server/db/db.h"
#include "server/db/migrate.h"
#include "server/embedded_pg.h"
#include "server/http/http.h"
#include "server/http/router.h"
#include "server/maintenance/cleanup.h"
#include "server/maintenance/compaction.h"
#include "server/maintenance/expiry.h"
#include "server/maintenance/retire.h"
#include "server/maintenance/hydrate.h"
#include "server/maintenance/maintenance.h"
#include "server/maintenance/orphans.h"
#include "server/maintenance/summary.h"
#include "server/metrics.h"
#include "server/metrics_sampler.h"
#include "server/privileges.h"
#include "server/server.h"
#include "server/storage_guard.h"
#include "util/embedded.h"
#include "util/log.h"

extern const struct embedded_file hl_migrations[];
extern const size_t hl_migrations_count;
extern const struct embedded_file hl_openapi[];
extern const size_t hl_openapi_count;

/* A PEM file's text (malloc'd, NUL-terminated), at most 1 MiB. NULL with
 * errno set on failure. */
/* Set once shutdown begins: long maintenance runs (retirement) poll it
 * between batches so they do not hold up the stop. */
static atomic_bool maintenance_stop_requested;

static char *read_pem(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    enum { PEM_MAX = 1 << 20 };
    char *text = malloc(PEM_MAX + 1);
    size_t n = text ? fread(text, 1, PEM_MAX + 1, f) : 0;
    int bad = ferror(f);
    fclose(f);
    if (!text || bad || n == 0 || n > PEM_MAX) {
        free(text);
        errno = text && !bad ? EFBIG : errno;
        return NULL;
    }
    text[n] = '\0';
    return text;
}

static void free_pem(char *text)
{
    if (text)
        explicit_bzero(text, strlen(text));
    free(text);
}

/* The certificate and key of --tls-cert/--tls-key, read while the server
 * may still be root (a key is typically root's, 0600). 0, or -1 logged. */
static int load_tls(const struct config *cfg, char **cert, char **key)
{
    if (!cfg->tls_cert[0])
        return 0;
    if (!(*cert = read_pem(cfg->tls_cert)) || !(*key = read_pem(cfg->tls_key))) {
        log_error("cannot read %s: %s", *cert ? cfg->tls_key : cfg->tls_cert, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(cfg->tls_key, &st) == 0 && (st.st_mode & 077))
        log_warn("the TLS private key %s is readable by other users (mode %03o)", cfg->tls_key,
                 (unsigned)(st.st_mode & 0777));
    return 0;
}

/* The port file is opened (emptied) while the server may still be root,
 * so a directory only root can write works, and written once the server
 * listens: one write of a short line, so a reader that sees it non-empty
 * sees all of it. Never through a symbolic link. */
static int open_port_file(const char *path, int *fd, struct error *err)
{
    if (!path[0])
        return 0;
    *fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (*fd >= 0)
        return 0;
    error_fail(err, ERR_IO, "cannot write port file %s: %s", path, strerror(errno));
    return -1;
}

static int write_port_file(int fd, int port)
{
    char line[16];
    int n = snprintf(line, sizeof line, "%d\n", port);
    return write(fd, line, (size_t)n) == n ? 0 : -1;
}

/* In embedded mode new catalogs default to <data-dir>/warehouse/<name>. */
static int default_warehouse(struct config *cfg)
{
    if (cfg->warehouse[0])
        return 0;
    char abs[PATH_MAX];
    if (!realpath(cfg->data_dir, abs))
        return -1;
    char dir[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/warehouse", abs);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return -1;
    if (snprintf(cfg->warehouse, sizeof cfg->warehouse, "file://%s", dir) >=
        (int)sizeof cfg->warehouse)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    static struct server srv;
    switch (config_load(&srv.cfg, argc, argv)) {
    case CONFIG_OK: break;
    case CONFIG_EXIT_OK: return 0;
    case CONFIG_EXIT_USAGE: return 2;
    }
    log_set_level((enum log_level)srv.cfg.log_level);
    /* Answers of megabytes (a 54,000-table listing is 7.6 MB) get pages of
     * their own, returned when freed. glibc otherwise raises its mmap
     * threshold to the largest block freed, and the next such answers come
     * from the arenas of the request threads, which keep them: 181 MB
     * resident after listings where the server idles at 16. */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    signal(SIGPIPE, SIG_IGN);
    /* Stop signals are taken by sigwait in main only; every thread created
     * from here on inherits the mask. */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

    int exit_code = 1;
    struct embedded_pg *epg = NULL;
    struct metrics_sampler *sampler = NULL;
    struct summary_sampler *summary = NULL;
    char *tls_cert = NULL, *tls_key = NULL;
    int listen_fd = -1; /* bound while root (a port below 1024), served from later */
    int port_fd = -1;
    int claim_fd = -1; /* the embedded data dir's lock, until the cluster takes it */
    struct error fault = {0};
    char conninfo[1200];
    bool embedded = !srv.cfg.database_url[0];
    /* Everything that needs root happens here, then root is gone. The data
     * dir is claimed before anything in it changes hands. */
    struct run_as as;
    if (privileges_resolve(&srv.cfg, &as, &fault) != 0 ||
        (embedded && (claim_fd = embedded_pg_claim(srv.cfg.data_dir, &fault)) < 0) ||
        privileges_prepare(&srv.cfg, &as, &fault) != 0 ||
        load_tls(&srv.cfg, &tls_cert, &tls_key) != 0 ||
        (listen_fd = http_bind(srv.cfg.listen, srv.cfg.port, NULL, &fault)) < 0 ||
        open_port_file(srv.cfg.port_file, &port_fd, &fault) != 0 ||
        privileges_drop(&as, srv.cfg.data_dir, &fault) != 0) {
        if (fault.msg[0])
            log_error("%s", fault.msg);
        if (listen_fd >= 0)
            close(listen_fd);
        if (port_fd >= 0)
            close(port_fd);
        if (claim_fd >= 0)
            close(claim_fd);
        free_pem(tls_cert);
        free_pem(tls_key);
        return 1;
    }
    if (!embedded) {
        snprintf(conninfo, sizeof conninfo, "%s", srv.cfg.database_url);
    } else {
        epg = embedded_pg_start(&srv.cfg, claim_fd, conninfo, sizeof conninfo, &fault);
        if (!epg) {
            log_error("%s", fault.msg);
            goto out;
        }
        if (default_warehouse(&srv.cfg) != 0) {
            log_error("cannot prepare the warehouse directory under %s: %s", srv.cfg.data_dir,
                      strerror(errno));
            goto out;
        }
    }
    srv.conninfo = conninfo;
    if (storage_roots_init(&srv, &fault) != 0) {
        log_error("%s", fault.msg);
        goto out;
    }
    int applied = 0;
    if (db_migrate(conninfo, hl_migrations, hl_migrations_count, &applied, &fault) != 0) {
        log_error("%s", fault.msg);
        goto out;
    }
    srv.pool = db_pool_create(conninfo, srv.cfg.db_pool_size, &fault);
    if (!srv.pool) {
        log_error("cannot connect to the catalog database: %s", fault.msg);
        goto out;
    }
    const struct route *undeclared;
    if (!router_check(&undeclared)) {
        log_error("route %s %s declares no access policy", undeclared->method, undeclared->pattern);
        goto out;
    }
    srv.auth = auth_new(srv.cfg.auth, srv.cfg.metrics_public);
    srv.catalog_idents = catalog_idents_new();
    if (!srv.auth || !srv.catalog_idents) {
        log_error("out of memory");
        goto out;
    }
    if ((srv.cfg.auth || srv.cfg.reset_admin_token) &&
        auth_bootstrap(srv.pool, srv.cfg.data_dir, srv.cfg.reset_admin_token, &fault) != 0) {
        log_error("%s", fault.msg);
        goto out;
    }
    if (!srv.cfg.auth)
        log_warn("authentication is OFF (--auth off): every request acts as admin. For "
                 "development only: the server listens on loopback and answers only requests "
                 "addressed to localhost, 127.0.0.1 or [::1]");
    srv.metrics = metrics_create();
    if (!srv.metrics) {
        log_error("out of memory");
        goto out;
    }
    /* Embedded mode: a dead postmaster is restarted (embedded_pg.h). */
    if (epg && embedded_pg_supervise(epg, srv.metrics, &fault) != 0) {
        log_error("%s", fault.msg);
        goto out;
    }
    srv.audit = audit_open(srv.cfg.audit_log, srv.metrics);
    if (!srv.audit) {
        log_error("cannot start the audit log writer");
        goto out;
    }
    if (srv.cfg.audit_log[0] && strcmp(srv.cfg.audit_log, "-") != 0)
        log_info("audit log: %s", srv.cfg.audit_log);
    struct objstore_config os_cfg = {
        .s3_endpoint = srv.cfg.s3_endpoint[0] ? srv.cfg.s3_endpoint : NULL,
        .s3_region = srv.cfg.s3_region[0] ? srv.cfg.s3_region : NULL,
    };
    struct hl_error os_err;
    if (objstore_open(&os_cfg, &srv.objstore, &os_err) != 0) {
        log_error("object storage: %s", os_err.message);
        goto out;
    }
    pthread_mutex_init(&srv.probe_mu, NULL);
    static _Atomic int64_t expiry_page_memory;
    static struct expiry_task expiry;
    expiry = (struct expiry_task){
        .page_memory = &expiry_page_memory,
        .opt = {.batch = srv.cfg.expire_batch,
                .purge_page = srv.cfg.expire_purge_page,
                .purge_budget_ms = srv.cfg.expire_purge_budget_ms,
                .lock_timeout_ms = srv.cfg.commit_lock_timeout_ms},
        .metrics = srv.metrics,
    };
    static struct retirement_task retirement;
    retirement = (struct retirement_task){
        .opt = {.batch = srv.cfg.retirement_batch,
                .pause_ms = srv.cfg.retirement_pause_ms,
                .budget_ms = srv.cfg.retirement_budget_ms,
                .lock_timeout_ms = srv.cfg.commit_lock_timeout_ms},
        .srv = &srv,
        .stop = &maintenance_stop_requested,
    };
    static struct hydrate_task hydrator;
    hydrator = (struct hydrate_task){.srv = &srv, .batch = srv.cfg.hydrator_batch};
    static struct cleanup_task cleanup;
    cleanup = (struct cleanup_task){.srv = &srv,
                                    .batch = srv.cfg.cleanup_batch,
                                    .receipt_retention_s = srv.cfg.receipt_retention_s};
    static struct compaction_task compaction;
    compaction_task_init(&compaction, &srv);
    static struct orphans_task orphans;
    orphans = (struct orphans_task){.srv = &srv,
                                    .opt = {.grace_s = srv.cfg.orphan_grace_s,
                                            .limit = ORPHANS_DEFAULT_LIMIT,
                                            .budget_ms = ORPHANS_BUDGET_MS,
                                            .lock_timeout_ms = srv.cfg.commit_lock_timeout_ms}};
    /* Every maintenance task, looped or manual-only (interval 0). */
    const struct maint_task tasks[] = {
        {"expiry", srv.cfg.expire_interval_ms, expiry_pass, expiry_backlog, &expiry},
        {"retirement", srv.cfg.retirement_interval_ms, retirement_pass, retirement_backlog,
         &retirement},
        {"hydrator", srv.cfg.hydrator_interval_ms, hydrate_task_pass, hydrate_task_backlog,
         &hydrator},
        {"cleanup", srv.cfg.cleanup_interval_ms, cleanup_task_pass, cleanup_backlog, &cleanup},
        {"compaction", srv.cfg.compaction_interval_ms, compaction_pass, compaction_backlog,
         &compaction},
        {"orphans", srv.cfg.orphan_interval_ms, orphans_task_pass, NULL, &orphans},
    };
    srv.maint = maintenance_start(srv.pool, srv.metrics, srv.audit, tasks,
                                  sizeof tasks / sizeof tasks[0], &fault);
    if (!srv.maint) {
        log_error("%s", fault.msg);
        goto out;
    }
    if (srv.cfg.metrics_interval_ms > 0 &&
        !(sampler =
              metrics_sampler_start(srv.pool, srv.metrics, srv.cfg.metrics_interval_ms, &fault))) {
        log_error("%s", fault.msg);
        goto out;
    }
    if (srv.cfg.summary_interval_ms > 0) {
        const struct summary_options opt = {.interval_ms = srv.cfg.summary_interval_ms,
                                            .batch = srv.cfg.summary_batch,
                                            .refresh_s = srv.cfg.summary_refresh_s,
                                            .small_bytes = COMPACTION_TARGET_BYTES,
                                            .change_limit = 10 * srv.cfg.summary_batch};
        if (!(summary = summary_sampler_start(srv.pool, srv.metrics, &opt, &fault))) {
            log_error("%s", fault.msg);
            goto out;
        }
    }
    srv.openapi_yaml = hl_openapi[0].data;
    srv.openapi_len = hl_openapi[0].len;

    struct http_options opts = {
        .listen = srv.cfg.listen,
        .port = srv.cfg.port,
        .prebound = true,
        .listen_fd = listen_fd,
        .workers = srv.cfg.request_threads,
        .max_body_bytes = srv.cfg.max_body_bytes,
        .max_metadata_body_bytes = srv.cfg.max_metadata_body_bytes,
        .max_inflight_body_bytes = srv.cfg.max_inflight_body_bytes,
        .max_query_params = srv.cfg.max_query_params,
        .header_timeout_ms = srv.cfg.header_timeout_ms,
        .request_timeout_ms = srv.cfg.request_timeout_ms,
        .max_connections = srv.cfg.max_connections,
        .max_client_connections = srv.cfg.max_client_connections,
    };
    opts.tls_cert_pem = tls_cert;
    opts.tls_key_pem = tls_key;
    struct http_handlers handlers = {
        .ctx = &srv,
        .is_inline = server_is_inline,
        .handle = server_handle,
        .completed = server_request_completed,
    };
    srv.http = http_server_start(&opts, &handlers, &fault);
    listen_fd = -1; /* the server's now, even when it failed to start */
    if (!srv.http) {
        log_error("%s", fault.msg);
        goto out;
    }
    int port = http_server_port(srv.http);
    /* The start line before the port file: whoever waits for the file
     * (a supervisor, the tests) finds the line in the log with it. */
    log_info("hoglaked %s listening on %s://%s:%d (%s; warehouse %s)", HOGLAKE_VERSION,
             srv.cfg.tls_cert[0] ? "https" : "http", srv.cfg.listen, port,
             epg ? "embedded PostgreSQL" : "external PostgreSQL",
             srv.cfg.warehouse[0] ? srv.cfg.warehouse : "none");
    if (port_fd >= 0 && write_port_file(port_fd, port) != 0) {
        log_error("cannot write port file %s: %s", srv.cfg.port_file, strerror(errno));
        goto out;
    }
    if (!srv.cfg.tls_cert[0] && !auth_listen_is_loopback(srv.cfg.listen))
        log_warn("listening on %s without TLS: bearer tokens and data travel in clear text; "
                 "serve HTTPS with --tls-cert and --tls-key",
                 srv.cfg.listen);

    int sig = 0;
    while (sigwait(&stop_signals, &sig) != 0) {
    }
    log_info("received %s: draining in-flight requests", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    exit_code = 0;
out:
    atomic_store(&maintenance_stop_requested, true);
    http_server_stop(srv.http, srv.cfg.shutdown_timeout_ms);
    srv.http = NULL;
    if (listen_fd >= 0)
        close(listen_fd); /* a start-up that failed before the server took it */
    if (port_fd >= 0)
        close(port_fd);
    /* After the HTTP drain (no manual pass in flight), before the pool goes. */
    maintenance_stop(srv.maint);
    srv.maint = NULL;
    metrics_sampler_stop(sampler);
    summary_sampler_stop(summary);
    /* The last database user is gone: no restart from here on, and none
     * counted into metrics after they are freed. */
    embedded_pg_unsupervise(epg);
    if (srv.probe_conn)
        PQfinish(srv.probe_conn);
    db_pool_destroy(srv.pool);
    /* Last of the writers gone: what is queued is written now. */
    audit_close(srv.audit);
    metrics_destroy(srv.metrics);
    objstore_free(srv.objstore);
    embedded_pg_stop(epg);
    auth_free(srv.auth);
    catalog_idents_free(srv.catalog_idents);
    storage_roots_free(&srv);
    free_pem(tls_cert);
    free_pem(tls_key);
    if (exit_code == 0)
        log_info("stopped");
    return exit_code;
}
