#include "util/random.h"

#include "util/strutil.h"

#include <errno.h>
#include <stdint.h>
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
    str_format_uuid(b, out);
    return 0;
}
