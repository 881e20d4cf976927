/* The compaction verb of the `maintenance` command group:
 *   hoglake maintenance compact CATALOG [--batch N]
 * (listed in cmd_maintenance.c's verb table). */
#ifndef HL_CLI_CMD_MAINTENANCE_COMPACT_H
#define HL_CLI_CMD_MAINTENANCE_COMPACT_H

#include "cli/cli.h"

extern const struct cli_opt cli_compact_opts[1];
int cli_run_compact(struct cli *cli, const struct cli_args *a);

#endif
