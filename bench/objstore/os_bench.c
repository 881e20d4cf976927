/* Object store throughput: one put and one whole get of N MiB of random
 * bytes at a URI, timed, then the object deleted.
 *
 *   os_bench URI [MiB]        e.g. os_bench file:///tmp/b/x 64
 *                                  os_bench s3://hoglake-test/bench/x 64
 *
 * S3 settings come from the environment as objstore_open reads them
 * (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION). */
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "objstore/objstore.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s URI [MiB]\n", argv[0]);
        return 2;
    }
    long mib = argc == 3 ? strtol(argv[2], NULL, 10) : 64;
    if (mib <= 0 || mib > 4096) {
        fprintf(stderr, "MiB must be 1..4096\n");
        return 2;
    }
    size_t n = (size_t)mib << 20;
    unsigned char *data = malloc(n);
    if (!data || RAND_bytes(data, (int)n) != 1) {
        fprintf(stderr, "cannot make %zu random bytes\n", n);
        return 1;
    }
    struct objstore *s = NULL;
    struct hl_error err;
    struct buf b = BUF_INIT;
    int rc = 1;
    if (objstore_open(NULL, &s, &err) != 0)
        goto fail;
    double t0 = now_s();
    if (objstore_put(s, argv[1], data, n, 0, &err) != 0)
        goto fail;
    double t1 = now_s();
    if (objstore_get(s, argv[1], 0, UINT64_MAX, &b, &err) != 0)
        goto fail;
    double t2 = now_s();
    if (b.len != n || memcmp(b.data, data, n) != 0) {
        fprintf(stderr, "read back differs\n");
        goto out;
    }
    printf("%s: %ld MiB put %.2f s (%.0f MiB/s), get %.2f s (%.0f MiB/s)\n", argv[1], mib, t1 - t0,
           (double)mib / (t1 - t0), t2 - t1, (double)mib / (t2 - t1));
    const char *victim[] = {argv[1]};
    if (objstore_delete(s, victim, 1, NULL, &err) != 0)
        goto fail;
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "%s: %s\n", err.code, err.message);
out:
    buf_free(&b);
    objstore_free(s);
    free(data);
    return rc;
}
