/* A metadata's dictionary, read in place: see variant.h. */
#include "variant/variant.h"
#include "variant/variant_format.h"

static int truncated(struct error *err, const char *what)
{
    return error_fail_reason(err, ERR_INVALID, "variant_encoding", "variant: %s", what);
}

int variant_dict_open(const uint8_t *m, size_t len, struct variant_dict *d, struct error *err)
{
    if (len < 1 || (m[0] & 0x0f) != VARIANT_VERSION)
        return truncated(err, "metadata of an unknown version");
    d->off_size = ((m[0] >> 6) & 3) + 1;
    size_t head = 1 + (size_t)d->off_size;
    if (len < head)
        return truncated(err, "truncated metadata");
    uint64_t n = variant_get_le(m + 1, d->off_size);
    if (n >= (len - head) / (size_t)d->off_size) /* n + 1 offsets */
        return truncated(err, "metadata claims more keys than it has bytes");
    d->n = n;
    d->offsets = m + head;
    d->strings = d->offsets + (n + 1) * (size_t)d->off_size;
    d->strings_len = len - (size_t)(d->strings - m);
    if (variant_get_le(d->offsets + n * (size_t)d->off_size, d->off_size) > d->strings_len)
        return truncated(err, "metadata strings past its end");
    return 0;
}

uint64_t variant_dict_offset(const struct variant_dict *d, uint64_t k)
{
    return variant_get_le(d->offsets + k * (size_t)d->off_size, d->off_size);
}

bool variant_dict_key(const struct variant_dict *d, uint64_t id, const char **s, size_t *n)
{
    if (id >= d->n)
        return false;
    uint64_t b = variant_dict_offset(d, id), e = variant_dict_offset(d, id + 1);
    if (b > e || e > d->strings_len)
        return false;
    *s = (const char *)d->strings + b;
    *n = (size_t)(e - b);
    return true;
}
