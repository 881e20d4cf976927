/* Input names mapped to column names, one module for both verbs:
 * `append --map 'Source Header=column,...'` and `parquet convert --map`
 * or `--rename OLD=NEW[,OLD=NEW...]`; and saying which names need a
 * mapping when the input has some the table cannot take, all at once.
 *
 * OLD is the input's name. With --rename a nested struct field is named by
 * its dotted path ("meta.b c"), a field inside a list or map through
 * "element", "key" or "value" ("tags.element.x y"); with --map OLD is one
 * top-level name taken as it is, dots included (CSV headers such as
 * "Price (U.S. $)"). In OLD a backslash takes the next character
 * literally, so a name holding ',', '=' or '\' (and with --rename '.') is
 * written "a\,b". NEW is a single name and must be a valid identifier
 * (LAKE_IDENT_PATTERN, not starting with the reserved "_hog").
 *
 * Everything is allocated from the caller's arena. */
#ifndef HL_CLI_NAME_MAP_H
#define HL_CLI_NAME_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "parquet/schema.h"
#include "util/arena.h"
#include "util/buf.h"

struct name_map_entry {
    char **path; /* OLD split into names */
    size_t depth;
    const char *old_text; /* OLD as given, for messages */
    const char *option;   /* "--map" or "--rename", for messages */
    const char *new_name;
    bool used;
};

/* The values of one option naming mappings. */
struct name_map_option {
    const char *option; /* "--map" or "--rename" */
    bool paths;         /* unescaped dots in OLD separate nested names */
    const char *const *values;
    size_t nvalues;
};

/* What name_map_apply checks beyond renaming. */
enum {
    NAME_MAP_CHECK_UNUSED = 1, /* every OLD names a field of the input */
    NAME_MAP_CHECK_IDENTS = 2, /* every final name can be a column's */
};

struct name_map {
    struct name_map_entry *items;
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

/* Parses the values of the options, in order, into one map. Returns
 * EXIT_OK, or EXIT_USAGE after printing why a value is unusable. */
int name_map_parse(const struct name_map_option *opts, size_t nopts, struct arena *a,
                   struct name_map *out);

/* Renames the fields under root (root's kids are the columns), then checks
 * them as `checks` (NAME_MAP_CHECK_*) says. Returns EXIT_OK; EXIT_USAGE
 * after printing which OLD names no field or makes two fields collide; or,
 * when some final names are not usable column names, EXIT_FAILURE_OTHER
 * after printing them and a --rename that would fix them. */
int name_map_apply(struct name_map *r, struct rename_field *root, int checks, const char *in_path,
                   struct arena *a);

/* The input's name of the top-level column renamed to new_name, or
 * new_name itself when no rename produces it. */
const char *name_map_source_of(const struct name_map *r, const char *new_name);

/* Renames, in place, the fields of an Arrow struct schema read from the
 * input (its children are the columns). Returns 0, or -1 out of memory. */
int name_map_arrow(const struct name_map *r, struct ArrowSchema *s, struct arena *a);

/* Renames and checks the columns of a Parquet file's schema s (only
 * renames when check_names is false: a --schema picks the columns) and
 * builds *out, the schema with the new names. Returns as
 * name_map_apply, or EXIT_FAILURE_OTHER (printed) when memory or
 * the rebuilt schema fails. */
int name_map_parquet(struct name_map *r, const struct pq_schema *s, bool check_names,
                     const char *in_path, struct arena *a, struct pq_schema *out);

/* Renames and checks (NAME_MAP_CHECK_*) a CSV header's names; *out gets
 * the final names. */
int name_map_header(struct name_map *r, const char *const *names, size_t n, int checks,
                    const char *in_path, struct arena *a, const char ***out);

/* Renames (r) a CSV header's or a JSON Lines input's top-level names as
 * name_map_header does, checking as `checks` says (only
 * NAME_MAP_CHECK_UNUSED counts), then gives each final name a table
 * cannot take the name --rename reports suggest, and adds that mapping to
 * r as a --map entry, so reading the input through r yields the names in
 * *out. Returns EXIT_OK, or the exit code of the problem printed. */
int name_map_header_fixed(struct name_map *r, const char *const *names, size_t n, int checks,
                          const char *in_path, struct arena *a, const char ***out);

/* Appends r's top-level mappings as a --map value ("In Name=in_name,...").
 * 0, or -1 out of memory. */
int name_map_text(const struct name_map *r, struct buf *out);

/* Checks that every NEW of the map is a column of t (`what` names t in
 * messages: "the table"). Returns EXIT_OK, or EXIT_USAGE after printing
 * every NEW that is not. */
int name_map_check_targets(const struct name_map *r, const struct lake_table *t, const char *what);

/* Checks an input's final names (names[i], read as in_names[i]) against
 * the columns of t. A name t lacks whose sanitized form (the name `table
 * create --from` gave it: other characters '_') is a column no other name
 * binds is replaced by that column's name, so a file a table was created
 * from appends without a --map. Every other name t lacks is reported in
 * one message, with t's columns and the --map that would fix them (a
 * column whose name the input's differs from only by case or punctuation
 * is suggested). Returns EXIT_OK, or EXIT_FAILURE_OTHER after printing. */
int name_map_check_known(const char *const *in_names, const char **names, size_t n,
                         const struct lake_table *t, const char *what, const char *in_path);

/* The input's name of each top-level column of t, as a JSON Lines parser
 * takes them (textio_parser_json_names): NULL entries for columns the map
 * leaves alone. Returns 0, or -1 out of memory. */
int name_map_columns_sources(const struct name_map *r, const struct lake_table *t, struct arena *a,
                             const char *const **out);

#endif
