/* The hydrator's CLI verbs, for the `maintenance` command group:
 *   hoglake maintenance hydrate CATALOG [--batch N]
 *   hoglake maintenance rehydrate CATALOG [--table NAMESPACE.TABLE]
 * Exposed both as a verb array (to merge into the group's table) and as a
 * command entry running just these verbs. */
#ifndef HL_CLI_CMD_MAINTENANCE_HYDRATE_H
#define HL_CLI_CMD_MAINTENANCE_HYDRATE_H

#include <stddef.h>

#include "cli/cli.h"

extern const struct cli_verb cli_hydrate_verbs[];
extern const size_t cli_hydrate_nverbs;

/* `hoglake maintenance ...` over the verbs above (argv after "maintenance"). */
int cmd_maintenance_hydrate(struct cli *cli, int argc, char **argv);

#endif
