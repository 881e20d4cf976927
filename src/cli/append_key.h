/* hoglake append --idempotency-key UUID and --prepared: an append whose
 * commit carries a key, so that a run whose outcome is unknown (a timeout,
 * a lost connection) can be re-run without appending twice.
 *
 * A re-run re-encodes its input into new objects, which the server would
 * refuse as another request under the same key; so before anything is
 * uploaded the key's receipt is looked up, and a key that committed is
 * answered from it: the batch is in, nothing is uploaded. */
#ifndef HL_CLI_APPEND_KEY_H
#define HL_CLI_APPEND_KEY_H

#include <stdbool.h>

#include "cli/cli.h"

struct append_key {
    char key[37]; /* "" when the append has none */
    bool picked;  /* --prepared: this run chose it */
};

/* Reads --idempotency-key and --prepared (at most one): EXIT_OK, or
 * EXIT_USAGE after saying why (a key that is not a UUID). --prepared
 * picks a fresh key. */
int append_key_parse(const struct cli_args *a, struct append_key *k);

/* Before the upload, for the table `qualified` (CATALOG.NS.TABLE): when
 * the key already committed, prints that commit (JSON with --json) and
 * sets *done; for a picked key, prints it and how to re-run on stderr.
 * EXIT_OK, or the exit code of a failure already reported. */
int append_key_check(struct cli *cli, const char *qualified, const struct append_key *k,
                     bool *done);

/* After a keyed append failed with st (rc: its exit code, already
 * reported): a refusal because the key committed meanwhile (another run
 * of the same batch) is the batch being in, EXIT_OK after saying so; an
 * unknown outcome says how to finish it. Returns the exit code. */
int append_key_after_failure(struct cli *cli, const char *qualified, const struct append_key *k,
                             hl_status st, int rc);

#endif
