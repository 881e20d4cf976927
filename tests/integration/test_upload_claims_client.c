/* Upload claims from the writer's side (issue 16, finding 2), against a
 * real hoglaked and PostgreSQL, with data in a local warehouse (file://)
 * and in moto:
 *   - every object an append writes is claimed, in one claim request for a
 *     small append, and the commit registers the claims it used and
 *     releases the rest;
 *   - an append the server refuses (the table recreated under it) deletes
 *     what it wrote and abandons its claims: storage holds nothing of it;
 *   - a cancelled append (the options' callback) does the same;
 *   - `hoglake append` interrupted by SIGINT at random points of a large
 *     partitioned input exits 130 saying what it removed (or 0 when it had
 *     committed), and storage then holds exactly the objects the catalog's
 *     file rows name. */
#define _XOPEN_SOURCE 700 /* nftw: the FTW_ flags are XSI */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/claims.h"
#include "client_harness.h"
#include "harness.h"
#include "hoglake/hoglake.h"
#include "hoglake/sys/table.h"
#include "objstore/objstore.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char warehouse[256];
static hl_client *file_client, *moto_client;
static const char *bucket;

static int setup(void **state)
{
    (void)state;
    test_need_env("HOGLAKE_TEST_MOTO_ENDPOINT");
    bucket = test_need_env("HOGLAKE_TEST_S3_BUCKET");
    test_stack_up(&db, &srv, &pg, "upload_claims_client", NULL, NULL);
    test_scratch_dir(warehouse, sizeof warehouse, "claims-client");
    file_client = test_client_new(srv.base, NULL);
    moto_client = test_client_new(srv.base, getenv("HOGLAKE_TEST_MOTO_ENDPOINT"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    hl_client_free(file_client);
    hl_client_free(moto_client);
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(warehouse);
    return 0;
}

/* ---- handles ---- */

struct fixture {
    hl_catalog *catalog;
    hl_namespace *ns;
    hl_table *table;
    char name[64];
    char table_prefix[600]; /* where the table's objects go */
};

static const char columns[] = "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                              "{\"name\":\"team\",\"type\":\"long\",\"nullable\":false},"
                              "{\"name\":\"name\",\"type\":\"string\"}]";
static const char spec[] = "id:long!, team:long!, name:string";
/* Three teams: three files when the table is partitioned by team. */
static const char rows[] = "{\"id\":1,\"team\":1,\"name\":\"a\"}\n"
                           "{\"id\":2,\"team\":2,\"name\":\"b\"}\n"
                           "{\"id\":3,\"team\":3,\"name\":\"c\"}\n"
                           "{\"id\":4,\"team\":1,\"name\":\"d\"}\n";

/* A catalog named `label` plus this process's id (moto's bucket outlives
 * the test), a namespace and a table partitioned by team when asked. */
static void fixture_up(struct fixture *f, hl_client *c, const char *label, bool partitioned)
{
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s_%d", label, (int)getpid());
    char data_path[512];
    if (c == file_client)
        snprintf(data_path, sizeof data_path, "file://%s/%s", warehouse, f->name);
    else
        snprintf(data_path, sizeof data_path, "s3://%s/%s", bucket, f->name);
    snprintf(f->table_prefix, sizeof f->table_prefix, "%s/data/ns/t/", data_path);
    struct hl_error err;
    test_check(hl_catalog_create(c, f->name, data_path, &f->catalog, &err), &err, "catalog");
    test_check(hl_namespace_create(f->catalog, "ns", &f->ns, &err), &err, "namespace");
    test_check(hl_table_create(f->ns, "t", columns, NULL, &f->table, &err), &err, "table");
    if (partitioned)
        test_check(hl_table_alter(f->table,
                                  "[{\"op\":\"set_partition_spec\",\"fields\":"
                                  "[{\"source_field_id\":2,\"transform\":\"identity\"}]}]",
                                  NULL, &err),
                   &err, "partition by team");
}

static void fixture_free(struct fixture *f)
{
    hl_table_free(f->table);
    hl_namespace_free(f->ns);
    hl_catalog_free(f->catalog);
}

/* ---- what storage and the catalog hold ---- */

static int count_object(void *ctx, const char *uri, uint64_t size)
{
    (void)uri, (void)size;
    ++*(int64_t *)ctx;
    return 0;
}

/* Objects under the table's prefix, listed through the object store (on
 * file://, the temporary files of unfinished puts too: a walk of the
 * directory). */
static int64_t objects_of(const struct fixture *f)
{
    if (strncmp(f->table_prefix, "file://", 7) == 0)
        return test_count_files(f->table_prefix + 7, "");
    struct objstore *store;
    struct hl_error err;
    test_check(hl_table_object_store(f->table, &store, &err), &err, "object store");
    int64_t n = 0;
    if (objstore_list(store, f->table_prefix, count_object, &n, &err) != 0)
        fail_msg("listing %s: %s", f->table_prefix, err.message);
    return n;
}

static int64_t claims_in(const struct fixture *f, const char *state)
{
    return sqli("SELECT count(*) FROM hog_upload WHERE catalog_id = %lld AND state = '%s'",
                (long long)cat_id(f->name), state);
}

static int64_t claim_requests(void)
{
    return test_route_requests(&srv, "POST", "/v1/catalogs/{catalog}/uploads");
}

static int64_t file_rows(const char *catalog)
{
    return sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld",
                (long long)cat_id(catalog));
}

/* ---- appends that commit ---- */

/* The append's objects are all claimed by one owner, in one request for
 * a small partitioned append; the commit registers the three it used and
 * releases the other five claimed ahead. */
static void append_registers_its_claims(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "registered", true);
    struct ArrowArrayStream s;
    test_rows_stream(spec, rows, &s);
    int64_t before = claim_requests();
    struct hl_append_result *res;
    struct hl_error err;
    test_check(hl_table_append(f.table, &s, NULL, &res, &err), &err, "append");
    assert_int_equal(res->nfiles, 3);
    assert_int_equal(claim_requests() - before, 1);
    int64_t catalog = cat_id(f.name);
    assert_int_equal(claims_in(&f, "registered"), 3);
    assert_int_equal(
        sqli("SELECT count(*) FROM hog_upload WHERE catalog_id = %lld", (long long)catalog), 3);
    assert_int_equal(sqli("SELECT count(DISTINCT owner) FROM hog_upload WHERE catalog_id = %lld",
                          (long long)catalog),
                     1);
    /* The registered claims are the file rows' paths, prefix and all. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_upload u JOIN hog_data_file d ON d.catalog_id "
                          "= u.catalog_id AND d.path = u.path WHERE u.catalog_id = %lld AND "
                          "u.prefix = '%s' AND u.file_kind = 'data'",
                          (long long)catalog, f.table_prefix),
                     3);
    for (size_t i = 0; i < res->nfiles; i++)
        expect_contains(res->files[i].path, f.table_prefix, "a file's path");
    hl_append_result_free(res);

    /* Files that roll over claim in doubling batches: 1, 2, then 4 for
     * the five files of an unpartitioned table (a row group each, one per
     * input stream). */
    hl_table *flat;
    test_check(hl_table_create(f.ns, "flat", columns, NULL, &flat, &err), &err, "flat");
    struct hl_append_options o;
    hl_append_options_init(&o);
    o.file_bytes = 1; /* every row group ends its file */
    o.row_group_bytes = 1;
    struct ArrowArrayStream five[5], *ptrs[5];
    for (int i = 0; i < 5; i++) {
        char row[64];
        snprintf(row, sizeof row, "{\"id\":%d,\"team\":1}\n", i);
        test_rows_stream(spec, row, &five[i]);
        ptrs[i] = &five[i];
    }
    before = claim_requests();
    int64_t owners = sqli("SELECT count(DISTINCT owner) FROM hog_upload WHERE catalog_id = %lld",
                          (long long)catalog);
    test_check(hl_table_append_streams(flat, ptrs, 5, &o, &res, &err), &err,
               "append with rollover");
    int64_t files = (int64_t)res->nfiles;
    assert_int_equal(files, 5);
    assert_int_equal(claim_requests() - before, 3);
    assert_int_equal(sqli("SELECT count(DISTINCT owner) FROM hog_upload WHERE catalog_id = %lld",
                          (long long)catalog),
                     owners + 1);
    assert_int_equal(claims_in(&f, "registered"), 3 + files);
    assert_int_equal(claims_in(&f, "active") + claims_in(&f, "abandoned"), 0);
    hl_append_result_free(res);
    hl_table_free(flat);
    fixture_free(&f);
}

/* A prepared payload names its owner: the claims are active until the
 * payload is committed, which registers the ones it lists under that
 * owner and releases the rest; a replay changes nothing. */
static void prepared_payload_names_its_owner(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, moto_client, "prepared", true);
    struct ArrowArrayStream s;
    test_rows_stream(spec, rows, &s);
    char *payload;
    struct hl_append_result *up;
    struct hl_error err;
    const char *key = "4c2d9e1a-7b3f-4e5d-9a8c-1f2e3d4c5b6a";
    test_check(hl_table_prepare_append(f.table, &s, key, &payload, &up, &err), &err, "prepare");
    assert_int_equal(up->nuploaded, 3);
    json_t *p = jparse(payload);
    char owner[64];
    snprintf(owner, sizeof owner, "%s", jstr(p, "upload_owner"));
    json_decref(p);
    long long catalog = (long long)cat_id(f.name);
    static const char by_owner[] = "SELECT count(*) FROM hog_upload WHERE catalog_id = %lld AND "
                                   "owner = '%s'::uuid AND state = '%s'";
    assert_int_equal(sqli(by_owner, catalog, owner, "active"), 8);
    for (size_t i = 0; i < up->nuploaded; i++) {
        char dir[700];
        snprintf(dir, sizeof dir, "%s%s/", f.table_prefix, key);
        expect_contains(up->uploaded[i], dir, "a prepared object under its key");
    }
    int64_t snap, again;
    test_check(hl_table_commit_prepared(f.table, payload, &snap, &err), &err, "commit");
    assert_int_equal(sqli(by_owner, catalog, owner, "registered"), 3);
    assert_int_equal(sqli("SELECT count(*) FROM hog_upload WHERE catalog_id = %lld", catalog), 3);
    test_check(hl_table_commit_prepared(f.table, payload, &again, &err), &err, "replay");
    assert_int_equal(again, snap);
    assert_int_equal(sqli(by_owner, catalog, owner, "registered"), 3);
    assert_int_equal(file_rows(f.name), 3);
    free(payload);
    hl_append_result_free(up);
    fixture_free(&f);
}

