/* test_gw_head.c - the head the vendor receives: the agent's credential
 * and hop-by-hop fields gone, the gateway's credential added once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gw_head.h"

static void
build(const char *in, const struct gw_cred *cred, struct buf *out)
{
    struct gw_req_head h;
    int status;

    assert_int_equal(gw_req_parse(in, strlen(in), &h, &status, NULL), 0);
    buf_init(out, 1 << 16);
    assert_int_equal(
        gw_head_build(&h, "llm.vendor.test", cred, false, out, NULL), 0);
}

static void
test_gw_head_replaces_the_agents_credentials(void **state)
{
    static const char in[] = "POST /v1/messages?beta=true HTTP/1.1\r\n"
                             "Host: 172.30.0.2:8080\r\n"
                             "X-Api-Key: agent-placeholder\r\n"
                             "authorization: Bearer other-account\r\n"
                             "Proxy-Authorization: Basic eA==\r\n"
                             "Cookie: s=1\r\n"
                             "api-key: azure\r\n"
                             "x-goog-api-key: g\r\n"
                             "anthropic-version: 2023-06-01\r\n"
                             "Connection: keep-alive, X-Secret-Hop\r\n"
                             "X-Secret-Hop: 1\r\n"
                             "Keep-Alive: timeout=5\r\n"
                             "Expect: 100-continue\r\n"
                             "Upgrade: h2c\r\n"
                             "X-HTTP-Method-Override: DELETE\r\n"
                             "TE: trailers\r\n"
                             "Content-Length: 2\r\n\r\n";
    static const char want[] = "POST /v1/messages?beta=true HTTP/1.1\r\n"
                               "Host: llm.vendor.test\r\n"
                               "anthropic-version: 2023-06-01\r\n"
                               "Content-Length: 2\r\n"
                               "x-api-key: sk-real\r\n\r\n";
    struct gw_cred cred = { .kind = GW_AUTH_API_KEY,
                            .key = "sk-real",
                            .key_len = 7 };
    struct buf out;

    (void)state;
    build(in, &cred, &out);
    assert_string_equal(out.data, want);
    buf_cleanup(&out);
}

/* A model endpoint's answer is read for its usage: the vendor is asked
 * for it uncompressed, whatever the agent accepts. */
static void
test_gw_head_identity_for_a_model_endpoint(void **state)
{
    static const char in[] = "POST /v1/messages HTTP/1.1\r\n"
                             "accept-encoding: gzip, br\r\n"
                             "Content-Length: 2\r\n\r\n";
    struct gw_cred cred = { .kind = GW_AUTH_NONE, .key = NULL, .key_len = 0 };
    struct gw_req_head h;
    struct buf out;
    int status;

    (void)state;
    assert_int_equal(gw_req_parse(in, strlen(in), &h, &status, NULL), 0);
    buf_init(&out, 1 << 16);
    assert_int_equal(gw_head_build(&h, "v", &cred, true, &out, NULL), 0);
    assert_string_equal(out.data, "POST /v1/messages HTTP/1.1\r\nHost: v\r\n"
                                  "Content-Length: 2\r\n"
                                  "Accept-Encoding: identity\r\n\r\n");
    buf_reset(&out);
    assert_int_equal(gw_head_build(&h, "v", &cred, false, &out, NULL), 0);
    assert_non_null(strstr(out.data, "accept-encoding: gzip, br\r\n"));
    buf_cleanup(&out);
}

static void
test_gw_head_bearer_and_none(void **state)
{
    static const char in[] = "GET /v1/responses HTTP/1.0\r\n"
                             "Authorization: Bearer placeholder\r\n\r\n";
    struct gw_cred bearer = { .kind = GW_AUTH_BEARER,
                              .key = "sk-openai",
                              .key_len = 9 };
    struct gw_cred none = { .kind = GW_AUTH_NONE, .key = NULL, .key_len = 0 };
    struct buf out;

    (void)state;
    build(in, &bearer, &out);
    assert_string_equal(out.data, "GET /v1/responses HTTP/1.1\r\n"
                                  "Host: llm.vendor.test\r\n"
                                  "Authorization: Bearer sk-openai\r\n\r\n");
    buf_cleanup(&out);
    build(in, &none, &out);
    assert_string_equal(out.data, "GET /v1/responses HTTP/1.1\r\n"
                                  "Host: llm.vendor.test\r\n\r\n");
    buf_cleanup(&out);
}

/* "Connection: content-length" must not unframe the body: the vendor
 * would read the body as a second request, past the path rules. */
