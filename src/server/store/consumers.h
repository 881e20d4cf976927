/* hog_consumer_offset rows: per (consumer, table incarnation) the last
 * snapshot a changefeed consumer committed. Setting one is a single
 * conditional upsert that only moves forward, re-checks the catalog's
 * floor and head, and removes the consumer's offsets on the incarnations
 * the table replaced; reads list one offset, a consumer's, or every
 * consumer's with the live names of their tables.
 *
 * The module also reads hog_table for what offsets are keyed by (a table
 * incarnation's uuid and its replacement lineage), and hog_catalog for the
 * floor an offset must not fall below: both are part of the offset
 * statements, not separate lookups of those families. */
#ifndef HL_SERVER_STORE_CONSUMERS_H
#define HL_SERVER_STORE_CONSUMERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/error.h"

struct db_conn;

/* An offset; strings in the arena. */
struct store_consumer_offset {
    const char *consumer_id;
    const char *table_uuid;
    int64_t committed_snapshot;
    int64_t updated_at_us; /* microseconds since the epoch */
    /* store_consumers_list only: the live table's names, NULL when its
     * incarnation was dropped. */
    const char *namespace_name;
    const char *table_name;
};

/* Whether the catalog has a table incarnation with this uuid (live or
 * dropped): 1, 0, or -1. */
int store_consumer_table_exists(struct db_conn *db, int64_t catalog_id, const char *table_uuid,
                                struct error *err);
/* Sets the consumer's offset on the table to `snapshot` unless the stored
 * one is ahead or the snapshot is outside the catalog's [floor, head] as
 * the statement sees it; when it takes, drops the consumer's offsets on
 * every incarnation the table replaced. 1 with *out the stored offset,
 * 0 refused, -1. */
int store_consumer_offset_upsert(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                                 const char *consumer_id, const char *table_uuid, int64_t snapshot,
                                 struct store_consumer_offset *out, struct error *err);

/* What a refused upsert ran into: the stored offset and the floor now. */
struct store_offset_refusal {
    bool has_stored;
    int64_t stored;
    int64_t earliest; /* the catalog's earliest snapshot */
    bool has_earliest_time;
    int64_t earliest_time_us;
};
/* 1 with *out filled, 0 when the catalog is gone, -1. */
int store_consumer_offset_refusal(struct db_conn *db, int64_t catalog_id, const char *consumer_id,
                                  const char *table_uuid, struct store_offset_refusal *out,
                                  struct error *err);

/* The consumer's offset on the table: 1 found, 0 none, -1. */
int store_consumer_offset_get(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                              const char *consumer_id, const char *table_uuid,
                              struct store_consumer_offset *out, struct error *err);
/* The consumer's offsets ordered by table uuid (array in the arena; none
 * when the consumer has no offsets). 0 or -1. */
int store_consumer_offsets_list(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                                const char *consumer_id, struct store_consumer_offset **out,
                                size_t *count, struct error *err);
/* At most `limit` offsets of the catalog ordered by (consumer id in C
 * collation, table uuid), from the first after (after_consumer,
 * after_uuid) (both NULL: from the start), each with its table's names at
 * the head as this statement sees the catalog (array in the arena). 0 or
 * -1. */
int store_consumers_page(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                         const char *after_consumer, const char *after_uuid, int64_t limit,
                         struct store_consumer_offset **out, size_t *count, struct error *err);

#endif
