/* verify (src/variant/verify.h): our encoder's bytes for generated
 * documents (wide objects and arrays, every integer width, big numbers,
 * long strings) pass as canonical; hand-built bytes (VariantEncoding.md)
 * breaking one rule each are refused naming that rule and the path, and
 * pass with canonical checking off when only canonicity is broken;
 * mutated bytes never verify unless they are valid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/buf.h"
#include "variant/variant.h"
#include "variant/verify.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static uint64_t below(uint64_t n)
{
    return next() % n;
}

/* Numbers at and across each integer width's edges. */
static void gen_number(struct buf *out)
{
    static const char *const edges[] = {
        "127",
        "128",
        "-128",
        "-129",
        "32767",
        "32768",
        "-32769",
        "2147483647",
        "2147483648",
        "-2147483649",
        "0",
        "-1",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "99999999999999999999999999999999999999",
        "1.25",
        "-3e10",
    };
    buf_puts(out, edges[below(sizeof edges / sizeof edges[0])]);
}

static void gen_doc(struct buf *out, int depth)
{
    switch (below(depth > 3 ? 5 : 8)) {
    case 0: buf_puts(out, below(3) ? (below(2) ? "true" : "false") : "null"); break;
    case 1:
    case 2: gen_number(out); break;
    case 3: {
        /* short, exactly 63 and 64 bytes, and past 255 (2-byte offsets) */
        static const size_t lens[] = {0, 5, 63, 64, 300};
        size_t n = lens[below(5)];
        buf_putc(out, '"');
        for (size_t i = 0; i < n; i++)
            buf_putc(out, (char)('a' + i % 26));
        buf_putc(out, '"');
        break;
    }
    case 4: buf_puts(out, "\"\xc3\xa9t\xc3\xa9\""); break;
    case 5: {
        size_t n = depth < 2 && below(6) == 0 ? 256 + below(20) : below(5); /* 4-byte counts */
        buf_putc(out, '[');
        for (size_t i = 0; i < n; i++) {
            if (i)
                buf_putc(out, ',');
            gen_doc(out, depth + 1);
        }
        buf_putc(out, ']');
        break;
    }
    default: {
        /* up to 300 distinct keys: 2-byte ids and 4-byte counts */
        size_t n = depth == 0 && below(8) == 0 ? 250 + below(60) : below(6);
        size_t base = below(1000);
        buf_putc(out, '{');
        for (size_t i = 0; i < n; i++)
            buf_printf(out, "%s\"k%zu\":", i ? "," : "", base + i * 7), gen_doc(out, depth + 1);
        buf_putc(out, '}');
    }
    }
}

static void encoder_output_is_canonical(void **state)
{
    (void)state;
    for (int i = 0; i < 2000; i++) {
        struct buf text = BUF_INIT, m = BUF_INIT, v = BUF_INIT;
        gen_doc(&text, 0);
        struct error e;
        if (variant_from_json(text.data, text.len, &m, &v, &e) != 0)
            fail_msg("encoding: %s", e.msg);
        if (variant_verify((const uint8_t *)m.data, m.len, (const uint8_t *)v.data, v.len, true,
                           &e) != 0)
            fail_msg("document %d: %s\n%.200s", i, e.msg, text.data);
        buf_free(&text);
        buf_free(&m);
        buf_free(&v);
    }
}

/* ---- hand-built bytes ---- */

static int verify_bytes(const char *m, size_t mlen, const char *v, size_t vlen, bool canonical,
                        struct error *e)
{
    return variant_verify((const uint8_t *)m, mlen, (const uint8_t *)v, vlen, canonical, e);
}

#define BYTES(s) s, sizeof(s) - 1

/* Refused naming rule (and where, when given); with canonical off,
 * passing when canonicity is all that is broken (writer: refused still). */
