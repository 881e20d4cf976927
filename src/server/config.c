#include "server/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/auth/auth.h"
#include "util/datadir.h"
#include "util/log.h"
#include "util/strutil.h"

enum opt_kind { OPT_STRING, OPT_INT, OPT_INT64, OPT_BOOL, OPT_ON_OFF, OPT_LOG_LEVEL };

struct option_def {
    const char *flag; /* without the leading "--" */
    const char *env;
    enum opt_kind kind;
    size_t offset;
    size_t size;      /* buffer size for strings */
    int64_t min, max; /* for numbers */
    const char *help;
};

#define STR_OPT(flag, env, field, help)                                                            \
    {                                                                                              \
        flag, env, OPT_STRING, offsetof(struct config, field),                                     \
            sizeof(((struct config *)0)->field), 0, 0, help                                        \
    }
#define NUM_OPT(kind, flag, env, field, lo, hi, help)                                              \
    {                                                                                              \
        flag, env, kind, offsetof(struct config, field), 0, lo, hi, help                           \
    }
#define INT_OPT(flag, env, field, lo, hi, help) NUM_OPT(OPT_INT, flag, env, field, lo, hi, help)
#define INT64_OPT(flag, env, field, lo, hi, help) NUM_OPT(OPT_INT64, flag, env, field, lo, hi, help)
#define BOOL_OPT(flag, env, field, help) NUM_OPT(OPT_BOOL, flag, env, field, 0, 0, help)

