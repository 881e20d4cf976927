/* The hoglake command: shared context, exit codes, option parsing and the
 * request helper every subcommand uses. */
#ifndef HL_CLI_H
#define HL_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/hoglake.h"

/* Exit codes, stable for scripts. */
enum cli_exit {
    EXIT_OK = 0,
    EXIT_FAILURE_OTHER = 1, /* server refused (validation...), unreachable, I/O */
    EXIT_USAGE = 2,         /* bad command line */
    EXIT_NOT_FOUND = 3,
    EXIT_CONFLICT = 4, /* any 409: exists, conflict, recreated, not empty... */
    EXIT_AUTH = 5,     /* 401 or 403: no valid token, or too little role */
};

struct cli_command_info;

struct cli {
    hl_client *client;
    bool json; /* print the server's JSON instead of a human view */
    /* When set, a command fills it and returns instead of running: the
     * help, the shell completion and the man page are derived from the
     * very tables the parser reads (commands.h). */
    struct cli_command_info *describe;
};

/* ---- credentials ---- */

/* Whether url is where a server started with the same defaults as this
 * command listens: http on a loopback name at $HOGLAKE_PORT (else 8080). */
bool cli_is_default_local_server(const char *url);
/* The token to send, in this order: `flag` (--token), $HOGLAKE_TOKEN, the
 * file $HOGLAKE_TOKEN_FILE names (its first line), then, for the default
 * local server, <default data dir>/admin.token when this user can read it.
 * *out (malloc'd; the caller wipes and frees it) is NULL for none. Returns
 * EXIT_OK, or EXIT_USAGE after printing why HOGLAKE_TOKEN_FILE is unusable. */
int cli_credentials(const char *flag, const char *server_url, char **out);

/* ---- options ---- */

enum { CLI_MAX_POSITIONAL = 1024, CLI_MAX_VALUES = 64 };

struct cli_opt {
    const char *name; /* long name without "--" */
    bool takes_value;
    bool repeatable;
    const char *help; /* "VALUE  what it does" */
};

struct cli_args {
    const struct cli_opt *spec;
    size_t nspec;
    const char *positional[CLI_MAX_POSITIONAL];
    int npositional;
    /* For each option in the spec: the values given (flags get "" once). */
    const char *values[CLI_MAX_VALUES];
    int value_opt[CLI_MAX_VALUES];
    int nvalues;
    bool help;
    bool json; /* the global --json, given after the command */
};

/* --snapshot and --at, for verbs that read as of a snapshot. */
extern const struct cli_opt cli_time_travel_opts[2];

/* Parses argv against the spec. Prints a usage error and returns false on
 * an unknown option, a missing value or too many positionals. */
bool cli_parse(int argc, char **argv, const struct cli_opt *spec, size_t nspec,
               struct cli_args *out, const char *usage);
/* The last value of option `name` (which must be in the parsed spec), or
 * NULL when it was not given. */
const char *cli_opt_value(const struct cli_args *a, const char *name);
bool cli_opt_given(const struct cli_args *a, const char *name);
/* Parses option `name` as a base-10 integer >= min into *out, leaving *out
 * alone when the option was not given. Prints a usage error and returns
 * EXIT_USAGE when the value is not such an integer, else EXIT_OK. */
int cli_opt_i64(const struct cli_args *a, const char *name, int64_t min, int64_t *out);
/* All values of a repeatable option, in order; returns the count. */
int cli_opt_values(const struct cli_args *a, const char *name, const char **out, int max);
/* Prints "usage: ..." and the option list. */
void cli_print_usage(const char *usage, const struct cli_opt *spec, size_t nspec);
/* Prints a usage error and returns EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- names ---- */

/* Splits "a.b.c" into exactly `n` non-empty parts (copied into parts, each
 * up to 200 bytes). Returns false when the shape is wrong. */
bool cli_split_name(const char *qualified, int n, char parts[][200]);