static void expect_rule(const char *m, size_t mlen, const char *v, size_t vlen, const char *rule,
                        const char *where, bool writer)
{
    struct error e = {0};
    assert_int_equal(variant_check((const uint8_t *)m, mlen, (const uint8_t *)v, vlen, &e), 0);
    if (verify_bytes(m, mlen, v, vlen, true, &e) == 0)
        fail_msg("verified: want a refusal by %s", rule);
    assert_int_equal(e.code, ERR_INVALID);
    assert_string_equal(e.reason, "variant_encoding");
    if (!strstr(e.msg, rule) || (where && !strstr(e.msg, where)))
        fail_msg("got \"%s\", want %s at %s", e.msg, rule, where ? where : "-");
    int loose = verify_bytes(m, mlen, v, vlen, false, &e);
    if (writer && (loose == 0 || !strstr(e.msg, rule)))
        fail_msg("a writer rule must hold with canonical checking off: %s", rule);
    if (!writer && loose != 0)
        fail_msg("only canonicity is broken, yet refused: %s", e.msg);
}

/* Metadata: ["a", "b"] sorted; ["b", "a"] flagged sorted; ["a"] sorted;
 * ["a"] unflagged; none. */
#define M_AB                                                                                       \
    "\x11\x02\x00\x01\x02"                                                                         \
    "ab"
#define M_BA                                                                                       \
    "\x11\x02\x00\x01\x02"                                                                         \
    "ba"
#define M_A                                                                                        \
    "\x11\x01\x00\x01"                                                                             \
    "a"
#define M_A_UNSORTED                                                                               \
    "\x01\x01\x00\x01"                                                                             \
    "a"
#define M_NONE "\x01\x00\x00"

static void writer_rules(void **state)
{
    (void)state;
    /* {"a":2,"b":1} over a dictionary flagged sorted that is not */
    expect_rule(BYTES(M_BA), BYTES("\x02\x02\x01\x00\x00\x02\x04\x0c\x02\x0c\x01"),
                VARIANT_RULE_SORTED_FLAG, "$", true);
    /* fields listed b, a */
    expect_rule(BYTES(M_AB), BYTES("\x02\x02\x01\x00\x00\x02\x04\x0c\x01\x0c\x02"),
                VARIANT_RULE_FIELD_ORDER, "$", true);
    /* ... in a nested object: [{"b":1,"a":2}] */
    expect_rule(BYTES(M_AB), BYTES("\x03\x01\x00\x0b\x02\x02\x01\x00\x00\x02\x04\x0c\x01\x0c\x02"),
                VARIANT_RULE_FIELD_ORDER, "$[0]", true);
}

