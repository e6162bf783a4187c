/* test_px_allow.c - allowlist parsing and matching rules, table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "px_allow.h"

struct match_case {
    const char *target;
    bool allowed;
};

static const char *const list =
    "vendor.test:443,API.Example.com.:8443,127.0.0.1:9000,[2001:db8::1]:443";

static const struct match_case cases[] = {
    { "vendor.test:443", true },
    { "VENDOR.test:443", true },   /* case-insensitive */
    { "vendor.test.:443", true },  /* one trailing dot */
    { "vendor.test:4430", false }, /* port exact */
    { "vendor.test:44", false },
    { "vendor.test:80", false },
    { "evil.vendor.test:443", false }, /* no suffix match */
    { "vendor.test.evil:443", false },
    { "api.example.com:8443", true }, /* entry had case and a dot */
    { "api.example.com:443", false },
    { "127.0.0.1:9000", true }, /* the literal itself */
    { "127.0.0.1:443", false },
    { "[::ffff:127.0.0.1]:9000", false }, /* other spelling, other literal */
    { "[2001:DB8:0::1]:443", true },      /* same v6 literal, other spelling */
    { "[2001:db8::2]:443", false },
    { "localhost:9000", false },
};

static void
test_px_allow_match_table(void **state)
{
    struct px_allow a;
    struct err e = { 0 };

    (void)state;
    px_allow_init(&a);
    assert_int_equal(px_allow_add(&a, list, &e), 0);
    assert_int_equal(a.len, 4);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct hostport t;

        assert_int_equal(hostport_parse(cases[i].target,
                                            strlen(cases[i].target), &t, NULL),
                         0);
        if (px_allow_match(&a, &t) != cases[i].allowed)
            fail_msg("%s: expected %s", cases[i].target,
                     cases[i].allowed ? "allowed" : "refused");
    }
    px_allow_cleanup(&a);
}

static void
test_px_allow_name_entry_does_not_admit_its_address(void **state)
{
    struct px_allow a;
    struct hostport t;

    (void)state;
    px_allow_init(&a);
    assert_int_equal(px_allow_add(&a, "localhost:9000", NULL), 0);
    assert_int_equal(hostport_parse("127.0.0.1:9000", 14, &t, NULL), 0);
    assert_false(px_allow_match(&a, &t));
    assert_int_equal(hostport_parse("[::1]:9000", 10, &t, NULL), 0);
    assert_false(px_allow_match(&a, &t));
    assert_int_equal(hostport_parse("localhost:9000", 14, &t, NULL), 0);
    assert_true(px_allow_match(&a, &t)); /* positive control */
    px_allow_cleanup(&a);
}

static void
test_px_allow_add_reports_bad_entry_and_keeps_earlier(void **state)
{
    struct px_allow a;
    struct err e = { 0 };

    (void)state;
    px_allow_init(&a);
    assert_int_equal(px_allow_add(&a, "a.test:1,b.test,c.test:3", &e), -1);
    assert_int_equal(e.code, ERR_SYNTAX);
    assert_non_null(strstr(e.msg, "\"b.test\""));
    assert_int_equal(a.len, 1);
    assert_int_equal(px_allow_add(&a, "", &e), -1);
    assert_int_equal(px_allow_add(&a, "a.test:1,", &e), -1);
    assert_int_equal(px_allow_add(&a, "http://a.test:1", &e), -1);
    px_allow_cleanup(&a);
}

static void
test_px_allow_add_merges_duplicates_and_repeats(void **state)
{
    struct px_allow a;

    (void)state;
    px_allow_init(&a);
    assert_int_equal(px_allow_add(&a, "a.test:1,A.TEST.:1", NULL), 0);
    assert_int_equal(px_allow_add(&a, "a.test:2", NULL), 0);
    assert_int_equal(a.len, 2);
    px_allow_cleanup(&a);
    px_allow_cleanup(&a); /* cleanup twice is harmless */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_px_allow_match_table),
        cmocka_unit_test(test_px_allow_name_entry_does_not_admit_its_address),
        cmocka_unit_test(test_px_allow_add_reports_bad_entry_and_keeps_earlier),
        cmocka_unit_test(test_px_allow_add_merges_duplicates_and_repeats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
