/* Durations on the command line: "90s", "10m", "24h", "7d", "2w" or plain
 * seconds (--expires of token create, --older-than of maintenance
 * orphans and of export maintain --expire-snapshots). */
#ifndef HL_CLI_DURATION_H
#define HL_CLI_DURATION_H

#include <stdbool.h>
#include <stdint.h>

/* s as a whole number of seconds > 0 into *seconds; false on anything
 * else (empty, a sign, a fraction, an unknown unit, overflow). */
bool cli_parse_duration(const char *s, int64_t *seconds);

#endif
