/* The hydrator's CLI verbs, for the `maintenance` command group:
 *   hoglake maintenance hydrate CATALOG [--batch N]
 *   hoglake maintenance rehydrate CATALOG [--table NAMESPACE.TABLE]
 * (listed in cmd_maintenance.c's verb table). */
#ifndef HL_CLI_CMD_MAINTENANCE_HYDRATE_H
#define HL_CLI_CMD_MAINTENANCE_HYDRATE_H

#include <stddef.h>

#include "cli/cli.h"

/* The hydrator's verbs of `hoglake maintenance` (cmd_maintenance.c lists
 * them): their options and runners. */
extern const struct cli_opt cli_hydrate_opts[1];
extern const struct cli_opt cli_rehydrate_opts[1];
int cli_run_hydrate(struct cli *cli, const struct cli_args *a);
int cli_run_rehydrate(struct cli *cli, const struct cli_args *a);

#endif
