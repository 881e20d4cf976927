/* Keyed appends (see append_key.h). */
#include "cli/append_key.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/random.h"
#include "util/strutil.h"

int append_key_parse(const struct cli_args *a, struct append_key *k)
{
    memset(k, 0, sizeof *k);
    const char *given = cli_opt_value(a, "idempotency-key");
    bool prepared = cli_opt_given(a, "prepared");
    if (given && prepared)
        return cli_usage_error("give --idempotency-key or --prepared, not both (--prepared picks "
                               "the key)");
    if (given) {
        if (!str_is_uuid(given))
            return cli_usage_error("--idempotency-key takes a UUID "
                                   "(123e4567-e89b-12d3-a456-426614174000), got '%s'",
                                   given);
        /* Keys compare case-insensitively; their directory is lower case. */
        for (size_t i = 0; given[i]; i++)
            k->key[i] =
                (char)(given[i] >= 'A' && given[i] <= 'F' ? given[i] - 'A' + 'a' : given[i]);
    } else if (prepared) {
        if (random_uuid4(k->key) != 0) {
            fprintf(stderr, "hoglake: cannot pick an idempotency key: %m\n");
            return EXIT_FAILURE_OTHER;
        }
        k->picked = true;
    }
    return EXIT_OK;
}

/* The receipt of the key in the catalog of the table `qualified` names: 1
 * with *receipt set, 0 when the key has not committed, or -(exit code)
 * after reporting (a name of the wrong shape is a usage error, as it is
 * without a key). */
static int find_receipt(struct cli *cli, const char *qualified, const char *key, json_t **receipt)
{
    char parts[3][200], path[800];
    if (!cli_split_name(qualified, 3, parts))
        return -cli_usage_error("expected CATALOG.NAMESPACE.TABLE, got '%s'", qualified);
    int rc = cli_object_path(path, sizeof path, parts[0], 1, NULL, "/commit/receipts/");
    if (rc != EXIT_OK)
        return -rc;
    strncat(path, key, sizeof path - strlen(path) - 1);
    char *text = NULL;
    struct hl_error err;
    hl_status st = hl_client_request(cli->client, "GET", path, NULL, &text, &err);
    if (st == HL_ERR_NOT_FOUND && strcmp(err.code, "no_receipt") == 0)
        return 0;
    if (st != HL_OK)
        return -cli_report(st, &err);
    *receipt = json_loads(text, 0, NULL);
    free(text);
    if (!json_is_integer(json_object_get(*receipt, "snapshot_id"))) {
        json_decref(*receipt);
        fprintf(stderr, "hoglake: the server's commit receipt has no snapshot_id\n");
        return -EXIT_FAILURE_OTHER;
    }
    return 1;
}

static void print_committed(const struct cli *cli, const char *key, const json_t *receipt)
{
    int64_t snapshot = cli_json_i64(receipt, "snapshot_id");
    if (cli->json) {
        json_t *doc =
            json_pack("{s:I, s:I, s:s, s:b, s:[]}", "snapshot_id", (json_int_t)snapshot,
                      "schema_version", (json_int_t)cli_json_i64(receipt, "schema_version"),
                      "idempotency_key", key, "already_committed", 1, "files");
        cli_print_json(doc);
        json_decref(doc);
        return;
    }
    printf("already committed: snapshot %lld (idempotency key %s); nothing uploaded\n",
           (long long)snapshot, key);
}

int append_key_check(struct cli *cli, const char *qualified, const struct append_key *k, bool *done)
{
    *done = false;
    if (!k->key[0])
        return EXIT_OK;
    if (k->picked) {
        fprintf(stderr,
                "idempotency key: %s; re-run with --idempotency-key %s if this run's outcome is "
                "unknown\n",
                k->key, k->key);
        return EXIT_OK;
    }
    json_t *receipt = NULL;
    int found = find_receipt(cli, qualified, k->key, &receipt);
    if (found < 0)
        return -found;
    if (found) {
        print_committed(cli, k->key, receipt);
        json_decref(receipt);
        *done = true;
    }
    return EXIT_OK;
}

int append_key_after_failure(struct cli *cli, const char *qualified, const struct append_key *k,
                             hl_status st, int rc)
{
    if (!k->key[0])
        return rc;
    if (st == HL_ERR_VALIDATION) {
        /* Another run committed the key between the check and this
         * commit: the library removed this run's objects. */
        json_t *receipt = NULL;
        if (find_receipt(cli, qualified, k->key, &receipt) != 1)
            return rc;
        fprintf(stderr, "hoglake: another run committed this idempotency key meanwhile; this "
                        "run's objects were removed\n");
        print_committed(cli, k->key, receipt);
        json_decref(receipt);
        return EXIT_OK;
    }
    if (st == HL_ERR_TIMEOUT || st == HL_ERR_IO || st == HL_ERR_UNAVAILABLE ||
        st == HL_ERR_INTERNAL || st == HL_ERR_PROTOCOL)
        fprintf(stderr,
                "hoglake: the commit's outcome is unknown (it may have committed the objects "
                "above): re-run with --idempotency-key %s; it finishes the append, or reports "
                "it committed\n",
                k->key);
    return rc;
}
