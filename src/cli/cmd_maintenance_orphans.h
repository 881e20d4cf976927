/* The orphans verb of the `maintenance` command group:
 *   hoglake maintenance orphans CATALOG [--older-than DURATION] [--dry-run] [--limit N]
 * (listed in cmd_maintenance.c's verb table). */
#ifndef HL_CLI_CMD_MAINTENANCE_ORPHANS_H
#define HL_CLI_CMD_MAINTENANCE_ORPHANS_H

#include "cli/cli.h"

extern const struct cli_opt cli_orphans_opts[3];
int cli_run_orphans(struct cli *cli, const struct cli_args *a);

#endif
