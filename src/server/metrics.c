#include "server/metrics.h"

#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

enum family_type { COUNTER, GAUGE, HISTOGRAM };

static const double latency_buckets[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                         0.25,  0.5,    1,     2.5,  5,     10,   30};
enum { NBUCKETS = sizeof latency_buckets / sizeof latency_buckets[0] };

struct family_def {
    const char *name;
    enum family_type type;
    const char *help;
};

static const struct family_def families[] = {
    {"hoglake_http_requests_total", COUNTER,
     "HTTP requests answered, by route, method and status."},
    {"hoglake_http_request_duration_seconds", HISTOGRAM,
     "Time from a request's arrival to its response, by route and method."},
    {"hoglake_request_queue_wait_seconds", HISTOGRAM, "Time a request waited for a worker thread."},
    {"hoglake_commit_lock_wait_seconds", HISTOGRAM,
     "Time a DDL or commit waited for its catalog's advisory lock."},
    {"hoglake_requests_shed_total", COUNTER,
     "Requests answered 503 without running, because they waited too long for a worker."},
    {"hoglake_db_pool_active", GAUGE, "Database connections in use."},
    {"hoglake_db_pool_idle", GAUGE, "Open database connections not in use."},
    {"hoglake_db_pool_pending", GAUGE, "Threads waiting for a database connection."},
    {"hoglake_db_pool_max", GAUGE, "Size of the database connection pool."},
    {"hoglake_request_pool_active", GAUGE, "Worker threads running a request."},
    {"hoglake_request_pool_queued", GAUGE, "Requests waiting for a worker thread."},
    {"hoglake_request_pool_max", GAUGE, "Worker threads."},
    {"hoglake_commits_total", COUNTER, "Commit requests finished, by catalog and result."},
    {"hoglake_stats_repaired_total", COUNTER,
     "Column statistics repaired instead of refused (a bound dropped or canonicalised, a count "
     "clamped), by source."},
    {"hoglake_stats_hydrated_total", COUNTER,
     "Deferred-stats files the hydrator settled, by result (provided, failed)."},
    {"hoglake_hydrator_transient_errors_total", COUNTER,
     "Files the hydrator left pending after a storage error it may outlive."},
    {"hoglake_stats_pending_files", GAUGE,
     "Live files awaiting statistics, per catalog, as of the last hydrator pass."},
    {"hoglake_stats_failed_files", GAUGE,
     "Live files whose hydration failed (until a rehydrate), per catalog, as of the last pass."},
    {"hoglake_blind_partitioned_appends_total", COUNTER,
     "Accepted appends that carried partition values without a read_snapshot."},
    {"hoglake_commit_group_queued", GAUGE,
     "Optimistic commits queued for a group commit or in one being sent."},
    {"hoglake_commit_groups_total", COUNTER,
     "Transactions that committed one or more optimistic commits together (group commit)."},
    {"hoglake_commit_round_seconds", HISTOGRAM,
     "Time a group commit's round took from sending its batch to its COMMIT's answer: the "
     "catalog lock's wait and hold as hoglaked sees them."},
    {"hoglake_commit_groups_merged_total", COUNTER,
     "Group commits whose entries' writes went as one set of statements."},
    {"hoglake_commit_revalidations_total", COUNTER,
     "Commits checked again under the catalog lock because what they read before it had "
     "changed (or they were refused, replayed or had deletion vectors to check)."},
    {"hoglake_commit_receipt_unknown_digest_version_total", COUNTER,
     "Replays answered from a receipt whose fingerprint version this server does not know."},
    {"hoglake_snapshots_expired_total", COUNTER, "Snapshots removed by expiry."},
    {"hoglake_tables_retired_total", COUNTER,
     "Dropped tables whose files and catalog rows retirement reclaimed."},
    {"hoglake_files_retired_total", COUNTER,
     "File rows of dropped tables retirement deleted with their objects, by file_kind."},
    {"hoglake_compaction_groups_total", COUNTER, "File groups compaction rewrote and committed."},
    {"hoglake_compaction_files_rewritten_total", COUNTER,
     "Input files compaction rewrote (ended by its commits)."},
    {"hoglake_compaction_bytes_total", COUNTER, "Input bytes compaction rewrote."},
    {"hoglake_compaction_skipped_total", COUNTER,
     "Groups compaction planned but did not commit, by reason (the CompactionResult counter)."},
    {"hoglake_background_loop_failures_total", COUNTER,
     "Maintenance passes that failed, by loop (the loop keeps running)."},
    {"hoglake_removal_queue_depth", GAUGE,
     "Paths queued for removal and not yet drained, by catalog (as of the last expiry or cleanup "
     "pass)."},
    {"hoglake_head_snapshot_id", GAUGE,
     "Head snapshot, by catalog (as of its last expiry pass or metrics sample)."},
    {"hoglake_requests_refused_total", COUNTER,
     "Requests and connections refused by a resource limit before any handler ran, by reason."},
    {"hoglake_storage_refusals_total", COUNTER,
     "Server-side object operations refused by storage confinement, by reason."},
    {"hoglake_postgres_restarts_total", COUNTER,
     "Restarts of the embedded PostgreSQL cluster after its postmaster died."},
    {"hoglake_auth_refusals_total", COUNTER,
     "Requests refused by authentication or authorization, by reason (missing, malformed,"
     " unknown, revoked, expired, forbidden, catalog_scope, host)."},
    {"hoglake_audit_write_failures_total", COUNTER,
     "Audit lines that could not be written to the audit log (the action itself succeeded)."},
    {"hoglake_audit_lines_dropped_total", COUNTER,
     "Audit lines dropped because the writer's queue was full or memory ran out."},
    {"hoglake_earliest_snapshot_id", GAUGE,
     "Retention floor (earliest readable snapshot), by catalog (as of its last expiry pass or "
     "metrics sample)."},
    {"hoglake_snapshot_count", GAUGE,
     "Readable snapshots (head - earliest + 1), by catalog (metrics sampler)."},
    {"hoglake_head_age_seconds", GAUGE,
     "Seconds since the head snapshot was made, by catalog (metrics sampler)."},
    {"hoglake_table_count", GAUGE, "Live tables, by catalog (metrics sampler)."},
    {"hoglake_live_rows", GAUGE,
     "Rows in live data files of live tables, before deletion vectors, by catalog (metrics "
     "sampler)."},
    {"hoglake_live_bytes", GAUGE,
     "Bytes of live data files of live tables, by catalog (metrics sampler)."},
    {"hoglake_consumer_lag_snapshots", GAUGE,
     "Head minus a consumer's lowest committed offset, by catalog and consumer (the 100 "
     "most lagging consumers per catalog; metrics sampler)."},
    {"hoglake_consumer_lag_max", GAUGE,
     "The largest consumer lag in snapshots, by catalog (metrics sampler)."},
    {"hoglake_metrics_last_sample_epoch", GAUGE,
     "Unix time of the metrics sampler's last successful sample."},
    {"hoglake_metrics_sample_errors_total", COUNTER, "Metrics samples that failed."},
    {"hoglake_summary_files_sampled_total", COUNTER,
     "File and deletion-vector rows the summary sampler counted into partition summaries: "
     "live files a walk added, changed rows a refresh applied."},
    {"hoglake_summary_generations_published_total", COUNTER,
     "Partition summaries the summary sampler published: walks completed and refreshes "
     "applied."},
    {"hoglake_files_removed_total", COUNTER,
     "Removal-queue paths cleanup settled, by result: removed, missing, still_referenced (never "
     "deleted), failed (retried later)."},
    {"hoglake_orphans_deleted_total", COUNTER,
     "Unreferenced objects the orphan sweep deleted (through the removal queue)."},
    {"hoglake_orphan_bytes_deleted_total", COUNTER,
     "Bytes of the objects the orphan sweep deleted."},
    {"hoglake_commit_receipt_purge_failures_total", COUNTER,
     "Cleanup runs whose purge of old commit receipts failed (the run goes on)."},
};
enum { NFAMILIES = sizeof families / sizeof families[0] };