/* The catalog, namespace and table handles of CATALOG.NAMESPACE.TABLE. */
struct cli_table {
    hl_catalog *catalog;
    hl_namespace *ns;
    hl_table *table;
};
/* Opens the three handles of `parts` (from cli_split_name); on failure
 * none stays open. The caller reports the error its own way. */
hl_status cli_table_open(struct cli *cli, char parts[3][200], struct cli_table *t,
                         struct hl_error *err);
void cli_table_close(struct cli_table *t);
/* Prints the rows the changefeed of CATALOG.NAMESPACE.TABLE reports in
 * (from, to] (to -1: the head), each with its _row_id and _change_type,
 * as JSON Lines or CSV (fmt: "jsonl", "csv", NULL for jsonl). */
int cli_print_changed_rows(struct cli *cli, const char *qualified, int64_t from, int64_t to,
                           const char *fmt);
/* Appends the URL-encoded segment to a path buffer. */
bool cli_path_append(char *path, size_t size, const char *segment);
/* Appends key=value (the value URL-encoded, at most 100 bytes before
 * encoding) to a path's query; a value that does not fit is left out. */
void cli_path_add_query(char *path, size_t size, const char *key, const char *value);
/* Builds an object's API path from a qualified name of `nparts` parts
 * (CATALOG, CATALOG.NAMESPACE or CATALOG.NAMESPACE.NAME):
 *   /v1/catalogs/C[/namespaces/NS][/<collection>[/NAME]]<suffix>
 * `collection` is "namespaces" (with 1 part), "tables" or "views" (with 2
 * or 3 parts), or NULL for the catalog or namespace itself. Prints a usage
 * error and returns EXIT_USAGE when the name has the wrong shape. */
int cli_object_path(char *path, size_t size, const char *qualified, int nparts,
                    const char *collection, const char *suffix);
/* GET of an object path built as above, with the time-travel options when
 * `time_travel` (the verb must declare --snapshot and --at). */
int cli_get(struct cli *cli, const struct cli_args *a, int nparts, const char *collection,
            const char *suffix, bool time_travel, json_t **response);

/* ---- requests ---- */

/* Sends a request. On success stores the parsed response (may be NULL when
 * the body is empty) and returns EXIT_OK; otherwise prints the error and
 * returns its exit code. Takes ownership of `body`. */
int cli_request(struct cli *cli, const char *method, const char *path, json_t *body,
                json_t **response);
/* Prints an answer for the person at the terminal, given the object the
 * command named (its first argument). */
typedef void (*cli_human_fn)(const json_t *resp, const char *name);
/* Prints resp as JSON with --json, else through `human`; releases resp and
 * returns EXIT_OK. */
int cli_show(struct cli *cli, json_t *resp, cli_human_fn human, const char *name);
/* POSTs (no body) to the catalog's path + suffix ("/maintenance/...") and
 * shows the answer (cli_show, named by the catalog). */
int cli_post_catalog(struct cli *cli, const char *catalog, const char *suffix, cli_human_fn human);
/* The exit code of a library status, and the same after printing the
 * error (with the server's code and retry advice when there was one). */
int cli_exit_for(hl_status st);
int cli_report(hl_status st, const struct hl_error *err);
/* Adds the time-travel query (?snapshot= / ?at_timestamp=) from options
 * "snapshot" and "at" to path. */
bool cli_add_time_travel(char *path, size_t size, const struct cli_args *a);
/* Pretty-prints JSON to stdout. */
void cli_print_json(const json_t *v);
/* Reads a JSON argument: inline text, or "@FILE" for a file's contents.
 * Prints the problem and returns NULL on failure. */
json_t *cli_read_json_arg(const char *arg);

/* ---- verbs ---- */