/* ---- appends that do not commit ---- */

/* Finding 2: the table is dropped and recreated between the handle's read
 * and the commit; the server refuses it (409 table_recreated) and the
 * append leaves nothing in storage, its claims abandoned. */
static void refused_append_leaves_nothing(hl_client *c, const char *label)
{
    struct fixture f;
    fixture_up(&f, c, label, true);
    hl_table *other, *fresh;
    struct hl_error err;
    test_check(hl_table_open(f.ns, "t", &other, &err), &err, "open");
    test_check(hl_table_drop(other, NULL, &err), &err, "drop");
    test_check(hl_table_create(f.ns, "t", columns, NULL, &fresh, &err), &err, "recreate");
    struct ArrowArrayStream s;
    test_rows_stream(spec, rows, &s);
    struct hl_append_result *res;
    assert_int_equal(hl_table_append(f.table, &s, NULL, &res, &err), HL_ERR_TABLE_RECREATED);
    assert_int_equal(err.http_status, 409);
    assert_int_equal(res->snapshot_id, -1);
    assert_int_equal(res->nfiles, 3); /* written, then removed */
    assert_int_equal(res->nremoved, 3);
    assert_int_equal(res->nuploaded, 0);
    assert_int_equal(objects_of(&f), 0);
    assert_int_equal(file_rows(f.name), 0);
    /* Eight claimed ahead, all abandoned (and so queued for cleanup). */
    assert_int_equal(claims_in(&f, "abandoned"), 8);
    assert_int_equal(claims_in(&f, "active") + claims_in(&f, "registered"), 0);
    hl_append_result_free(res);
    hl_table_free(other);
    hl_table_free(fresh);
    fixture_free(&f);
}

