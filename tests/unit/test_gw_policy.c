/* test_gw_policy.c - the gateway's method and path rules (segment
 * boundaries, paths that could be read as other paths) and the budget. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gw_policy.h"

static const char *
check(const struct gw_policy *p, const char *method, const char *path)
{
    return gw_policy_check(p, method, strlen(method), path, strlen(path));
}

static void
test_gw_policy_admits_by_method_and_segment_prefix(void **state)
{
    struct gw_policy p = { 0 };

    (void)state;
    assert_int_equal(gw_policy_add(&p, "POST /v1/messages", NULL), 0);
    assert_int_equal(gw_policy_add(&p, "GET /v1/models/", NULL), 0);
    assert_null(check(&p, "POST", "/v1/messages"));
    assert_null(check(&p, "POST", "/v1/messages/count_tokens"));
    assert_null(check(&p, "GET", "/v1/models/claude"));
    assert_string_equal(check(&p, "POST", "/v1/messagesX"), "path not allowed");
    assert_string_equal(check(&p, "GET", "/v1/messages"), "method not allowed");
    assert_string_equal(check(&p, "post", "/v1/messages"),
                        "method not allowed");
    assert_string_equal(check(&p, "GET", "/v1/models"), "path not allowed");
    assert_string_equal(check(&p, "POST", "/v2/messages"), "path not allowed");
}

static void
test_gw_policy_refuses_paths_read_two_ways(void **state)
{
    static const char *const bad[] = {
        "/v1/messages/../../admin", "/v1/messages/./x",
        "/v1/messages/..",          "/v1//messages",
        "/v1/messages/%2e%2e/x",    "/v1/messages%2Fx",
        "/v1/messages/%252e",       "/v1/messages\\..\\x",
        "/v1/messages/%5c",         "v1/messages",
        "/v1/messages/%2",          "/v1/messages/..;/admin",
        "/v1/messages;x",           "/v1/messages/%3B",
        "/v1/messages/%00",
    };
    struct gw_policy p = { 0 };

    (void)state;
    assert_int_equal(gw_policy_add(&p, "POST /v1/messages", NULL), 0);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_string_equal(check(&p, "POST", bad[i]),
                            "path not in normal form");
    assert_true(http_path_is_normal("/v1/messages/%41x", 17));
    assert_true(http_path_is_normal("/", 1));
    assert_true(http_path_is_normal("/a/.well-known/..x", 18));
}

static void
test_gw_policy_add_refuses_bad_rules(void **state)
{
    static const char *const bad[] = {
        "POST",          "POST v1/messages", "post /v1",
        "POST /v1/../x", "POST /v1?x=1",     " /v1",
        "POST ",
    };
    struct gw_policy p = { 0 };
    struct err e = { 0 };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(gw_policy_add(&p, bad[i], &e), -1);
        assert_int_equal(e.code, ERR_SYNTAX);
    }
    assert_int_equal(p.len, 0);
    for (int i = 0; i < GW_RULES_MAX; i++)
        assert_int_equal(gw_policy_add(&p, "GET /", NULL), 0);
    assert_int_equal(gw_policy_add(&p, "GET /", &e), -1);
    assert_int_equal(e.code, ERR_LIMIT);
}

static void
test_gw_budget_counts_requests_and_bytes(void **state)
{
    struct gw_budget b = { .max_requests = 2, .max_bytes = 100 };
    struct gw_budget unlimited = { 0 };
    int status = 0;

    (void)state;
    assert_null(gw_budget_admit(&b, 10, 0, &status));
    assert_int_equal(gw_budget_requests_left(&b), 1);
    gw_budget_add_bytes(&b, 60);
    assert_int_equal(gw_budget_bytes_left(&b), 40);
    assert_null(gw_budget_admit(&b, 10, 0, &status));
    assert_string_equal(gw_budget_admit(&b, 10, 0, &status),
                        "request budget spent");
    assert_int_equal(status, 429);
    assert_int_equal(b.requests, 2); /* a refusal is not counted */

    b = (struct gw_budget){ .max_bytes = 100 };
    assert_null(gw_budget_admit(&b, 10, 0, &status));
    gw_budget_add_bytes(&b, 100);
    assert_int_equal(gw_budget_bytes_left(&b), 0);
    assert_string_equal(gw_budget_admit(&b, 0, 0, &status),
                        "byte budget spent");
    assert_int_equal(status, 429);
    gw_budget_add_bytes(&b, UINT64_MAX); /* saturates */
    assert_int_equal(b.bytes, UINT64_MAX);

    for (int i = 0; i < 1000; i++)
        assert_null(gw_budget_admit(&unlimited, 1000, UINT64_MAX, &status));
    assert_int_equal(gw_budget_requests_left(&unlimited), -1);
    assert_int_equal(gw_budget_bytes_left(&unlimited), -1);
}

/* Tokens are counted as answers end: requests are admitted while the
 * count is under the budget (the one that reaches it may take it past),
 * then refused with 429, a refusal counting nothing. */
static void
test_gw_budget_counts_tokens(void **state)
{
    struct gw_budget b = { .max_tokens = 500 };
    struct gw_budget unlimited = { 0 };
    int status = 0;

    (void)state;
    assert_int_equal(gw_budget_tokens_left(&b), 500);
    assert_null(gw_budget_admit(&b, 10, 0, &status));
    gw_budget_add_tokens(&b, 400);
    assert_int_equal(gw_budget_tokens_left(&b), 100);
    assert_null(gw_budget_admit(&b, 10, 0, &status)); /* 400 < 500 */
    gw_budget_add_tokens(&b, 200);                    /* overshoot: 600 */
    assert_int_equal(gw_budget_tokens_left(&b), 0);
    assert_string_equal(gw_budget_admit(&b, 10, 0, &status),
                        "token budget spent");
    assert_int_equal(status, 429);
    assert_int_equal(b.requests, 2);      /* the refusal is not counted */
    gw_budget_add_tokens(&b, UINT64_MAX); /* saturates */
    assert_int_equal(b.tokens, UINT64_MAX);
    gw_budget_add_tokens(&unlimited, 1u << 30);
    assert_null(gw_budget_admit(&unlimited, 10, 0, &status));
    assert_int_equal(gw_budget_tokens_left(&unlimited), -1);
}

