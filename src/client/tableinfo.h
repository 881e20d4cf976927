/* A server's Table object as a catalog table definition. */
#ifndef HL_CLIENT_TABLEINFO_H
#define HL_CLIENT_TABLEINFO_H

#include <jansson.h>

#include "client/internal.h"
#include "lake/schema.h"

/* Fills t (initialised, empty) from a Table object: its columns with their
 * field ids, partition spec and sort order. A malformed answer is
 * HL_ERR_PROTOCOL. */
hl_status client_table_from_info(const json_t *info, struct lake_table *t, struct hl_error *err);

#endif
