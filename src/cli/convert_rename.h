/* `parquet convert --rename OLD=NEW[,OLD=NEW...]`: giving an input's
 * columns and struct fields the names a catalog table accepts, and saying
 * which names need it when the input has some it does not.
 *
 * OLD is the input's name; a nested struct field is named by its dotted
 * path ("meta.b c"), a field inside a list or map through "element", "key"
 * or "value" ("tags.element.x y"). In OLD a backslash takes the next
 * character literally, so a name holding '.', ',', '=' or '\' is written
 * "a\.b". NEW is a single name and must be a valid identifier
 * (LAKE_IDENT_PATTERN, not starting with the reserved "_hog").
 *
 * Everything is allocated from the caller's arena. */
#ifndef HL_CLI_CONVERT_RENAME_H
#define HL_CLI_CONVERT_RENAME_H

#include <stdbool.h>
#include <stddef.h>

#include "hoglake/arrow_abi.h"
#include "parquet/schema.h"
#include "util/arena.h"

struct convert_rename {
    char **path; /* OLD split into names */
    size_t depth;
    const char *old_text; /* OLD as given, for messages */
    const char *new_name;
    bool used;
};

struct convert_renames {
    struct convert_rename *items;
    size_t n;
};

/* One name of the input: a column, a struct field, or a list element or
 * map key/value (named "element", "key", "value", and not renamable). */
struct rename_field {
    const char *in_name;
    const char *name; /* after renaming */
    bool renamed;
    bool renamable;
    struct rename_field *kids;
    size_t nkids;
    size_t tag; /* the caller's: which input element this is */
};

/* Parses the --rename values. Returns EXIT_OK, or EXIT_USAGE after
 * printing why a value is unusable. */
int convert_renames_parse(const char *const *values, size_t nvalues, struct arena *a,
                          struct convert_renames *out);

/* Renames the fields under root (root's kids are the columns), then checks
 * them. Returns EXIT_OK; EXIT_USAGE after printing which --rename names no
 * field or makes two fields collide; or, when check_names is set and some
 * final names are not usable column names, EXIT_FAILURE_OTHER after
 * printing them and a --rename that would fix them. */
int convert_renames_apply(struct convert_renames *r, struct rename_field *root, bool check_names,
                          const char *in_path, struct arena *a);

/* The input's name of the top-level column renamed to new_name, or
 * new_name itself when no rename produces it. */
const char *convert_renames_source_of(const struct convert_renames *r, const char *new_name);

/* Renames, in place, the fields of an Arrow struct schema read from the
 * input (its children are the columns). Returns 0, or -1 out of memory. */
int convert_renames_arrow(const struct convert_renames *r, struct ArrowSchema *s, struct arena *a);

/* Renames and checks the columns of a Parquet file's schema s (only
 * renames when check_names is false: a --schema picks the columns) and
 * builds *out, the schema with the new names. Returns as
 * convert_renames_apply, or EXIT_FAILURE_OTHER (printed) when memory or
 * the rebuilt schema fails. */
int convert_renames_parquet(struct convert_renames *r, const struct pq_schema *s, bool check_names,
                            const char *in_path, struct arena *a, struct pq_schema *out);

/* Renames and checks a CSV header's names; *out gets the final names. */
int convert_renames_header(struct convert_renames *r, const char *const *names, size_t n,
                           const char *in_path, struct arena *a, const char ***out);

#endif