/* An answer whose usage is unknown spends what is left of a token budget
 * (fail closed: the agent can ask for a stream without usage) and counts
 * nothing without one. */
static void
test_gw_budget_unknown_usage_spends(void **state)
{
    struct gw_budget b = { .max_tokens = 500 };
    struct gw_budget unlimited = { 0 };
    int status = 0;

    (void)state;
    gw_budget_add_tokens(&b, 100);
    gw_budget_spend_unknown(&b);
    assert_int_equal(gw_budget_tokens_left(&b), 0);
    assert_string_equal(gw_budget_admit(&b, 10, 0, &status),
                        "token budget spent");
    gw_budget_add_tokens(&b, 700); /* 1200: what was counted is not lowered */
    gw_budget_spend_unknown(&b);
    assert_int_equal(b.tokens, 1200);
    gw_budget_spend_unknown(&unlimited);
    assert_int_equal(unlimited.tokens, 0);
    assert_null(gw_budget_admit(&unlimited, 10, 0, &status));
}

/* A declared body is held to --max-body (413) and to what is left of the
 * byte budget (429) before anything is forwarded, and a refusal counts
 * nothing: one 5 MB body does not go through a 1,000-byte budget. */
static void
test_gw_budget_admits_a_declared_body(void **state)
{
    struct gw_budget b = { .max_bytes = 1000, .max_body = 4096 };
    int status = 0;

    (void)state;
    assert_string_equal(gw_budget_admit(&b, 200, 5000000, &status),
                        "request body over --max-body");
    assert_int_equal(status, 413);
    assert_string_equal(gw_budget_admit(&b, 200, 801, &status),
                        "byte budget spent");
    assert_int_equal(status, 429);
    assert_int_equal(b.requests, 0);
    assert_int_equal(b.bytes, 0);
    assert_null(gw_budget_admit(&b, 200, 800, &status)); /* exactly all */
    assert_int_equal(b.requests, 1);
    assert_int_equal(b.bytes, 0); /* bytes count as they move */
    gw_budget_add_bytes(&b, 300);
    assert_string_equal(gw_budget_admit(&b, 200, 501, &status),
                        "byte budget spent");
    assert_null(gw_budget_admit(&b, 200, 500, &status));

    /* --max-body 0: no cap; the byte budget still holds */
    b = (struct gw_budget){ .max_bytes = 1000 };
    assert_string_equal(gw_budget_admit(&b, 100, 5000000, &status),
                        "byte budget spent");
    b = (struct gw_budget){ 0 };
    assert_null(gw_budget_admit(&b, 100, 5000000, &status));
    b = (struct gw_budget){ .max_body = 10 };
    assert_null(gw_budget_admit(&b, 100, 10, &status));
    assert_string_equal(gw_budget_admit(&b, 100, 11, &status),
                        "request body over --max-body");
    assert_null(gw_budget_admit(&b, UINT64_MAX, 0, &status));
}

/* A body without a declared length (chunked) is held to both limits as
 * it is relayed: the step that would pass one is refused whole. */
static void
test_gw_budget_holds_a_growing_body(void **state)
{
    struct gw_budget b = { .max_bytes = 1000, .max_body = 600 };
    int status = 0;

    (void)state;
    assert_null(gw_budget_admit(&b, 100, 0, &status));
    gw_budget_add_bytes(&b, 100);
    assert_null(gw_budget_body(&b, 500, 500, &status));
    gw_budget_add_bytes(&b, 500);
    assert_null(gw_budget_body(&b, 600, 100, &status)); /* exactly the cap */
    gw_budget_add_bytes(&b, 100);
    assert_string_equal(gw_budget_body(&b, 601, 1, &status),
                        "request body over --max-body");
    assert_int_equal(status, 413);

    /* the byte budget runs out first */
    b = (struct gw_budget){ .max_bytes = 1000, .max_body = 1 << 20 };
    gw_budget_add_bytes(&b, 900);
    assert_null(gw_budget_body(&b, 4000, 100, &status));
    gw_budget_add_bytes(&b, 100);
    assert_string_equal(gw_budget_body(&b, 4001, 1, &status),
                        "byte budget spent");
    assert_int_equal(status, 429);
    assert_null(gw_budget_body(&b, 4001, 0, &status)); /* nothing moves */
    gw_budget_add_bytes(&b, 50);                       /* a response overshot */
    assert_string_equal(gw_budget_body(&b, 4001, 1, &status),
                        "byte budget spent");

    b = (struct gw_budget){ 0 };
    assert_null(gw_budget_body(&b, UINT64_MAX, UINT64_MAX, &status));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gw_policy_admits_by_method_and_segment_prefix),
        cmocka_unit_test(test_gw_policy_refuses_paths_read_two_ways),
        cmocka_unit_test(test_gw_policy_add_refuses_bad_rules),
        cmocka_unit_test(test_gw_budget_counts_requests_and_bytes),
        cmocka_unit_test(test_gw_budget_counts_tokens),
        cmocka_unit_test(test_gw_budget_unknown_usage_spends),
        cmocka_unit_test(test_gw_budget_admits_a_declared_body),
        cmocka_unit_test(test_gw_budget_holds_a_growing_body),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