static void canonical_rules(void **state)
{
    (void)state;
    /* a key the value does not use */
    expect_rule(BYTES(M_AB), BYTES("\x0c\x05"), VARIANT_RULE_DICTIONARY, "$", false);
    /* a dictionary not flagged sorted */
    expect_rule(BYTES(M_A_UNSORTED), BYTES("\x02\x01\x00\x00\x02\x0c\x01"), VARIANT_RULE_DICTIONARY,
                "$", false);
    /* 2-byte dictionary offsets */
    expect_rule(BYTES("\x51\x01\x00\x00\x00\x01\x00"
                      "a"),
                BYTES("\x02\x01\x00\x00\x02\x0c\x01"), VARIANT_RULE_DICTIONARY, "$", false);
    /* the metadata's unused bit */
    expect_rule(BYTES("\x31\x01\x00\x01"
                      "a"),
                BYTES("\x02\x01\x00\x00\x02\x0c\x01"), VARIANT_RULE_DICTIONARY, "$", false);
    /* int16 5, int32 -1, int64 70000 */
    expect_rule(BYTES(M_NONE), BYTES("\x10\x05\x00"), VARIANT_RULE_INT, "$", false);
    expect_rule(BYTES(M_NONE), BYTES("\x14\xff\xff\xff\xff"), VARIANT_RULE_INT, "$", false);
    expect_rule(BYTES(M_NONE), BYTES("\x18\x70\x11\x01\x00\x00\x00\x00\x00"), VARIANT_RULE_INT, "$",
                false);
    /* decimal8 12.34, decimal16 1 */
    expect_rule(BYTES(M_NONE), BYTES("\x24\x02\xd2\x04\x00\x00\x00\x00\x00\x00"),
                VARIANT_RULE_DECIMAL, "$", false);
    expect_rule(BYTES(M_NONE),
                BYTES("\x28\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"),
                VARIANT_RULE_DECIMAL, "$", false);
    /* "hi" as a long string */
    expect_rule(BYTES(M_NONE), BYTES("\x40\x02\x00\x00\x00hi"), VARIANT_RULE_STRING, "$", false);
    /* {"a":1,"b":2} with b's value laid out first */
    expect_rule(BYTES(M_AB), BYTES("\x02\x02\x00\x01\x02\x00\x04\x0c\x02\x0c\x01"),
                VARIANT_RULE_LAYOUT, "$", false);
    /* [1] with 2-byte offsets; with a 4-byte count */
    expect_rule(BYTES(M_NONE), BYTES("\x07\x01\x00\x00\x02\x00\x0c\x01"), VARIANT_RULE_LAYOUT, "$",
                false);
    expect_rule(BYTES(M_NONE), BYTES("\x13\x01\x00\x00\x00\x00\x02\x0c\x01"), VARIANT_RULE_LAYOUT,
                "$", false);
    /* {"a":1} with 2-byte field ids */
    expect_rule(BYTES(M_A), BYTES("\x12\x01\x00\x00\x00\x02\x0c\x01"), VARIANT_RULE_LAYOUT, "$",
                false);
    /* [true] with an unused header bit */
    expect_rule(BYTES(M_NONE), BYTES("\x23\x01\x00\x01\x04"), VARIANT_RULE_LAYOUT, "$", false);
    /* the path: [{"a": int16 5}] */
    expect_rule(BYTES(M_A), BYTES("\x03\x01\x00\x08\x02\x01\x00\x00\x03\x10\x05\x00"),
                VARIANT_RULE_INT, "$[0].a", false);
}

/* A part (a shredded column's value cell) is not held to the dictionary's
 * rules, only to its own bytes'. */
static void parts(void **state)
{
    (void)state;
    struct error e;
    assert_int_equal(variant_verify_part((const uint8_t *)M_AB, sizeof M_AB - 1,
                                         (const uint8_t *)"\x0c\x05", 2, true, "$.x", &e),
                     0);
    assert_int_equal(variant_verify_part((const uint8_t *)M_NONE, 3,
                                         (const uint8_t *)"\x10\x05\x00", 3, true, "$.x", &e),
                     -1);
    assert_non_null(strstr(e.msg, "$.x: canonical_int"));
}

/* Mutations of valid bytes: verify never crashes, and never passes what
 * variant_check refuses. */
static void mutations(void **state)
{
    (void)state;
    for (int i = 0; i < 3000; i++) {
        struct buf text = BUF_INIT, m = BUF_INIT, v = BUF_INIT;
        gen_doc(&text, 2);
        struct error e;
        assert_int_equal(variant_from_json(text.data, text.len, &m, &v, &e), 0);
        uint8_t *p = (uint8_t *)(below(3) ? v.data : m.data);
        size_t n = p == (uint8_t *)v.data ? v.len : m.len;
        p[below(n)] ^= (uint8_t)(1u << below(8));
        size_t vlen = below(4) ? v.len : below(v.len + 1);
        for (int canonical = 0; canonical < 2; canonical++)
            if (verify_bytes(m.data, m.len, v.data, vlen, canonical, &e) == 0)
                assert_int_equal(verify_bytes(m.data, m.len, v.data, vlen, false, &e), 0),
                    assert_int_equal(variant_check((const uint8_t *)m.data, m.len,
                                                   (const uint8_t *)v.data, vlen, &e),
                                     0);
        buf_free(&text);
        buf_free(&m);
        buf_free(&v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encoder_output_is_canonical),
        cmocka_unit_test(writer_rules),
        cmocka_unit_test(canonical_rules),
        cmocka_unit_test(parts),
        cmocka_unit_test(mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
