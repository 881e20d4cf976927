/* libFuzzer target: the deletion-vector decoder (src/lake/dv.h). The input
 * is a blob's vector; it is framed with its length, magic and a correct
 * CRC-32, so the fuzzer spends its time in the roaring decoding rather
 * than on checksums. A vector that decodes must encode and decode again
 * to the same positions. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lake/dv.h"
#include "util/buf.h"
#include "util/error.h"

static void be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    uint8_t *blob = malloc(size + 12);
    if (!blob)
        return 0;
    static const uint8_t magic[4] = {0xD1, 0xD3, 0x39, 0x64};
    be32(blob, (uint32_t)size + 4);
    memcpy(blob + 4, magic, 4);
    if (size)
        memcpy(blob + 8, data, size);
    be32(blob + 8 + size, (uint32_t)crc32(0L, blob + 4, (uInt)(size + 4)));
    const uint64_t rows = (uint64_t)1 << 40;
    struct lake_dv v, again;
    struct error err;
    if (lake_dv_decode(blob, size + 12, rows, &v, &err) == 0) {
        struct buf out = BUF_INIT;
        if (lake_dv_encode(&v, &out, &err) != 0 ||
            lake_dv_decode((const uint8_t *)out.data, out.len, rows, &again, &err) != 0 ||
            again.n != v.n || (v.n && memcmp(again.pos, v.pos, v.n * sizeof *v.pos) != 0))
            abort();
        lake_dv_free(&again);
        buf_free(&out);
        lake_dv_free(&v);
    }
    free(blob);
    return 0;
}