static void refused_file(void **state)
{
    (void)state;
    refused_append_leaves_nothing(file_client, "refused_file");
}

static void refused_moto(void **state)
{
    (void)state;
    refused_append_leaves_nothing(moto_client, "refused_moto");
}

/* Cancels at the given poll: 1 is after the input's one batch, 2 before
 * the commit is sent. */
struct cancel_at {
    int polls, at;
};

static bool cancel_when_due(void *ctx)
{
    struct cancel_at *c = ctx;
    return ++c->polls >= c->at;
}

/* A cancelled append stops, aborts the upload it had open, deletes the
 * files it had finished and abandons its claims. */
static void cancelled_append_leaves_nothing(void **state)
{
    (void)state;
    for (int at = 1; at <= 2; at++) {
        struct fixture f;
        char label[32];
        snprintf(label, sizeof label, "cancel%d", at);
        fixture_up(&f, file_client, label, true);
        struct cancel_at when = {0, at};
        struct hl_append_options o;
        hl_append_options_init(&o);
        o.cancelled = cancel_when_due;
        o.cancel_ctx = &when;
        /* Open files past the first finish early: two of the three are
         * done after the batch, all three before the commit. */
        o.memory_bytes = 1;
        struct ArrowArrayStream s;
        test_rows_stream(spec, rows, &s);
        struct hl_append_result *res;
        struct hl_error err;
        assert_int_equal(hl_table_append(f.table, &s, &o, &res, &err), HL_ERR_CANCELLED);
        assert_string_equal(hl_status_name(HL_ERR_CANCELLED), "cancelled");
        assert_int_equal(when.polls, at);
        assert_int_equal(res->nremoved, at == 1 ? 2 : 3);
        assert_int_equal(res->nuploaded, 0);
        assert_int_equal(objects_of(&f), 0);
        assert_int_equal(file_rows(f.name), 0);
        assert_int_equal(claims_in(&f, "abandoned"), 8);
        assert_int_equal(claims_in(&f, "active"), 0);
        hl_append_result_free(res);
        fixture_free(&f);
    }
}