static const struct option_def options[] = {
    INT_OPT("port", "HOGLAKE_PORT", port, 0, 65535,
            "TCP port to listen on (default 8080; 0 picks a free port, see --port-file)"),
    STR_OPT("listen", "HOGLAKE_LISTEN", listen,
            "IPv4 or IPv6 address to listen on (default 127.0.0.1)"),
    {"auth", "HOGLAKE_AUTH", OPT_ON_OFF, offsetof(struct config, auth), 0, 0, 0,
     "on: every request but /livez and /healthz needs a bearer token (default). off: for\n"
     "development only, every request acts as admin; then the server listens only on\n"
     "loopback and answers only requests addressed to a loopback name"},
    BOOL_OPT("metrics-public", "HOGLAKE_METRICS_PUBLIC", metrics_public,
             "serve /metrics without a token (default false: any token for every catalog)"),
    BOOL_OPT("reset-admin-token", "HOGLAKE_RESET_ADMIN_TOKEN", reset_admin_token,
             "revoke the admin tokens the server made itself and write a new one to\n"
             "<data-dir>/admin.token (a lost bootstrap token)"),
    STR_OPT("tls-cert", "HOGLAKE_TLS_CERT", tls_cert,
            "serve HTTPS with this PEM certificate (chain); needs --tls-key"),
    STR_OPT("tls-key", "HOGLAKE_TLS_KEY", tls_key, "the PEM private key of --tls-cert"),
    STR_OPT("database-url", "HOGLAKE_DATABASE_URL", database_url,
            "libpq URI of the catalog database, shared by every replica. When unset,\n"
            "hoglaked runs a private PostgreSQL cluster under --data-dir"),
    STR_OPT("data-dir", "HOGLAKE_DATA_DIR", data_dir,
            "state directory: the embedded cluster and the default warehouse\n"
            "(default /var/lib/hoglake as root, else $XDG_DATA_HOME/hoglake)"),
    STR_OPT("warehouse", "HOGLAKE_WAREHOUSE", warehouse,
            "data_path base for catalogs created without one: new catalogs get\n"
            "<warehouse>/<name>. Default in embedded mode: file://<data-dir>/warehouse"),
    STR_OPT("instance-name", "HOGLAKE_INSTANCE_NAME", instance_name, "name reported by /v1/info"),
    INT_OPT("db-pool-size", "HOGLAKE_DB_POOL_SIZE", db_pool_size, 1, 1000,
            "database connections in the pool (default 10)"),
    INT_OPT("request-threads", "HOGLAKE_REQUEST_THREADS", request_threads, 1, 1000,
            "worker threads serving requests (default: the pool size; at most the pool size)"),
    INT_OPT(
        "commit-lock-timeout-ms", "HOGLAKE_COMMIT_LOCK_TIMEOUT_MS", commit_lock_timeout_ms, 0,
        86400000,
        "how long a DDL or commit waits for its catalog lock, including time queued\n"
        "for a worker, before answering 503 commit_queue_timeout (default 30000; 0 = no limit)"),
    INT_OPT("health-probe-timeout-ms", "HOGLAKE_HEALTH_PROBE_TIMEOUT_MS", health_probe_timeout_ms,
            100, 600000, "bound on the /healthz database probe (default 2000)"),
    INT_OPT("shutdown-timeout-ms", "HOGLAKE_SHUTDOWN_TIMEOUT_MS", shutdown_timeout_ms, 0, 3600000,
            "on SIGTERM, how long to let in-flight requests finish (default 30000)"),
    INT64_OPT("max-body-bytes", "HOGLAKE_MAX_BODY_BYTES", max_body_bytes, 1024, (int64_t)1 << 34,
              "largest body of a commit (POST .../commit, .../commit/prepared) or a view create\n"
              "(POST .../views); larger gets 413 "
              "(default 67108864)"),
    INT64_OPT("max-metadata-body-bytes", "HOGLAKE_MAX_METADATA_BODY_BYTES", max_metadata_body_bytes,
              1024, (int64_t)1 << 34,
              "largest body of every other request; larger gets 413 (default 1048576)"),
    INT64_OPT("max-inflight-body-bytes", "HOGLAKE_MAX_INFLIGHT_BODY_BYTES", max_inflight_body_bytes,
              1024, (int64_t)1 << 40,
              "request bodies the server holds at once, over all requests; past it a request is\n"
              "answered 503 with Retry-After (default 268435456)"),
    INT_OPT("json-max-depth", "HOGLAKE_JSON_MAX_DEPTH", json_max_depth, 2, 1000,
            "deepest nesting of a JSON body (default 64)"),
    INT64_OPT("json-max-values", "HOGLAKE_JSON_MAX_VALUES", json_max_values, 16, (int64_t)1 << 32,
              "most values (scalars, arrays, objects) in one JSON body; a body also may not hold\n"
              "more than one per 8 bytes of itself (default 4000000)"),
    INT_OPT("max-query-params", "HOGLAKE_MAX_QUERY_PARAMS", max_query_params, 1, 10000,
            "most query parameters in one request; more get 400 (default 64)"),
    INT_OPT("header-timeout-ms", "HOGLAKE_HEADER_TIMEOUT_MS", header_timeout_ms, 100, 3600000,
            "time to receive a request's line and headers before the connection is closed\n"
            "(default 30000)"),
    INT_OPT("request-timeout-ms", "HOGLAKE_REQUEST_TIMEOUT_MS", request_timeout_ms, 100, 86400000,
            "time to receive a whole request, body included (default 120000)"),
    INT_OPT("max-connections", "HOGLAKE_MAX_CONNECTIONS", max_connections, 0, 1000000,
            "open connections past which only /livez, /healthz and /metrics are served; a\n"
            "reserve above it is kept for them (default 0: from the open-file limit)"),
    INT_OPT("max-client-connections", "HOGLAKE_MAX_CLIENT_CONNECTIONS", max_client_connections, 1,
            1000000, "open connections from one client address (default 1024)"),
    INT_OPT("statement-timeout-ms", "HOGLAKE_STATEMENT_TIMEOUT_MS", statement_timeout_ms, 100,
            3600000, "how long one statement of a read (GET) may run (default 15000)"),
    INT_OPT("page-size-max", "HOGLAKE_PAGE_SIZE_MAX", page_size_max, 1, 1000000,
            "most entries one page of files, scan or changes holds (default 10000)"),
    INT_OPT("page-bytes-max", "HOGLAKE_PAGE_BYTES_MAX", page_bytes_max, 1, 1073741824,
            "stored bytes (paths, partition values, statistics, split offsets; authors,\n"
            "messages, change rows) past which a files, scan, changes or snapshots page ends\n"
            "early (default 16777216)"),
    STR_OPT("file-roots", "HOGLAKE_FILE_ROOTS", file_roots,
            "directories (':'-separated) under which file:// catalogs may lie; a data_path\n"
            "elsewhere gets 422 data_path_not_allowed (default: the warehouse directory)"),
    STR_OPT("user", "HOGLAKE_USER", user,
            "started as root, run as this unprivileged user, created when missing\n"
            "(default hoglake)"),
    BOOL_OPT("allow-root", "HOGLAKE_ALLOW_ROOT", allow_root,
             "keep running as root instead of switching to --user (not recommended)"),
    STR_OPT("port-file", "HOGLAKE_PORT_FILE", port_file,
            "write the bound port to this file once listening (for tests and supervisors)"),
    STR_OPT("pg-user", "HOGLAKE_PG_USER", pg_user,
            "embedded mode as root: the unprivileged user owning the cluster (default postgres)"),
    STR_OPT(
        "pg-bin", "HOGLAKE_PG_BIN", pg_bin,
        "embedded mode: PostgreSQL's bin directory (default: newest /usr/lib/postgresql/*/bin)"),
    STR_OPT("s3-endpoint", "HOGLAKE_S3_ENDPOINT", s3_endpoint,
            "S3 endpoint for reading data files, addressed path-style (default: AWS_ENDPOINT_URL,\n"
            "else AWS). Keys come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY"),
    STR_OPT("s3-region", "HOGLAKE_S3_REGION", s3_region,
            "S3 signing region (default: AWS_REGION, else us-east-1)"),
    STR_OPT("audit-log", "HOGLAKE_AUDIT_LOG", audit_log,
            "audit log destination: a file (appended, one JSON line per action), or - for\n"
            "bare lines on stderr (default: stderr through the process log, logger hoglake.audit)"),
    BOOL_OPT("refuse-blind-partitioned-appends", "HOGLAKE_REFUSE_BLIND_PARTITIONED_APPENDS",
             refuse_blind_partitioned_appends,
             "true: refuse commits whose files carry partition values without a read_snapshot\n"
             "(default false: accept them, warn once per table and count them)"),
    INT64_OPT("expiry-interval-ms", "HOGLAKE_EXPIRY_INTERVAL_MS", expire_interval_ms, 0,
              31LL * 86400000,
              "snapshot expiry loop interval; each sweep expires every catalog in turn\n"
              "(default 3600000; 0 disables the loop, POST .../maintenance/expire still works)"),
    INT64_OPT("cleanup-interval-ms", "HOGLAKE_CLEANUP_INTERVAL_MS", cleanup_interval_ms, 0,
              31LL * 86400000,
              "removal-queue cleanup loop interval (default 1800000; 0 disables the loop,\n"
              "POST .../maintenance/cleanup still works)"),
    INT64_OPT("cleanup-batch", "HOGLAKE_CLEANUP_BATCH", cleanup_batch, 1, 100000,
              "most queue rows one cleanup run claims per catalog (default 2000)"),
    INT64_OPT("receipt-retention-seconds", "HOGLAKE_RECEIPT_RETENTION_SECONDS", receipt_retention_s,
              INT64_MIN, 100LL * 365 * 86400,
              "commit receipts older than this are purged by cleanup runs; at least twice a\n"
              "catalog's snapshot retention (capped at 30 days) is kept. <= 0 keeps them forever;\n"
              "a positive value below 3600 is refused (default 604800)"),
    INT64_OPT("expiry-batch", "HOGLAKE_EXPIRY_BATCH", expire_batch, 1, 100000000,
              "most snapshots one expiry run removes per catalog (default 10000)"),
    INT64_OPT("expiry-purge-page", "HOGLAKE_EXPIRY_PURGE_PAGE", expire_purge_page, 1, 50000,
              "ended file rows purged per statement by expiry (default 1000)"),
    INT64_OPT("expiry-purge-budget-ms", "HOGLAKE_EXPIRY_PURGE_BUDGET_MS", expire_purge_budget_ms, 1,
              3600000,
              "time one expiry run spends purging file rows before leaving the rest to the next\n"
              "(default 10000)"),
    INT64_OPT(
        "retirement-interval-ms", "HOGLAKE_RETIREMENT_INTERVAL_MS", retirement_interval_ms, 0,
        31LL * 86400000,
        "retirement loop interval: reclaims the files and rows of tables dropped at or below\n"
        "the expiry floor (default 3600000; 0 disables the loop, POST .../maintenance/retire\n"
        "still works)"),
    INT64_OPT("retirement-batch", "HOGLAKE_RETIREMENT_BATCH", retirement_batch, 1, 100000,
              "files one retirement page reclaims, in one transaction without the catalog lock\n"
              "(default 8000)"),
    INT64_OPT("retirement-pause-ms", "HOGLAKE_RETIREMENT_PAUSE_MS", retirement_pause_ms, 0, 60000,
              "pause between retirement pages, to spread their deletes (default 0)"),
    INT64_OPT("retirement-budget-ms", "HOGLAKE_RETIREMENT_RUN_BUDGET_MS", retirement_budget_ms, 1,
              3600000, "time after which a retirement run starts no page (default 60000)"),
    INT64_OPT("hydrator-interval-ms", "HOGLAKE_HYDRATOR_INTERVAL_MS", hydrator_interval_ms, 0,
              31LL * 86400000,
              "deferred-stats hydrator loop interval; each sweep hydrates every catalog in turn\n"
              "(default 900000; 0 disables the loop, POST .../maintenance/hydrate still works)"),
    INT64_OPT("hydrator-batch", "HOGLAKE_HYDRATOR_BATCH", hydrator_batch, 1, 10000,
              "most files one looped hydrator pass hydrates per catalog (default 1000)"),
    INT64_OPT(
        "metrics-interval-ms", "HOGLAKE_METRICS_INTERVAL_MS", metrics_interval_ms, 0, 86400000,
        "how often the per-catalog gauges of /metrics (snapshot count, head age, tables, live\n"
        "rows and bytes, consumer lag) are read from the database (default 15000; 0 = never)"),
    INT64_OPT(
        "summary-interval-ms", "HOGLAKE_MAINTENANCE_SUMMARY_INTERVAL_MS", summary_interval_ms, 0,
        86400000,
        "how often the summary sampler takes a step per catalog, walking its live files\n"
        "into the partition summary GET .../stats/partitions reads (default 5000; 0 = never)"),
    INT64_OPT("summary-batch", "HOGLAKE_MAINTENANCE_SUMMARY_BATCH", summary_batch, 1, 1000000,
              "files one summary step adds, in one short transaction (default 10000)"),
    INT64_OPT("summary-refresh-seconds", "HOGLAKE_MAINTENANCE_SUMMARY_REFRESH_SECONDS",
              summary_refresh_s, 0, 31LL * 86400,
              "age of the published partition summary at which the sampler refreshes it (by the\n"
              "changes since, or a walk when they are many; default 60)"),
    INT64_OPT("compaction-interval-ms", "HOGLAKE_COMPACTION_INTERVAL_MS", compaction_interval_ms, 0,
              31LL * 86400000,
              "compaction loop interval; each sweep compacts one group per catalog\n"
              "(default 0: no loop, POST .../maintenance/compact still works)"),
    INT64_OPT(
        "compaction-max-group-bytes", "HOGLAKE_COMPACTION_MAX_GROUP_BYTES",
        compaction_max_group_bytes, 1, (int64_t)1 << 40,
        "a compaction group whose input files hold more bytes is refused (heap_budget_exceeded;\n"
        "the rewrite holds its rows in memory; default 1073741824)"),
    INT64_OPT("orphan-interval-ms", "HOGLAKE_ORPHAN_INTERVAL_MS", orphan_interval_ms, 0,
              31LL * 86400000,
              "orphan sweep loop interval; each sweep lists every catalog's storage in turn\n"
              "(default 0: no loop, POST .../maintenance/orphans still works)"),
    INT64_OPT("orphan-grace-seconds", "HOGLAKE_ORPHAN_GRACE_SECONDS", orphan_grace_s, 60,
              100LL * 365 * 86400,
              "the orphan sweep deletes an unreferenced object only once it is older than this\n"
              "(default 86400, at least 60)"),
    {"log-level", "HOGLAKE_LOG_LEVEL", OPT_LOG_LEVEL, offsetof(struct config, log_level), 0, 0, 0,
     "debug, info, warn or error (default info)"},
};

