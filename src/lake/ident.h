/* Identifier rules for catalog objects. */
#ifndef HL_LAKE_IDENT_H
#define HL_LAKE_IDENT_H

#include <stdbool.h>
#include <stddef.h>

#define LAKE_IDENT_PATTERN "^[A-Za-z_][A-Za-z0-9_-]{0,127}$"
#define LAKE_CATALOG_PATTERN "^[a-z0-9][a-z0-9_-]{0,62}$"
#define LAKE_PROPERTY_KEY_PATTERN "^[a-z][a-z0-9_.-]{0,127}$"
#define LAKE_RESERVED_PREFIX "_hog"

enum { LAKE_COMMENT_MAX = 16384, LAKE_PROPERTIES_MAX = 100, LAKE_PROPERTY_VALUE_MAX = 4096 };

/* Namespace, table, view and column names. */
bool lake_ident_valid(const char *s);
/* Catalog names: lower case, at most 63 characters. */
bool lake_catalog_name_valid(const char *s);
/* Column names starting with "_hog" belong to hoglake's physical columns. */
bool lake_ident_reserved(const char *s);
/* Custom table property keys: pattern, and not a reserved key or prefix. */
bool lake_property_key_valid(const char *key);
/* A usable name derived from `name` (how `table create --from` names a
 * header that cannot be a column's), into out: other characters become
 * '_' (a UTF-8 sequence one '_', runs one), a leading digit or '-' gets
 * '_' before it, the reserved prefix gets 'x' before it; "column" when
 * nothing is left. At most LAKE_IDENT_MAX characters plus one. */
enum { LAKE_IDENT_MAX = 128 };
void lake_ident_sanitize(const char *name, char out[LAKE_IDENT_MAX + 2]);
/* Writes a name for an error message, shortened to 64 characters. */
void lake_ident_shown(const char *s, char *out, size_t out_size);

#endif
