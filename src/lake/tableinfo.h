/* The server's Table object as a table definition. */
#ifndef HL_LAKE_TABLEINFO_H
#define HL_LAKE_TABLEINFO_H

#include <jansson.h>

#include "lake/schema.h"

/* Fills t (initialised, empty) from a Table object: its columns with their
 * field ids, partition spec and sort order. A malformed answer is -1 with
 * ERR_MALFORMED (or ERR_NOMEM) and a message saying what. */
int lake_table_from_info(const json_t *info, struct lake_table *t, struct error *err);

#endif
