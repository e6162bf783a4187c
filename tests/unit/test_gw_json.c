/* test_gw_json.c - the gateway's strict JSON reader (proxy/gw_json.h):
 * what it accepts, what it refuses (each way two parsers could read one
 * text two ways), and keys unescaped before they are compared. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "gw_json.h"

static int
parse(const char *text)
{
    struct gw_json j;

    gw_json_init(&j, text, strlen(text));
    if (gw_json_skip(&j) == -1)
        return -1;
    return gw_json_finish(&j);
}

static void
test_accepts_json(void **state)
{
    static const char *const ok[] = {
        "{}", "[]", "0", "-0.5e+10", "\"\"", "true", "null",
        "{\"a\":[1,2,{\"b\":false}],\"c\":\"\\u00e9\\ud83d\\ude00\\n\"}",
        " { \"k\" : \"v\" } ", "\"caf\xc3\xa9\"", "[1e5,2E-3,0.0]",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        assert_int_equal(parse(ok[i]), 0);
}

static void
test_refuses_what_readers_disagree_on(void **state)
{
    static const char *const bad[] = {
        "",           "{",          "{\"a\":1,}",   "[1,]",
        "01",         "1.",         ".5",           "+1",
        "{'a':1}",    "{a:1}",      "\"\\x41\"",    "\"\\ud800\"",
        "\"\\udc00\"", "\"\xff\"",  "\"\xc0\xaf\"", "\"\xed\xa0\x80\"",
        "\"a\nb\"",   "{} {}",      "[1 2]",        "NaN",
        "tru",        "{\"a\" 1}",  "\"\\u12\"",    "/*c*/{}",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (parse(bad[i]) != -1)
            fail_msg("accepted: %s", bad[i]);
    }
}

static void
test_depth_bound(void **state)
{
    char deep[2 * GW_JSON_DEPTH + 8];
    size_t n = 0;

    (void)state;
    for (int i = 0; i < GW_JSON_DEPTH; i++)
        deep[n++] = '[';
    for (int i = 0; i < GW_JSON_DEPTH; i++)
        deep[n++] = ']';
    deep[n] = '\0';
    assert_int_equal(parse(deep), 0);
    memmove(deep + 1, deep, n + 1);
    deep[0] = '[';
    strcat(deep, "]");
    assert_int_equal(parse(deep), -1);
}

static void
test_members_unescaped(void **state)
{
    const char *text = "{\"m\\u0063p_servers\":[],\"t\":\"ab\\\"c\"}";
    struct gw_json j;
    char key[16], val[4];
    bool cut;

    (void)state;
    gw_json_init(&j, text, strlen(text));
    assert_int_equal(gw_json_object_begin(&j), 0);
    assert_int_equal(gw_json_member(&j, key, sizeof(key), &cut), 1);
    assert_string_equal(key, "mcp_servers");
    assert_false(cut);
    assert_int_equal(gw_json_skip(&j), 0);
    assert_int_equal(gw_json_member(&j, key, sizeof(key), &cut), 1);
    assert_string_equal(key, "t");
    assert_int_equal(gw_json_string(&j, val, sizeof(val), &cut), 0);
    assert_true(cut); /* "ab\"c" does not fit in 4 */
    assert_int_equal(gw_json_member(&j, key, sizeof(key), &cut), 0);
    assert_int_equal(gw_json_finish(&j), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts_json),
        cmocka_unit_test(test_refuses_what_readers_disagree_on),
        cmocka_unit_test(test_depth_bound),
        cmocka_unit_test(test_members_unescaped),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