static void set_defaults(struct config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->port = 8080;
    cfg->auth = true;
    snprintf(cfg->listen, sizeof cfg->listen, "127.0.0.1");
    cfg->db_pool_size = 10;
    cfg->request_threads = 0; /* resolved to the pool size */
    cfg->commit_lock_timeout_ms = 30000;
    cfg->health_probe_timeout_ms = 2000;
    cfg->shutdown_timeout_ms = 30000;
    cfg->max_body_bytes = 64 * 1024 * 1024;
    cfg->max_metadata_body_bytes = 1024 * 1024;
    cfg->max_inflight_body_bytes = (int64_t)256 * 1024 * 1024;
    cfg->json_max_depth = 64;
    cfg->json_max_values = 4000000;
    cfg->max_query_params = 64;
    cfg->header_timeout_ms = 30000;
    cfg->request_timeout_ms = 120000;
    cfg->max_client_connections = 1024;
    cfg->statement_timeout_ms = 15000;
    cfg->page_size_max = 10000;
    cfg->page_bytes_max = 16 << 20;
    snprintf(cfg->user, sizeof cfg->user, "hoglake");
    cfg->log_level = LOG_INFO;
    cfg->expire_interval_ms = 3600000;
    cfg->expire_batch = 10000;
    cfg->cleanup_interval_ms = 1800000;
    cfg->cleanup_batch = 2000;
    cfg->orphan_grace_s = 86400;
    cfg->receipt_retention_s = 7 * 86400;
    cfg->compaction_max_group_bytes = (int64_t)1 << 30;
    cfg->expire_purge_page = 1000;
    cfg->expire_purge_budget_ms = 10000;
    cfg->retirement_interval_ms = 3600000;
    cfg->retirement_batch = 8000;
    cfg->retirement_pause_ms = 0;
    cfg->retirement_budget_ms = 60000;
    cfg->hydrator_interval_ms = 900000;
    cfg->hydrator_batch = 1000;
    cfg->metrics_interval_ms = 15000;
    cfg->summary_interval_ms = 5000;
    cfg->summary_batch = 10000;
    cfg->summary_refresh_s = 60;
}

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: hoglaked [OPTION VALUE]...\n\n"
            "hoglake's control plane: the catalog REST API over PostgreSQL.\n"
            "Every option can also be set by the environment variable shown; a flag wins.\n\n");
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        const struct option_def *o = &options[i];
        fprintf(out, "  --%s VALUE   [%s]\n      ", o->flag, o->env);
        for (const char *p = o->help; *p; p++) {
            fputc(*p, out);
            if (*p == '\n')
                fputs("      ", out);
        }
        fputc('\n', out);
    }
    fprintf(out, "  --help\n      print this text and exit\n  --version\n      print the version "
                 "and exit\n");
}

