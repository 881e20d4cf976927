/* `hoglake table partitions`: one table's partitions from the catalog's
 * sampled partition summary (GET .../tables/{t}/partitions), listed in
 * cmd_table.c's verb table. */
#ifndef HL_CLI_CMD_TABLE_PARTITIONS_H
#define HL_CLI_CMD_TABLE_PARTITIONS_H

#include "cli/cli.h"

extern const struct cli_opt cli_table_partitions_opts[5];
int cli_run_table_partitions(struct cli *cli, const struct cli_args *a);

#endif