/* One verb of a command group ("table create"). */
struct cli_verb {
    const char *name;
    const char *summary;
    const char *usage; /* after "hoglake " */
    const struct cli_opt *opts;
    size_t nopts;
    int min_args, max_args; /* positional arguments */
    int (*run)(struct cli *cli, const struct cli_args *args);
};

/* What a command is made of: a group's verbs, or the one verb of a
 * command without verbs (group NULL). Borrowed from static tables. */
struct cli_command_info {
    const char *group;
    const struct cli_verb *verbs;
    size_t nverbs;
};

/* Picks the verb named by argv[0], parses its options, checks arity and
 * runs it; handles --help at every level. */
int cli_run_verbs(struct cli *cli, const char *group, const struct cli_verb *verbs, size_t n,
                  int argc, char **argv);
/* The same for a group whose first verb is its default: when argv[0] names
 * no verb, the arguments are the first verb's ("hoglake snapshots CATALOG"
 * is "hoglake snapshots list CATALOG"; a catalog named like a verb needs
 * the verb spelled out). */
int cli_run_verbs_default(struct cli *cli, const char *group, const struct cli_verb *verbs,
                          size_t n, int argc, char **argv);
/* Runs one verb on its own arguments (argv after the command's name):
 * parses, answers --help, checks arity. For commands without verbs. */
int cli_run_command(struct cli *cli, const struct cli_verb *v, int argc, char **argv);

/* ---- subcommands ---- */

int cmd_catalog(struct cli *cli, int argc, char **argv);
int cmd_namespace(struct cli *cli, int argc, char **argv);
int cmd_table(struct cli *cli, int argc, char **argv);
int cmd_view(struct cli *cli, int argc, char **argv);
int cmd_snapshots(struct cli *cli, int argc, char **argv);
/* Reads of table data and changefeed plans (cmd_reads.c). */
int cmd_files(struct cli *cli, int argc, char **argv);
int cmd_changes(struct cli *cli, int argc, char **argv);
/* Changefeed consumers and their offsets (cmd_consumers.c). */
int cmd_consumers(struct cli *cli, int argc, char **argv);
int cmd_offsets(struct cli *cli, int argc, char **argv);
int cmd_maintenance(struct cli *cli, int argc, char **argv);
/* A maintenance verb's run: POSTs /v1/catalogs/{positional[0]}/maintenance/
 * <task> (with ?batch=N when --batch was given) and prints the result as
 * JSON with --json, else through `human`. */
int cli_maintenance_pass(struct cli *cli, const struct cli_args *a, const char *task,
                         cli_human_fn human);
/* An integer member of o (0 when absent or not an integer). */
int64_t cli_json_i64(const json_t *o, const char *key);
/* Rows in and out through libhoglake (cmd_data.c). */
int cmd_append(struct cli *cli, int argc, char **argv);
int cmd_read(struct cli *cli, int argc, char **argv);
int cmd_delete(struct cli *cli, int argc, char **argv);
int cmd_update(struct cli *cli, int argc, char **argv);
/* Opens the table a delete or an update names (its one positional) and
 * reads their shared options (--dry-run, --author, --message): EXIT_OK, or
 * the exit code of a failure already reported (cmd_delete.c). */
int cli_change_open(struct cli *cli, const struct cli_args *a, struct cli_table *h,
                    struct hl_delete_options *o);
/* What a delete or an update read and pruned, as one line of text. */
void cli_print_change_reads(int64_t files_scanned, int64_t files_pruned, int64_t row_groups_scanned,
                            int64_t row_groups_pruned, int64_t pages_scanned, int64_t pages_pruned);
/* The Iceberg export (cmd_export.c). */
int cmd_export(struct cli *cli, int argc, char **argv);
/* API tokens: create, list, revoke (cmd_token.c). */
int cmd_token(struct cli *cli, int argc, char **argv);
/* Local Parquet files: inspect, cat, convert (no server involved). */
int cmd_parquet(struct cli *cli, int argc, char **argv);

#endif