static bool apply(struct config *cfg, const struct option_def *o, const char *value,
                  const char *source)
{
    char *field = (char *)cfg + o->offset;
    switch (o->kind) {
    case OPT_STRING:
        if (!str_copy(field, o->size, value)) {
            fprintf(stderr, "hoglaked: %s is longer than %zu characters\n", source, o->size - 1);
            return false;
        }
        return true;
    case OPT_INT:
    case OPT_INT64: {
        int64_t v;
        if (!str_parse_int64(value, &v) || v < o->min || v > o->max) {
            fprintf(stderr, "hoglaked: %s must be an integer between %lld and %lld, got '%s'\n",
                    source, (long long)o->min, (long long)o->max, value);
            return false;
        }
        if (o->kind == OPT_INT)
            *(int *)(void *)field = (int)v;
        else
            *(int64_t *)(void *)field = v;
        return true;
    }
    case OPT_BOOL:
        if (!str_parse_bool(value, (bool *)(void *)field)) {
            fprintf(stderr, "hoglaked: %s must be true or false, got '%s'\n", source, value);
            return false;
        }
        return true;
    case OPT_ON_OFF:
        if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0) {
            fprintf(stderr, "hoglaked: %s must be on or off, got '%s'\n", source, value);
            return false;
        }
        *(bool *)(void *)field = strcmp(value, "on") == 0;
        return true;
    case OPT_LOG_LEVEL: {
        static const char *const levels[] = {"debug", "info", "warn", "error"};
        for (int i = 0; i < 4; i++) {
            if (strcmp(value, levels[i]) == 0) {
                *(int *)(void *)field = i;
                return true;
            }
        }
        fprintf(stderr, "hoglaked: %s must be debug, info, warn or error, got '%s'\n", source,
                value);
        return false;
    }
    }
    return false;
}

