#include "util/random.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/random.h>

static int fill(void *buf, size_t n, unsigned flags)
{
    uint8_t *b = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t k = getrandom(b + got, n - got, flags);
        if (k < 0 && errno != EINTR)
            return -1;
        if (k > 0)
            got += (size_t)k;
    }
    return 0;
}

int random_bytes(void *buf, size_t n)
{
    return fill(buf, n, 0);
}

int random_bytes_nonblocking(void *buf, size_t n)
{
    return fill(buf, n, GRND_NONBLOCK);
}

int random_uuid4(char out[37])
{
    uint8_t b[16];
    if (random_bytes(b, sizeof b) != 0)
        return -1;
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* variant 10 */
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
    return 0;
}