struct series {
    char *labels;
    double value;             /* counter/gauge; histogram sum */
    unsigned long long count; /* histogram observations */
    unsigned long long buckets[NBUCKETS];
};

struct family_state {
    struct series *series;
    size_t n, cap;
};

struct metrics {
    pthread_mutex_t mu;
    struct family_state state[NFAMILIES];
};

struct metrics *metrics_create(void)
{
    struct metrics *m = calloc(1, sizeof *m);
    if (m)
        pthread_mutex_init(&m->mu, NULL);
    return m;
}

void metrics_destroy(struct metrics *m)
{
    if (!m)
        return;
    for (int f = 0; f < NFAMILIES; f++) {
        for (size_t i = 0; i < m->state[f].n; i++)
            free(m->state[f].series[i].labels);
        free(m->state[f].series);
    }
    pthread_mutex_destroy(&m->mu);
    free(m);
}

static int family_index(const char *name, enum family_type type)
{
    for (int f = 0; f < NFAMILIES; f++)
        if (strcmp(families[f].name, name) == 0 && families[f].type == type)
            return f;
    /* An undeclared family would render without HELP/TYPE and could clash
     * with a real one: refuse it loudly. */
    fprintf(stderr, "metrics: undeclared family %s\n", name);
    abort();
}

/* Called with the mutex held. */
static struct series *find_series(struct metrics *m, int f, const char *labels)
{
    struct family_state *st = &m->state[f];
    for (size_t i = 0; i < st->n; i++)
        if (strcmp(st->series[i].labels, labels) == 0)
            return &st->series[i];
    if (ARRAY_RESERVE(st->series, st->cap, st->n + 1, 8) != 0)
        return NULL;
    char *copy = strdup(labels);
    if (!copy)
        return NULL;
    struct series *s = &st->series[st->n++];
    memset(s, 0, sizeof *s);
    s->labels = copy;
    return s;
}

