/* A commit request (contract §4.1) as C structs: read strictly from its
 * JSON, checked for everything that does not need the database, merged
 * by table, and fingerprinted for idempotent replays.
 *
 * Everything lives in the request arena. */
#ifndef HL_SERVER_COMMIT_COMMIT_REQ_H
#define HL_SERVER_COMMIT_COMMIT_REQ_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/error.h"
#include "util/sha256.h"

struct api_error;

enum {
    COMMIT_MAX_SPLITS = 100000,
    /* Not 1: the reference server's version 1 hashes another canonical
     * form, and a receipt it wrote must read as "unknown version" here
     * (answered from the stored result), never as a mismatch. */
    COMMIT_FINGERPRINT_VERSION = 0xC1,
    COMMIT_FINGERPRINT_BYTES = 1 + SHA256_BYTES,
};

#define COMMIT_MAX_RECORD_COUNT ((int64_t)1 << 48)
/* The longest author and message, in bytes: they are read back with every
 * snapshot page that holds their snapshot. */
#define COMMIT_MAX_TEXT_BYTES 65536
/* The longest path and partition value, in bytes: each is a key of a
 * btree index (hog_data_file_path, hog_upload's, the partition value
 * lookup), whose entries hold at most 2,704 bytes; longer text failed the
 * insert (a 500). A path covers an S3 key (at most 1,024 bytes) under its
 * bucket and data path. */
#define COMMIT_MAX_PATH_BYTES 2048
#define COMMIT_MAX_PARTITION_VALUE_BYTES 2048

struct commit_stat {
    int64_t field_id;
    int64_t value_count, null_count;
    bool has_nan_count, has_size_bytes;
    int64_t nan_count, size_bytes;
    const char *lower_b64, *upper_b64; /* as sent; NULL when absent */
    /* Decoded and sanitized by the commit (commit.c); NULL = no bound. */
    uint8_t *lower, *upper;
    size_t lower_len, upper_len;
};

struct commit_file {
    const char *path;
    int64_t record_count, file_size_bytes;
    /* Its rows keep the ids they had (an update's rewrite): each row's id
     * is in its _hog_row_id column, whose statistics bound them. */
    bool explicit_row_ids;
    int64_t row_id_min; /* with explicit_row_ids: the lower bound, once checked */
    bool has_footer_size;
    int64_t footer_size;
    bool has_stats; /* column_stats present (possibly empty): stats_state 'provided' */
    struct commit_stat *stats;
    size_t nstats;
    bool has_partition_values;
    const char **partition_values; /* NULL entries are null partition values */
    size_t npartition_values;
    int64_t *split_offsets;
    size_t nsplit_offsets;
};

struct commit_dv {
    int64_t data_file_id;
    /* Its target is a file this commit appends to the same table, named
     * by data_file_path (the transaction endpoint): the index in the
     * table's files. */
    bool targets_append;
    size_t append_index;
    const char *target_path; /* that file's path, as named; NULL: named by id */
    const char *path;
    int64_t delete_count, file_size_bytes;
    /* The vector holds every row of its target, which the commit ends:
     * the file leaves the table (its vector stays, for the changefeed). */
    bool removes_file;
};

/* Everything the request does to one table: its append and delete groups
 * merged, in first-occurrence order. */
struct commit_table {
    const char *namespace_name, *name;
    const char **expected_uuids; /* every expected_table_uuid given for it */
    size_t nexpected;
    struct commit_file *files;
    size_t nfiles;
    struct commit_dv *dvs;
    size_t ndvs;
    bool in_deletes; /* some deletes group names it (possibly with no files) */
};

/* What an endpoint requires of a request and lets it do (contract §2.5,
 * §4.1): the endpoint sets these, never the client. */
struct commit_rules {
    bool needs_key;
    bool needs_read_snapshot;
    bool needs_table_uuids; /* expected_table_uuid on every group */
    bool needs_deletes;     /* at least one deletes group */
    bool refuses_appends;
    /* Deletes groups without files are a statement that deleted nothing:
     * committed (checked and recorded) though nothing is registered. */
    bool zero_row_deletes;
    /* requireUnchangedTables: a table a deletes group names must have had
     * no insert or delete (nor creation) since read_snapshot. */
    bool unchanged_tables;
    /* allowPendingDeletes: a deletion vector may name its target by
     * data_file_path, a file the same commit appends. */
    bool pending_deletes;
    bool explicit_row_ids; /* FileRegistration.explicit_row_ids */
    /* Every path is an active upload claim of its kind whose owner is the
     * idempotency key (upload_owner is then refused). */
    bool claims_by_key;
};

/* The commit endpoints: /commit, /commit/prepared,
 * /commit/deletes/prepared, /commit/mutations/prepared, /commit/uploads
 * and /commit/transaction. */
extern const struct commit_rules commit_rules_plain, commit_rules_prepared, commit_rules_deletes,
    commit_rules_mutations, commit_rules_uploads, commit_rules_transaction;

struct commit_request {
    const struct commit_rules *rules; /* the endpoint's */
    bool has_key;
    char key[37]; /* lowercase canonical UUID */
    bool has_read_snapshot;
    int64_t read_snapshot;
    const char *author, *message; /* NULL when absent */
    /* The writer's upload-claim owner (contract 2.7): its claimed paths are
     * consumed, its other active claims released. */
    bool has_upload_owner;
    char upload_owner[37]; /* lowercase canonical UUID */
    struct commit_table *tables;
    size_t ntables;
    size_t nfiles, ndvs;       /* over all tables */
    bool has_partition_values; /* some file carries partition_values */
    uint8_t fingerprint[COMMIT_FINGERPRINT_BYTES];
};

/* Reads and checks a CommitRequest body sent to the endpoint whose rules
 * are given, for the handler (commits.c), which answers with what it fills
 * in err. Shape errors (unknown or missing members, wrong JSON types, a
 * key that is not a UUID) are 400; values out of range (record_count,
 * sizes, split offsets, footer_size), requests with nothing to commit or
 * deletes without read_snapshot, and what the endpoint refuses or lacks
 * are 422. Paths are not checked here (commit_check_path, against the
 * catalog). */
int commit_request_parse(const json_t *body, const struct commit_rules *rules, struct arena *a,
                         struct commit_request *out, struct api_error *err);

/* 0 when `path` lies under data_path as the contract requires (prefix plus
 * '/', no whitespace or control characters, a non-empty relative part
 * without empty, "." or ".." segments, at most COMMIT_MAX_PATH_BYTES);
 * ERR_INVALID naming `what` otherwise. The commit checks its paths against
 * its catalog with it. */
int commit_check_path(const char *data_path, const char *path, const char *what, struct error *err);

#endif
