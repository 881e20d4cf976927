/* Every route handler, grouped by resource, each group under the file
 * (below server/) that defines it. See router.c for the paths. */
#ifndef HL_SERVER_HTTP_HANDLERS_H
#define HL_SERVER_HTTP_HANDLERS_H

#include "server/http/api.h"

/* http/ops.c: probes, metrics, instance info, the OpenAPI document, stubs */
int h_livez(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_healthz(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_metrics(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_openapi(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_info(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_publications_stub(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_export_stub(struct srv_req *req, struct srv_res *res, struct api_error *err);

/* catalog/catalogs.c */
int h_catalogs_list(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_catalogs_create(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_catalog_get(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_catalog_options_get(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_catalog_options_patch(struct srv_req *req, struct srv_res *res, struct api_error *err);

/* maintenance/hydrate_endpoint.c: the hydrator's maintenance endpoints */
int h_maintenance_hydrate(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_maintenance_rehydrate(struct srv_req *req, struct srv_res *res, struct api_error *err);

/* catalog/namespaces.c */
int h_namespaces_list(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_namespaces_create(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_namespace_get(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_namespace_drop(struct srv_req *req, struct srv_res *res, struct api_error *err);

/* catalog/tables.c */
int h_tables_list(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_tables_create(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_table_get(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_table_drop(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_table_alter(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_table_truncate(struct srv_req *req, struct srv_res *res, struct api_error *err);

/* catalog/files.c, scan.c, changes.c: data files at a snapshot, read plans, changefeed */
int h_table_files(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_table_file_stats(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_table_scan(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_table_changes(struct srv_req *req, struct srv_res *res, struct api_error *err);

/* catalog/views.c */
int h_views_list(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_views_create(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_view_get(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_view_drop(struct srv_req *req, struct srv_res *res, struct api_error *err);

/* catalog/snapshots.c */
int h_snapshots_list(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_snapshot_resolve(struct srv_req *req, struct srv_res *res, struct api_error *err);

/* commit/commits.c */
int h_commit(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_commit_prepared(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_commit_deletes(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_commit_mutations(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_commit_uploads(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_commit_transaction(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_commit_receipt(struct srv_req *req, struct srv_res *res, struct api_error *err);

/* catalog/consumers.c */
int h_consumers_list(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_consumer_offsets_list(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_consumer_offset_get(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_consumer_offset_put(struct srv_req *req, struct srv_res *res, struct api_error *err);

/* maintenance/maintenance_endpoint.c: the ledger and per-task status;
 * maintenance/expiry_endpoint.c: the expiry pass */
int h_maintenance_runs(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_maintenance_status(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_maintenance_expire(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_upload_claim(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_upload_claim_batch(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_upload_renew(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_upload_abandon(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_upload_schedule_expired(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_maintenance_retire(struct srv_req *req, struct srv_res *res, struct api_error *err);
/* The catalog named by path parameter 0 (404) and the request's
 * connection (503), for the per-catalog maintenance routes. */
struct catalog_row;
struct db_conn *maint_catalog_db(struct srv_req *req, struct catalog_row *cat,
                                 struct api_error *err);
/* One manual run of `task` on that catalog through the maintenance
 * framework (its lock and ledger), answered with the run's result: 503
 * maintenance_busy when another run holds the catalog past the request's
 * lock budget. */
struct maint_task;
int maint_run_reply(struct srv_req *req, struct srv_res *res, const struct maint_task *task,
                    struct api_error *err);
/* maintenance/cleanup_endpoint.c: one pass over the removal queue */
int h_maintenance_cleanup(struct srv_req *req, struct srv_res *res, struct api_error *err);
/* maintenance/orphans_endpoint.c: one orphan sweep of the catalog's storage */
int h_maintenance_orphans(struct srv_req *req, struct srv_res *res, struct api_error *err);
/* maintenance/summary_endpoint.c: partitions ranked by compaction debt,
 * and one table's partitions, from the partition summary */
int h_stats_partitions(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_table_partitions(struct srv_req *req, struct srv_res *res, struct api_error *err);
/* maintenance/compact_endpoint.c: one compaction pass */
int h_maintenance_compact(struct srv_req *req, struct srv_res *res, struct api_error *err);

/* auth/tokens.c: API tokens (admin only) */
int h_tokens_create(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_tokens_list(struct srv_req *req, struct srv_res *res, struct api_error *err);
int h_token_revoke(struct srv_req *req, struct srv_res *res, struct api_error *err);

#endif
