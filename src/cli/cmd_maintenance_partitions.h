/* The partition summary's CLI verb, for the `maintenance` command group:
 *   hoglake maintenance partitions CATALOG [--namespace NAMESPACE |
 *       --table NAMESPACE.TABLE] [--limit N]
 * (listed in cmd_maintenance.c's verb table). */
#ifndef HL_CLI_CMD_MAINTENANCE_PARTITIONS_H
#define HL_CLI_CMD_MAINTENANCE_PARTITIONS_H

#include "cli/cli.h"

extern const struct cli_opt cli_partitions_opts[3];
int cli_run_partitions(struct cli *cli, const struct cli_args *a);

#endif
