/* test_utf8.c - strict UTF-8 (common/utf8.h): what RFC 3629 allows
 * passes; overlongs, surrogates, code points past U+10FFFF, stray and
 * missing continuation bytes are refused at their first byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "utf8.h"

static size_t
bad(const char *s)
{
    return utf8_bad_offset(s, strlen(s));
}

static void
test_well_formed(void **state)
{
    (void)state;
    assert_int_equal(bad(""), 0);
    assert_int_equal(bad("plain"), 5);
    assert_int_equal(bad("caf\xc3\xa9"), 5);             /* U+00E9 */
    assert_int_equal(bad("\xe0\xa0\x80"), 3);            /* U+0800 */
    assert_int_equal(bad("\xed\x9f\xbf"), 3);            /* U+D7FF */
    assert_int_equal(bad("\xee\x80\x80"), 3);            /* U+E000 */
    assert_int_equal(bad("\xf0\x90\x80\x80"), 4);        /* U+10000 */
    assert_int_equal(bad("\xf4\x8f\xbf\xbf"), 4);        /* U+10FFFF */
}

static void
test_ill_formed(void **state)
{
    (void)state;
    assert_int_equal(bad("ab\xc0\x80"), 2);         /* overlong NUL */
    assert_int_equal(bad("ab\xc1\xbf"), 2);         /* overlong */
    assert_int_equal(bad("\xe0\x9f\xbf"), 0);       /* overlong 3-byte */
    assert_int_equal(bad("\xf0\x8f\xbf\xbf"), 0);   /* overlong 4-byte */
    assert_int_equal(bad("x\xed\xa0\x80"), 1);      /* surrogate U+D800 */
    assert_int_equal(bad("\xf4\x90\x80\x80"), 0);   /* U+110000 */
    assert_int_equal(bad("\xf5\x80\x80\x80"), 0);   /* no lead byte */
    assert_int_equal(bad("ok\x80"), 2);             /* stray continuation */
    assert_int_equal(bad("\xc3("), 0);              /* missing one */
    assert_int_equal(bad("abc\xe2\x82"), 3);        /* cut by the end */
    assert_int_equal(utf8_bad_offset("a\0b", 3), 3); /* NUL is UTF-8 */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_well_formed),
        cmocka_unit_test(test_ill_formed),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