/* Active claims of the catalog with most of a lease ahead. */
static int64_t fresh_claims(long long catalog)
{
    return sqli("SELECT count(*) FROM hog_upload WHERE catalog_id = %lld AND state = 'active' AND "
                "expires_at > now() + interval '23 hours'",
                catalog);
}

/* An append that reads its input for longer than a while renews its
 * claims between batches: nothing before renew_after (6 h), then every
 * active claim of the owner gets a fresh 24 h lease. */
static void long_appends_renew_their_claims(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "renew", false);
    struct claims c;
    struct hl_error err;
    test_check(claims_init(&c, f.catalog, CLAIMS_DATA, f.table_prefix, 2, 0, &err), &err, "claims");
    char path[4096];
    test_check(claims_take(&c, path, sizeof path, &err), &err, "take");
    expect_contains(path, f.table_prefix, "a claimed path");
    long long catalog = (long long)cat_id(f.name);
    sql_exec("UPDATE hog_upload SET expires_at = now() + interval '1 hour' WHERE catalog_id = %lld",
             catalog);
    claims_keep_alive(&c);
    assert_int_equal(fresh_claims(catalog), 0);
    c.renew_after = 0;
    claims_keep_alive(&c);
    assert_int_equal(fresh_claims(catalog), 2);
    claims_free(&c);
    fixture_free(&f);
}

/* ---- hoglake append interrupted ---- */

enum { BIG_ROWS = 500000, BIG_DAYS = 6 };

/* 500k rows over six days, in runs of a thousand rows a day (as a log
 * shipped in batches reads), into dir/big.csv. */
