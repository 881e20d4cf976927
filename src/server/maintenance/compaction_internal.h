/* What compaction's planner, rewriter and committer share (compaction.h).
 * Internal to the server. */
#ifndef HL_SERVER_MAINTENANCE_COMPACTION_INTERNAL_H
#define HL_SERVER_MAINTENANCE_COMPACTION_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/store/compaction.h"
#include "util/sha256.h"

/* A planned input (struct store_compaction_input: the identity the commit
 * re-verifies) and the rewritten file as registered (struct
 * store_compaction_output) are the store's structs, which the claim and the
 * commit take as they are. */

/* A claimed group of one table's files sharing spec and partition values. */
struct cpt_group {
    int64_t table_id;
    const char *ns_name, *table_name;
    int64_t spec_id;                       /* -1: files without a spec */
    const char *partition_json;            /* the values as a JSON array ("[]" when none) */
    struct store_compaction_input *inputs; /* by id */
    size_t ninputs;
    int64_t bytes, records;
    char key[SHA256_HEX_CHARS + 1];
};

#endif
