#include "client_harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

const char *test_need_env(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        fail_msg("%s is not set: run the suite through scripts/test.sh, which starts the S3 "
                 "servers",
                 name);
    return v;
}

hl_client *test_client_new(const char *server_url, const char *endpoint)
{
    struct hl_client_options o = {.server_url = server_url,
                                  .s3_endpoint = endpoint,
                                  .s3_region = getenv("HOGLAKE_TEST_S3_REGION"),
                                  .s3_access_key = getenv("HOGLAKE_TEST_S3_ACCESS_KEY"),
                                  .s3_secret_key = getenv("HOGLAKE_TEST_S3_SECRET_KEY")};
    hl_client *c;
    struct hl_error err;
    if (hl_client_new(&o, &c, &err) != HL_OK)
        fail_msg("hl_client_new: %s", err.message);
    return c;
}

void test_check(hl_status st, const struct hl_error *err, const char *what)
{
    if (st != HL_OK)
        fail_msg("%s: %s (%s, HTTP %d %s)", what, err->message, hl_status_name(st),
                 err->http_status, err->code);
}
