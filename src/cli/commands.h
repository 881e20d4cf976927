/* The hoglake command's commands, one table: main dispatches through it,
 * and the top-level help, the shell completion (completion.c) and the man
 * page (manpage.c) are generated from it and from the verb and option
 * tables each command describes (struct cli.describe), so none of them
 * can leave a verb or an option out. */
#ifndef HL_CLI_COMMANDS_H
#define HL_CLI_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"

struct cli_command {
    const char *name;
    int (*run)(struct cli *cli, int argc, char **argv);
    /* For a group, what its verbs act on ("" for nothing to add); a
     * command without verbs says it with its verb's summary. */
    const char *about;
    bool offline; /* runs without a server: no token, no client */
};

extern const struct cli_command cli_commands[];
extern const size_t cli_ncommands;

/* The options taken before the command (main.c parses them). */
extern const struct cli_opt cli_global_opts[];
extern const size_t cli_nglobal_opts;

/* The command named `name`, or NULL. */
const struct cli_command *cli_command_find(const char *name);
/* What command c is made of (its verbs and their options). */
struct cli_command_info cli_command_describe(const struct cli_command *c);

/* The value placeholder of an option ("N", "csv|tsv|jsonl"), copied into
 * out: the first word of its help. Empty for a flag. */
void cli_opt_placeholder(const struct cli_opt *o, char *out, size_t size);
/* The text of an option's help after its placeholder. */
const char *cli_opt_description(const struct cli_opt *o);

/* The top-level help: usage, every command (a group with all its verbs),
 * the global options, names, storage and exit codes. */
void cli_print_help(FILE *out);
/* `hoglake completion bash|zsh` and `hoglake manpage`. */
int cmd_completion(struct cli *cli, int argc, char **argv);
int cmd_manpage(struct cli *cli, int argc, char **argv);

#endif
