/* A table's columns written back as a compact column spec (the form
 * textio/colspec.h parses): what `table create --from FILE.parquet` prints
 * and creates. Field ids are not written (the catalog assigns its own);
 * comments and variant shredding are not part of the spec and are left
 * out. */
#ifndef HL_COLSPEC_FORMAT_H
#define HL_COLSPEC_FORMAT_H

#include "lake/schema.h"
#include "util/buf.h"

/* Appends t's columns ("id:long!, tags:list<string>") to out. Returns 0,
 * or -1 out of memory. */
int colspec_format_columns(const struct lake_table *t, struct buf *out);

#endif
