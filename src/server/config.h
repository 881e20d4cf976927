/* hoglaked's configuration: command-line flags, each with a same-named
 * HOGLAKE_* environment variable. A flag wins over the environment. */
#ifndef HL_SERVER_CONFIG_H
#define HL_SERVER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct config {
    int port;
    char listen[64];
    char database_url[1024]; /* empty: embedded PostgreSQL under data_dir */
    char data_dir[512];
    char warehouse[600]; /* default data_path base for new catalogs; may be empty */
    char port_file[512]; /* written with the bound port once listening */
    char instance_name[128];
    char pg_user[64]; /* embedded mode, started as root: the cluster's owner */
    char pg_bin[512]; /* embedded mode: PostgreSQL's bin directory (auto if empty) */
    /* Object storage the server itself touches (hydrator reads, cleanup
     * deletes); empty: the AWS_ENDPOINT_URL / AWS_REGION environment, then
     * AWS defaults. Keys come from AWS_ACCESS_KEY_ID /
     * AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN. */
    char s3_endpoint[512];
    char s3_region[64];
    /* The audit log: empty = the process log on stderr (logger
     * hoglake.audit), "-" = bare lines on stderr, else a file appended to. */
    char audit_log[512];
    /* Authentication (server/auth/auth.h): off only for development, and then only on
     * loopback. */
    bool auth;
    bool metrics_public; /* /metrics without a token */
    /* Replace the bootstrap admin token: revoke every admin token the server
     * itself made and write a new <data-dir>/admin.token. */
    bool reset_admin_token;
    /* HTTPS: PEM files of the certificate (chain) and its private key. */
    char tls_cert[512];
    char tls_key[512];
    /* Storage confinement (docs/security.md): file:// catalogs must lie
     * under one of these directories (':'-separated); empty = the
     * warehouse directory. */
    char file_roots[2048];
    /* Least privilege: started as root, hoglaked runs as this user
     * (created when missing) unless allow_root. */
    char user[64];
    bool allow_root;
    /* Request limits (docs/limits.md). max_body_bytes bounds the commit
     * routes' bodies, max_metadata_body_bytes every other route's. */
    int64_t max_metadata_body_bytes;
    int64_t max_inflight_body_bytes; /* bodies held at once, over all requests */
    int json_max_depth;
    int64_t json_max_values; /* values (scalars and containers) in one body */
    int max_query_params;
    int header_timeout_ms;      /* to receive a request's line and headers */
    int request_timeout_ms;     /* to receive a whole request */
    int max_connections;        /* past it only probes are served; 0 = from the file limit */
    int max_client_connections; /* from one client address */
    int statement_timeout_ms;   /* every statement of a read (GET) */
    int page_size_max;          /* files, scan and changes pages */
    int page_bytes_max;         /* statistics and split offsets of a files or scan page */
    int db_pool_size;
    int request_threads;
    int commit_lock_timeout_ms; /* 0 = unbounded */
    int health_probe_timeout_ms;
    int shutdown_timeout_ms;
    int64_t max_body_bytes;
    int log_level; /* enum log_level */
    /* Refuse appends with partition values but no read_snapshot (a writer
     * that computed partitions against a spec it never pinned). */
    bool refuse_blind_partitioned_appends;
    /* Expiry (contract 7.1): loop interval (0 = no loop), snapshots per
     * run, file rows per purge page, purge time budget per run. */
    /* Cleanup (contract 7.2): loop interval (0 = no loop), queue rows per
     * run. */
    int64_t cleanup_interval_ms;
    int64_t cleanup_batch;
    /* Commit receipts kept at least this long (<= 0: forever); purged by
     * cleanup runs. */
    int64_t receipt_retention_s;
    int64_t expire_interval_ms;
    int64_t expire_batch;
    int64_t expire_purge_page;
    int64_t expire_purge_budget_ms;
    int64_t retirement_interval_ms;
    int64_t retirement_batch;
    int64_t retirement_pause_ms;
    int64_t retirement_budget_ms;
    /* Hydrator (contract 7.4): loop interval (0 = no loop), files per
     * catalog per looped pass. */
    int64_t hydrator_interval_ms;
    int64_t hydrator_batch;
    /* Metrics sampler (contract 7.5): interval, 0 = off. */
    int64_t metrics_interval_ms;
    int64_t summary_interval_ms, summary_batch, summary_refresh_s;
    /* Compaction (contract 7.3): loop interval (0 = no loop, the
     * default) and the input bytes one group may hold in memory. */
    int64_t compaction_interval_ms;
    int64_t compaction_max_group_bytes;
    /* Orphan sweep: loop interval (0 = no loop, the default) and the age
     * below which an unreferenced object is kept. */
    int64_t orphan_interval_ms;
    int64_t orphan_grace_s;
};

enum config_result { CONFIG_OK, CONFIG_EXIT_OK, CONFIG_EXIT_USAGE };

/* Fills cfg from defaults, then the environment, then argv. Prints --help
 * or the usage error itself; the result says whether to continue. */
enum config_result config_load(struct config *cfg, int argc, char **argv);

#endif
