/* libFuzzer target: the Variant codec (src/variant). The first byte picks
 * the direction: even, the rest is a metadata length (2 bytes) then the
 * metadata and value bytes to decode; odd, the rest is JSON text to
 * encode. What decodes to JSON must encode and decode again to the same
 * JSON (the decoder writes what the encoder reads back); what encodes must
 * decode, and verify as canonical (our encoder's bytes are the canonical
 * ones). Any bytes verify (both ways) without a crash, and only when they
 * decode. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/error.h"
#include "variant/variant.h"
#include "variant/verify.h"

static void check_json(const char *json, size_t len)
{
    struct buf m = BUF_INIT, v = BUF_INIT, out = BUF_INIT;
    struct error e;
    if (variant_from_json(json, len, &m, &v, &e) == 0 &&
        (variant_to_json((const uint8_t *)m.data, m.len, (const uint8_t *)v.data, v.len, &out,
                         &e) != 0 ||
         variant_verify((const uint8_t *)m.data, m.len, (const uint8_t *)v.data, v.len, true, &e) !=
             0))
        abort(); /* what we encode, we decode, and it is canonical */
    buf_free(&m);
    buf_free(&v);
    buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20))
        return 0;
    if (data[0] & 1) {
        check_json((const char *)data + 1, size - 1);
        return 0;
    }
    if (size < 3)
        return 0;
    size_t mlen = (size_t)data[1] | (size_t)data[2] << 8;
    if (mlen > size - 3)
        mlen = size - 3;
    struct buf out = BUF_INIT;
    struct error e;
    int decoded = variant_to_json(data + 3, mlen, data + 3 + mlen, size - 3 - mlen, &out, &e);
    if ((variant_check(data + 3, mlen, data + 3 + mlen, size - 3 - mlen, &e) == 0) !=
        (decoded == 0))
        abort(); /* checking agrees with decoding */
    for (int canonical = 0; canonical < 2; canonical++)
        if (variant_verify(data + 3, mlen, data + 3 + mlen, size - 3 - mlen, canonical, &e) == 0 &&
            decoded != 0)
            abort(); /* verify is stricter than validity, never looser */
    if (decoded == 0) {
        struct buf m = BUF_INIT, v = BUF_INIT, again = BUF_INIT;
        if (variant_from_json(out.data, out.len, &m, &v, &e) != 0 ||
            variant_to_json((const uint8_t *)m.data, m.len, (const uint8_t *)v.data, v.len, &again,
                            &e) != 0)
            abort();
        buf_free(&m);
        buf_free(&v);
        buf_free(&again);
    }
    buf_free(&out);
    return 0;
}