static void
test_gw_head_keeps_framing_that_connection_names(void **state)
{
    static const char in[] = "POST /v1/messages HTTP/1.1\r\n"
                             "Connection: content-length, x-hop\r\n"
                             "X-Hop: 1\r\n"
                             "Content-Length: 40\r\n\r\n";
    struct gw_cred none = { .kind = GW_AUTH_NONE, .key = NULL, .key_len = 0 };
    struct buf out;

    (void)state;
    build(in, &none, &out);
    assert_string_equal(out.data, "POST /v1/messages HTTP/1.1\r\n"
                                  "Host: llm.vendor.test\r\n"
                                  "Content-Length: 40\r\n\r\n");
    buf_cleanup(&out);
    build("POST / HTTP/1.1\r\nConnection: transfer-encoding\r\n"
          "Transfer-Encoding: chunked\r\n\r\n",
          &none, &out);
    assert_non_null(strstr(out.data, "Transfer-Encoding: chunked\r\n"));
    buf_cleanup(&out);
}

/* The URL rewrites, the client's forged identity and the OpenAI
 * organization and project never reach the vendor; lookalikes that are
 * not in the list do. */
static void
test_gw_head_drops_rewrites_forwarding_and_org(void **state)
{
    static const char in[] = "POST /v1/responses HTTP/1.1\r\n"
                             "OpenAI-Organization: org-agents-pick\r\n"
                             "openai-project: proj_other\r\n"
                             "X-Original-URL: /v1/admin\r\n"
                             "x-rewrite-url: /v1/admin\r\n"
                             "Forwarded: for=10.0.0.1;host=internal\r\n"
                             "X-Forwarded-For: 127.0.0.1\r\n"
                             "X-Forwarded-Host: admin.internal\r\n"
                             "x-forwarded-proto: http\r\n"
                             "X-FORWARDED-PREFIX: /admin\r\n"
                             "X-Real-IP: 127.0.0.1\r\n"
                             "OpenAI-Beta: responses=v1\r\n"
                             "X-Forwarded: kept\r\n"
                             "Forwarded-For: kept\r\n"
                             "Content-Length: 2\r\n\r\n";
    static const char want[] = "POST /v1/responses HTTP/1.1\r\n"
                               "Host: llm.vendor.test\r\n"
                               "OpenAI-Beta: responses=v1\r\n"
                               "X-Forwarded: kept\r\n"
                               "Forwarded-For: kept\r\n"
                               "Content-Length: 2\r\n"
                               "Authorization: Bearer sk-op\r\n\r\n";
    struct gw_cred cred = { .kind = GW_AUTH_BEARER,
                            .key = "sk-op",
                            .key_len = 5 };
    struct buf out;

    (void)state;
    build(in, &cred, &out);
    assert_string_equal(out.data, want);
    buf_cleanup(&out);
}

/* The operator's organization and project (a profile's
 * gateway.organization, gateway.project) are sent once each, in place of
 * whatever the agent sent; without them nothing is added. */
static void
test_gw_head_adds_the_operators_org_and_project(void **state)
{
    static const char in[] = "POST /v1/responses HTTP/1.1\r\n"
                             "OpenAI-Organization: org-agents-pick\r\n"
                             "OpenAI-Project: proj_agents\r\n"
                             "Content-Length: 2\r\n\r\n";
    static const char want[] = "POST /v1/responses HTTP/1.1\r\n"
                               "Host: llm.vendor.test\r\n"
                               "Content-Length: 2\r\n"
                               "OpenAI-Organization: org-operator\r\n"
                               "OpenAI-Project: proj_operator\r\n"
                               "Authorization: Bearer sk-op\r\n\r\n";
    struct gw_cred cred = { .kind = GW_AUTH_BEARER,
                            .key = "sk-op",
                            .key_len = 5,
                            .org = "org-operator",
                            .project = "proj_operator" };
    struct buf out;

    (void)state;
    build(in, &cred, &out);
    assert_string_equal(out.data, want);
    buf_cleanup(&out);
    cred.org = NULL;
    build(in, &cred, &out);
    assert_null(strstr(out.data, "OpenAI-Organization"));
    assert_non_null(strstr(out.data, "OpenAI-Project: proj_operator\r\n"));
    buf_cleanup(&out);
}

static void
test_gw_head_fails_past_the_buffer_cap(void **state)
{
    static const char in[] = "GET / HTTP/1.1\r\nA: b\r\n\r\n";
    struct gw_cred cred = { .kind = GW_AUTH_API_KEY, .key = "k", .key_len = 1 };
    struct gw_req_head h;
    struct buf out;
    struct err e = { 0 };
    int status;

    (void)state;
    assert_int_equal(gw_req_parse(in, strlen(in), &h, &status, NULL), 0);
    buf_init(&out, 20);
    assert_int_equal(gw_head_build(&h, "h", &cred, false, &out, &e), -1);
    assert_int_equal(e.code, ERR_LIMIT);
    buf_cleanup(&out);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gw_head_replaces_the_agents_credentials),
        cmocka_unit_test(test_gw_head_bearer_and_none),
        cmocka_unit_test(test_gw_head_identity_for_a_model_endpoint),
        cmocka_unit_test(test_gw_head_keeps_framing_that_connection_names),
        cmocka_unit_test(test_gw_head_drops_rewrites_forwarding_and_org),
        cmocka_unit_test(test_gw_head_adds_the_operators_org_and_project),
        cmocka_unit_test(test_gw_head_fails_past_the_buffer_cap),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