void metrics_counter_add(struct metrics *m, const char *family, const char *labels, double delta)
{
    int f = family_index(family, COUNTER);
    pthread_mutex_lock(&m->mu);
    struct series *s = find_series(m, f, labels);
    if (s)
        s->value += delta;
    pthread_mutex_unlock(&m->mu);
}

void metrics_gauge_set(struct metrics *m, const char *family, const char *labels, double value)
{
    int f = family_index(family, GAUGE);
    pthread_mutex_lock(&m->mu);
    struct series *s = find_series(m, f, labels);
    if (s)
        s->value = value;
    pthread_mutex_unlock(&m->mu);
}

void metrics_gauge_replace(struct metrics *m, const char *family, const char *const *labels,
                           const double *values, size_t n)
{
    int f = family_index(family, GAUGE);
    struct series *fresh = calloc(n ? n : 1, sizeof *fresh);
    if (!fresh)
        return;
    for (size_t i = 0; i < n; i++) {
        fresh[i].value = values[i];
        if (!(fresh[i].labels = strdup(labels[i]))) {
            for (size_t k = 0; k < i; k++)
                free(fresh[k].labels);
            free(fresh);
            return;
        }
    }
    pthread_mutex_lock(&m->mu);
    struct family_state old = m->state[f];
    m->state[f] = (struct family_state){.series = fresh, .n = n, .cap = n ? n : 1};
    pthread_mutex_unlock(&m->mu);
    for (size_t i = 0; i < old.n; i++)
        free(old.series[i].labels);
    free(old.series);
}

void metrics_observe(struct metrics *m, const char *family, const char *labels, double value)
{
    int f = family_index(family, HISTOGRAM);
    pthread_mutex_lock(&m->mu);
    struct series *s = find_series(m, f, labels);
    if (s) {
        s->value += value;
        s->count++;
        for (int b = 0; b < NBUCKETS; b++)
            if (value <= latency_buckets[b])
                s->buckets[b]++;
    }
    pthread_mutex_unlock(&m->mu);
}

void metrics_label_escape(const char *value, char *out, size_t out_size)
{
    size_t j = 0;
    for (; *value && j + 3 < out_size; value++) {
        char c = *value;
        if (c == '\\' || c == '"') {
            out[j++] = '\\';
            out[j++] = c;
        } else if (c == '\n') {
            out[j++] = '\\';
            out[j++] = 'n';
        } else {
            out[j++] = c;
        }
    }
    out[j] = '\0';
}

static int render_labels(struct buf *out, const char *name, const char *suffix, const char *labels,
                         const char *extra)
{
    bool any = labels[0] || extra;
    return buf_printf(out, "%s%s%s%s%s%s%s", name, suffix, any ? "{" : "", labels,
                      labels[0] && extra ? "," : "", extra ? extra : "", any ? "}" : "");
}

int metrics_render(struct metrics *m, struct buf *out)
{
    int rc = 0;
    pthread_mutex_lock(&m->mu);
    for (int f = 0; f < NFAMILIES && rc == 0; f++) {
        const struct family_def *d = &families[f];
        const struct family_state *st = &m->state[f];
        static const char *const type_names[] = {"counter", "gauge", "histogram"};
        rc |= buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", d->name, d->help, d->name,
                         type_names[d->type]);
        for (size_t i = 0; i < st->n && rc == 0; i++) {
            const struct series *s = &st->series[i];
            if (d->type != HISTOGRAM) {
                rc |= render_labels(out, d->name, "", s->labels, NULL);
                rc |= buf_printf(out, " %.17g\n", s->value);
                continue;
            }
            for (int b = 0; b < NBUCKETS; b++) {
                char le[32];
                snprintf(le, sizeof le, "le=\"%g\"", latency_buckets[b]);
                rc |= render_labels(out, d->name, "_bucket", s->labels, le);
                rc |= buf_printf(out, " %llu\n", s->buckets[b]);
            }
            rc |= render_labels(out, d->name, "_bucket", s->labels, "le=\"+Inf\"");
            rc |= buf_printf(out, " %llu\n", s->count);
            rc |= render_labels(out, d->name, "_sum", s->labels, NULL);
            rc |= buf_printf(out, " %.17g\n", s->value);
            rc |= render_labels(out, d->name, "_count", s->labels, NULL);
            rc |= buf_printf(out, " %llu\n", s->count);
        }
    }
    pthread_mutex_unlock(&m->mu);
    return rc ? -1 : 0;
}