static void write_big_input(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/big.csv", dir);
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fputs("id,name,ts\n", out);
    for (int i = 0; i < BIG_ROWS; i++)
        fprintf(out, "%d,row %lld,2026-03-%02dT%02d:%02d:00Z\n", i, (long long)i * 7919 % 100003,
                1 + i / 1000 % BIG_DAYS, i / 60 % 24, i % 60);
    assert_int_equal(fclose(out), 0);
}

/* Whether the process has SIGINT caught (its handler installed). */
static bool catches_sigint(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    bool caught = false;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long long mask;
        if (sscanf(line, "SigCgt: %llx", &mask) == 1)
            caught = (mask >> (SIGINT - 1)) & 1;
    }
    if (f)
        fclose(f);
    return caught;
}

struct run {
    int code; /* exit status; -1 when a signal ended it */
    double seconds;
    char *out, *err;
};

/* Runs `hoglake append` of big.csv into the table; when delay_ms >= 0,
 * sends SIGINT that long after the command catches it (and, when twice,
 * SIGTERM 20 ms later, as an impatient user would). */
static void run_append(struct run *r, const char *dir, const char *table, int delay_ms, bool twice)
{
    char outf[600], errf[600];
    snprintf(outf, sizeof outf, "%s/.append.out", dir);
    snprintf(errf, sizeof errf, "%s/.append.err", dir);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int o = open(outf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (o < 0 || e < 0 || chdir(dir) != 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(99);
        setenv("HOGLAKE_TOKEN", srv.token, 1);
        execl(HOGLAKE_CLI_BIN, HOGLAKE_CLI_BIN, "--server", srv.base, "append", table, "big.csv",
              "--file-bytes", "32768", (char *)NULL);
        _exit(98);
    }
    if (delay_ms >= 0) {
        for (int i = 0; i < 5000 && !catches_sigint(pid); i++)
            sleep_ms(1);
        sleep_ms(delay_ms);
        kill(pid, SIGINT);
        if (twice) {
            sleep_ms(20);
            kill(pid, SIGTERM);
        }
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    /* Killed by a signal: minus its number. */
    r->code = WIFEXITED(status)     ? WEXITSTATUS(status)
              : WIFSIGNALED(status) ? -WTERMSIG(status)
                                    : -1;
    r->out = test_read_text(outf);
    r->err = test_read_text(errf);
}

/* The walk in progress: every object below the table's directory must be
 * a file row's path. */
static PGconn *walk_pg;
static int64_t walk_catalog, walk_objects, walk_strays;

static int check_object(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    if (type != FTW_F)
        return 0;
    walk_objects++;
    char uri[1200], id[32];
    snprintf(uri, sizeof uri, "file://%s", path);
    snprintf(id, sizeof id, "%lld", (long long)walk_catalog);
    const char *params[] = {id, uri};
    PGresult *res = PQexecParams(walk_pg,
                                 "SELECT count(*) FROM hog_data_file WHERE catalog_id = $1::bigint "
                                 "AND path = $2",
                                 2, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(res) != PGRES_TUPLES_OK || strcmp(PQgetvalue(res, 0, 0), "1") != 0) {
        fprintf(stderr, "stray object: %s\n", path);
        walk_strays++;
    }
    PQclear(res);
    return 0;
}

/* Storage holds exactly the objects the catalog's file rows name: no
 * temporary file, no unregistered Parquet, none missing. */
static void expect_storage_matches_catalog(const char *catalog, const char *table_dir)
{
    walk_pg = pg;
    walk_catalog = cat_id(catalog);
    walk_objects = walk_strays = 0;
    struct stat st;
    if (stat(table_dir, &st) == 0)
        assert_int_equal(nftw(table_dir, check_object, 16, FTW_PHYS), 0);
    assert_int_equal(walk_strays, 0);
    assert_int_equal(walk_objects, file_rows(catalog));
}

static void interrupted_cli_append(void **state)
{
    (void)state;
    char dir[256];
    test_scratch_dir(dir, sizeof dir, "claims-sigint");
    write_big_input(dir);
    struct fixture f;
    fixture_up(&f, file_client, "sigint", false);
    struct hl_error err;
    hl_table *big;
    test_check(hl_table_create(f.ns, "big",
                               "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                               "{\"name\":\"name\",\"type\":\"string\"},"
                               "{\"name\":\"ts\",\"type\":\"timestamptz\"}]",
                               NULL, &big, &err),
               &err, "big");
    test_check(hl_table_alter(big,
                              "[{\"op\":\"set_partition_spec\",\"fields\":"
                              "[{\"source_field_id\":3,\"transform\":\"day\"}]}]",
                              NULL, &err),
               &err, "partition by day");
    hl_table_free(big);
    char table[128], table_dir[700];
    snprintf(table, sizeof table, "%s.ns.big", f.name);
    snprintf(table_dir, sizeof table_dir, "%s/%s/data/ns/big", warehouse, f.name);

    /* Once whole, for the time it takes and the files it makes. */
    struct run r;
    run_append(&r, dir, table, -1, false);
    if (r.code != 0)
        fail_msg("the whole append exited %d:\n%s%s", r.code, r.out, r.err);
    int64_t whole_files = file_rows(f.name);
    assert_true(whole_files >= 3 * BIG_DAYS); /* small files, several a day */
    double whole = r.seconds;
    print_message("whole append: %.2f s, %lld files\n", whole, (long long)whole_files);
    free(r.out);
    free(r.err);
    expect_storage_matches_catalog(f.name, table_dir);

    /* Then interrupted at random points of its run (the seed printed, to
     * replay a failure). */
    unsigned seed = (unsigned)time(NULL);
    print_message("delays seeded with %u\n", seed);
    srand(seed);
    int interrupted = 0;
    for (int i = 0; i < 5; i++) {
        int delay = (int)((double)rand() / RAND_MAX * whole * 1000.0);
        int64_t rows_before = file_rows(f.name);
        run_append(&r, dir, table, delay, i % 2 == 1);
        print_message("SIGINT after %d ms: exit %d in %.2f s\n", delay, r.code, r.seconds);
        /* The second signal of a pair can land after the first one's
         * cleanup ended and the handlers were put back (a loaded machine
         * delays the sender): the append was still interrupted and
         * cleaned up, and the late signal only ended the exit. */
        bool late_term = r.code == -SIGTERM && i % 2 == 1 && strstr(r.err, "interrupted: removed ");
        if (r.code == 130 || late_term) {
            expect_contains(r.err, "interrupted: removed ", "the interruption's report");
            expect_contains(r.err, " written by this append", "the interruption's report");
            assert_null(strstr(r.err, "could not remove"));
            assert_int_equal(file_rows(f.name), rows_before);
            interrupted++;
        } else if (r.code == 0) {
            expect_contains(r.out, "snapshot ", "a committed append's report");
            assert_true(file_rows(f.name) > rows_before);
        } else if (r.code < 0 && strstr(r.out, "snapshot ")) {
            /* The signal landed after the commit, while the report was
             * printed (the handler is gone by then): committed all the
             * same, and storage must still match the catalog. */
            assert_true(file_rows(f.name) > rows_before);
        } else {
            fail_msg("an interrupted append exited %d:\n%s%s", r.code, r.out, r.err);
        }
        free(r.out);
        free(r.err);
        expect_storage_matches_catalog(f.name, table_dir);
        assert_int_equal(claims_in(&f, "active"), 0);
    }
    print_message("%d of 5 runs interrupted before their commit\n", interrupted);
    fixture_free(&f);
    test_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(append_registers_its_claims),
        cmocka_unit_test(prepared_payload_names_its_owner),
        cmocka_unit_test(refused_file),
        cmocka_unit_test(refused_moto),
        cmocka_unit_test(cancelled_append_leaves_nothing),
        cmocka_unit_test(long_appends_renew_their_claims),
        cmocka_unit_test(interrupted_cli_append),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
