/* test_http_rule.c - the syntax of a gateway rule "METHOD /prefix" at its
 * bounds (the method and prefix lengths, the characters), shared by
 * agent-gateway --allow and the config's gateway.allow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "http_rule.h"

static void
test_http_rule_accepts_rules_and_gives_the_method_length(void **state)
{
    size_t ml = 0;

    (void)state;
    assert_null(http_rule_check("POST /v1/messages", &ml));
    assert_int_equal(ml, 4);
    assert_null(http_rule_check("GET /", &ml));
    assert_int_equal(ml, 3);
    assert_null(http_rule_check("PATCH /v1/a-b_c.d~e/%41/", &ml));
    assert_int_equal(ml, 5);
}

static void
test_http_rule_refuses_each_broken_part(void **state)
{
    static const struct {
        const char *rule, *why;
    } bad[] = {
        { "POST", "want \"METHOD /path\"" },
        { " /v1", "bad method" },
        { "post /v1", "method must be upper case" },
        { "PO-ST /v1", "method must be upper case" },
        { "POST ", "the path must be a normal absolute path without a query" },
        { "POST v1",
          "the path must be a normal absolute path without a query" },
        { "POST /v1?a=1",
          "the path must be a normal absolute path without a query" },
        { "POST /v1#x",
          "the path must be a normal absolute path without a query" },
        { "POST /v1 /v2",
          "the path must be a normal absolute path without a query" },
        { "POST /v1/../x",
          "the path must be a normal absolute path without a query" },
        { "POST /v1\t",
          "the path must be a normal absolute path without a query" },
        { "POST /v1/\x7f",
          "the path must be a normal absolute path without a query" },
        { "POST /v1/\xc3\xa9",
          "the path must be a normal absolute path without a query" },
    };
    size_t ml = 99;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *why = http_rule_check(bad[i].rule, &ml);

        if (why == NULL || strcmp(why, bad[i].why) != 0)
            fail_msg("\"%s\": got %s", bad[i].rule, why ? why : "(accepted)");
    }
    assert_int_equal(ml, 99); /* untouched on a refusal */
}

static void
test_http_rule_lengths_at_the_bounds(void **state)
{
    char rule[HTTP_RULE_METHOD_MAX + HTTP_RULE_PREFIX_MAX + 8];
    size_t ml;

    (void)state;
    /* A method of 16 letters, then 17. */
    snprintf(rule, sizeof(rule), "%.*s /", HTTP_RULE_METHOD_MAX,
             "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    assert_null(http_rule_check(rule, &ml));
    assert_int_equal(ml, HTTP_RULE_METHOD_MAX);
    snprintf(rule, sizeof(rule), "%.*s /", HTTP_RULE_METHOD_MAX + 1,
             "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    assert_string_equal(http_rule_check(rule, &ml), "bad method");
    /* A prefix of 256 characters, then 257. */
    memcpy(rule, "GET /", 5);
    memset(rule + 5, 'a', HTTP_RULE_PREFIX_MAX - 1);
    rule[4 + HTTP_RULE_PREFIX_MAX] = '\0';
    assert_null(http_rule_check(rule, &ml));
    rule[4 + HTTP_RULE_PREFIX_MAX] = 'a';
    rule[5 + HTTP_RULE_PREFIX_MAX] = '\0';
    assert_non_null(http_rule_check(rule, &ml));
}

/* The operator's organization and project IDs: OpenAI's forms pass; a
 * byte that could end, fold or split a header line does not. */
static void
test_http_header_id(void **state)
{
    char id[HTTP_HEADER_ID_MAX + 2];

    (void)state;
    assert_null(http_header_id_check("org-AbC123xyz"));
    assert_null(http_header_id_check("proj_0123456789abcdef"));
    assert_string_equal(http_header_id_check(""), "1 to 128 characters");
    assert_non_null(http_header_id_check("org x"));
    assert_non_null(http_header_id_check("org\r\nX-Api-Key: k"));
    assert_non_null(http_header_id_check("org,proj"));
    assert_non_null(http_header_id_check("org\xc3\xa9"));
    memset(id, 'a', HTTP_HEADER_ID_MAX);
    id[HTTP_HEADER_ID_MAX] = '\0';
    assert_null(http_header_id_check(id));
    id[HTTP_HEADER_ID_MAX] = 'a';
    id[HTTP_HEADER_ID_MAX + 1] = '\0';
    assert_non_null(http_header_id_check(id));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_http_rule_accepts_rules_and_gives_the_method_length),
        cmocka_unit_test(test_http_rule_refuses_each_broken_part),
        cmocka_unit_test(test_http_rule_lengths_at_the_bounds),
        cmocka_unit_test(test_http_header_id),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
