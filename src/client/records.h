/* The typed records of the metadata reads (records.c, plans.c): decoders of the
 * server's DataFile and DeleteFile objects, and of JSON arrays of records,
 * shared by every listing that holds them (plans.c). */
#ifndef HL_CLIENT_RECORDS_H
#define HL_CLIENT_RECORDS_H

#include <stddef.h>

#include "client/internal.h"

/* Each decoder fills its record from obj; on failure the record is left
 * zeroed, holding nothing. A clear frees what the record holds and zeroes
 * it. */
hl_status client_data_file_decode(const json_t *obj, struct hl_data_file *f, struct hl_error *err);
void client_data_file_clear(struct hl_data_file *f);
hl_status client_delete_file_decode(const json_t *obj, struct hl_delete_file *d,
                                    struct hl_error *err);
void client_delete_file_clear(struct hl_delete_file *d);

/* obj's required DataFile member `data_file` (obj being a `what`); a
 * missing one, or one of another type, is HL_ERR_PROTOCOL naming it. */
hl_status client_data_file_member(const json_t *obj, const char *what, struct hl_data_file *f,
                                  struct hl_error *err);
/* obj's nullable DeleteFile member `member` (obj being a `what`): *out is
 * NULL when it is absent or null, else a malloc'd record for
 * client_delete_file_free. A member of another type is HL_ERR_PROTOCOL
 * naming it. */
hl_status client_delete_file_member(const json_t *obj, const char *what, const char *member,
                                    struct hl_delete_file **out, struct hl_error *err);
void client_delete_file_free(struct hl_delete_file *d);

/* How the records of one kind are decoded from JSON and released. */
struct client_record_kind {
    size_t size;
    hl_status (*decode)(const json_t *obj, void *rec, struct hl_error *err);
    void (*clear)(void *rec);
};
extern const struct client_record_kind client_data_file_kind;
extern const struct client_record_kind client_scan_file_kind; /* plans.c */

/* The records of the JSON array `list` (`what` names it in errors),
 * decoded into *recs (a malloc'd array of *n, NULL when empty). On
 * failure *recs is NULL and nothing is held. */
hl_status client_records_decode(const json_t *list, const char *what,
                                const struct client_record_kind *kind, void **recs, size_t *n,
                                struct hl_error *err);
void client_records_free(const struct client_record_kind *kind, void *recs, size_t n);

/* The listing text (taken: freed whatever the outcome) parsed; text that
 * is not JSON is HL_ERR_PROTOCOL naming `what`. */
hl_status client_records_parse(char *text, const char *what, json_t **out, struct hl_error *err);

/* A whole listing of the table at `at` (hl_table_files, hl_table_scan_plan)
 * read as text and decoded: client_records_decode's contract. */
typedef hl_status (*client_listing_read)(hl_table *t, const struct hl_at *at, char **json,
                                         struct hl_error *err);
hl_status client_listing_records(client_listing_read read, hl_table *t, const struct hl_at *at,
                                 const char *what, const struct client_record_kind *kind,
                                 void **recs, size_t *n, struct hl_error *err);

/* The typed plans (plans.c): a ChangePlan object into *plan (for
 * hl_changes_plan_clear; zeroed, holding nothing, on failure). */
hl_status client_changes_plan_decode(const json_t *obj, struct hl_changes_plan *plan,
                                     struct hl_error *err);

#endif
