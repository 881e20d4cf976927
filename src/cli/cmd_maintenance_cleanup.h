/* The cleanup verb of the `maintenance` command group:
 *   hoglake maintenance cleanup CATALOG [--batch N]
 * (listed in cmd_maintenance.c's verb table). */
#ifndef HL_CLI_CMD_MAINTENANCE_CLEANUP_H
#define HL_CLI_CMD_MAINTENANCE_CLEANUP_H

#include "cli/cli.h"

extern const struct cli_opt cli_cleanup_opts[1];
int cli_run_cleanup(struct cli *cli, const struct cli_args *a);

#endif
