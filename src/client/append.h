/* The writer path's shared pieces (append.c, prepare.c). */
#ifndef HL_CLIENT_APPEND_H
#define HL_CLIENT_APPEND_H

#include "client/internal.h"
#include "lake/schema.h"
#include "parquet/meta.h"
#include "parquet/schema.h"
#include "util/arena.h"

/* An empty result (snapshot_id -1), or NULL when out of memory. */
struct hl_append_result *client_append_result_new(void);
/* Records an object written to storage. 0 or -1 (out of memory). */
int client_result_uploaded(struct hl_append_result *res, const char *uri);
/* "<data_path>/data/<ns>/<table>/[<key>/]": where the table's new objects
 * go (a prepared append's under its idempotency key). 0 or -1 (out of
 * memory). */
int client_data_prefix(struct buf *out, const hl_table *t, const char *key);
/* Writes the stream's rows (consumed) as files of the table `info` (a
 * Table object) describes, at upload claims of `owner` (a uuid the caller
 * names on its commit), and commits nothing: *files gets their
 * FileRegistrations (a new reference), *rows how many rows they hold, res
 * what was uploaded. On failure, as a failed append, what res lists is
 * deleted and owner's claims are abandoned. */
hl_status client_append_stage(hl_table *t, const json_t *info, struct ArrowArrayStream *stream,
                              const char *owner, struct hl_append_result *res, json_t **files,
                              int64_t *rows, struct hl_error *err);
/* The incarnation a prepare expects (options' or the handle's) and the
 * basis it works against: the writer cache, or a fresh read when another
 * incarnation than the handle's is pinned (the cache holds the handle's
 * and cannot tell whether it is current) or an expected layout is given,
 * which must be the read's. *info is a new reference. */
hl_status client_prepare_basis(hl_table *t, const struct hl_prepare_options *o,
                               const char **expected, json_t **info, int64_t *basis,
                               struct hl_error *err);
/* Whether s is a UUID in its 8-4-4-4-12 hexadecimal form. */
bool client_is_uuid(const char *s);

/* A footer's statistics as a column_stats array (bounds in base64), or
 * NULL with err filled. Bounds live in arena until the JSON is built. */
json_t *client_column_stats_json(const struct pq_file_meta *meta, const struct pq_schema *schema,
                                 const struct lake_table *table, struct arena *arena,
                                 struct hl_error *err);

#endif