enum config_result config_load(struct config *cfg, int argc, char **argv)
{
    set_defaults(cfg);
    const size_t n = sizeof options / sizeof options[0];
    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(options[i].env);
        if (v && *v && !apply(cfg, &options[i], v, options[i].env))
            return CONFIG_EXIT_USAGE;
    }
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_help(stdout);
            return CONFIG_EXIT_OK;
        }
        if (strcmp(arg, "--version") == 0) {
            printf("hoglaked %s\n", HOGLAKE_VERSION);
            return CONFIG_EXIT_OK;
        }
        if (strncmp(arg, "--", 2) != 0) {
            fprintf(stderr, "hoglaked: unexpected argument '%s' (see --help)\n", arg);
            return CONFIG_EXIT_USAGE;
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t name_len = eq ? (size_t)(eq - name) : strlen(name);
        const struct option_def *o = NULL;
        for (size_t i = 0; i < n; i++) {
            if (strlen(options[i].flag) == name_len &&
                strncmp(options[i].flag, name, name_len) == 0)
                o = &options[i];
        }
        if (!o) {
            fprintf(stderr, "hoglaked: unknown option '%s' (see --help)\n", arg);
            return CONFIG_EXIT_USAGE;
        }
        const char *value = eq ? eq + 1 : NULL;
        /* A boolean may be a bare flag: "--metrics-public" means true. */
        if (!value && o->kind == OPT_BOOL &&
            (a + 1 >= argc ||
             (strcmp(argv[a + 1], "true") != 0 && strcmp(argv[a + 1], "false") != 0)))
            value = "true";
        if (!value) {
            if (a + 1 >= argc) {
                fprintf(stderr, "hoglaked: option --%s needs a value\n", o->flag);
                return CONFIG_EXIT_USAGE;
            }
            value = argv[++a];
        }
        char source[80];
        snprintf(source, sizeof source, "--%s", o->flag);
        if (!apply(cfg, o, value, source))
            return CONFIG_EXIT_USAGE;
    }
    if (cfg->request_threads == 0)
        cfg->request_threads = cfg->db_pool_size;
    if (cfg->request_threads > cfg->db_pool_size) {
        fprintf(stderr,
                "hoglaked: --request-threads (%d) must not exceed --db-pool-size (%d): a worker "
                "without a connection would only queue\n",
                cfg->request_threads, cfg->db_pool_size);
        return CONFIG_EXIT_USAGE;
    }
    /* A replay after its receipt is gone is a new commit: an hour at least. */
    if (cfg->receipt_retention_s > 0 && cfg->receipt_retention_s < 3600) {
        fprintf(stderr,
                "hoglaked: --receipt-retention-seconds must be <= 0 (keep forever) or at least "
                "3600, got %lld\n",
                (long long)cfg->receipt_retention_s);
        return CONFIG_EXIT_USAGE;
    }
    /* New catalogs get <warehouse>/<name>: keep exactly one slash there. */
    size_t wn = strlen(cfg->warehouse);
    while (wn > 0 && cfg->warehouse[wn - 1] == '/')
        cfg->warehouse[--wn] = '\0';
    if (cfg->warehouse[0] && !str_starts_with(cfg->warehouse, "file:///") &&
        !str_starts_with(cfg->warehouse, "s3://")) {
        fprintf(stderr,
                "hoglaked: --warehouse must be a file:///abs/dir or s3://bucket[/prefix] URI\n");
        return CONFIG_EXIT_USAGE;
    }
    if (!cfg->tls_cert[0] != !cfg->tls_key[0]) {
        fprintf(stderr, "hoglaked: --tls-cert and --tls-key go together\n");
        return CONFIG_EXIT_USAGE;
    }
    /* Without authentication anyone who can connect is admin: only this
     * machine may connect. */
    if (!cfg->auth && !auth_listen_is_loopback(cfg->listen)) {
        fprintf(stderr,
                "hoglaked: --auth off serves every request as admin, so it listens only on a "
                "loopback address (127.0.0.1 or ::1), not '%s'\n",
                cfg->listen);
        return CONFIG_EXIT_USAGE;
    }
    /* The environment was read above: only the built-in default is left. */
    if (!cfg->data_dir[0] && datadir_default(cfg->data_dir, sizeof cfg->data_dir) != 0) {
        fprintf(stderr, "hoglaked: the default data directory's path is too long\n");
        return CONFIG_EXIT_USAGE;
    }
    return CONFIG_OK;
}
