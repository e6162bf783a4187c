/* test_gw_body.c - the request policy of the model endpoints
 * (proxy/gw_body.h): what the CLIs send passes; a server-side tool, an
 * MCP connector, a background run, an unlisted beta, a duplicated field
 * and a body that is not strict JSON are refused with a reason the model
 * can read; an operator's widening admits exactly what it names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gw_body.h"
#include "gw_usage.h"

static const char *
check(const struct gw_body_policy *p, const char *body, char *why)
{
    return gw_body_check(p, body, strlen(body), why, 256);
}

static void
test_anthropic(void **state)
{
    struct gw_body_policy p = { .api = GW_API_ANTHROPIC };
    char why[256];
    struct err e;

    (void)state;
    assert_true(gw_body_judged(&p, "/v1/messages", 12));
    assert_true(gw_body_judged(&p, "/v1/messages/count_tokens", 25));
    assert_false(gw_body_judged(&p, "/v1/models", 10));
    /* below a model endpoint and not one: refused (the Message Batches
     * take server-side tools too), the endpoints and others are not */
    assert_true(gw_body_below(&p, "/v1/messages/batches", 20));
    assert_true(gw_body_below(&p, "/v1/messages/", 13));
    assert_true(gw_body_below(&p, "/v1/messages/count_tokens/x", 27));
    assert_false(gw_body_below(&p, "/v1/messages/count_tokens", 25));
    assert_false(gw_body_below(&p, "/v1/messages", 12));
    assert_false(gw_body_below(&p, "/v1/messagesX", 13));
    assert_false(gw_body_below(&p, "/v1/models", 10));
    assert_null(check(&p,
                      "{\"model\":\"m\",\"max_tokens\":8,\"stream\":true,"
                      "\"system\":[{\"type\":\"text\",\"text\":\"s\"}],"
                      "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                      "\"tools\":[{\"name\":\"Bash\",\"input_schema\":{}},"
                      "{\"type\":\"custom\",\"name\":\"x\",\"input_schema\":{}}]}",
                      why));
    assert_non_null(check(&p,
                          "{\"model\":\"m\",\"tools\":[{\"name\":\"Read\"},"
                          "{\"type\":\"web_fetch_20250910\",\"name\":\"f\"}]}",
                          why));
    assert_non_null(strstr(why, "tools[1].type \"web_fetch_20250910\""));
    assert_non_null(check(&p, "{\"model\":\"m\",\"mcp_servers\":[]}", why));
    assert_non_null(strstr(why, "field \"mcp_servers\" is not allowed"));
    /* an escaped key is the same key */
    assert_non_null(
        check(&p, "{\"model\":\"m\",\"m\\u0063p_servers\":[]}", why));
    assert_non_null(strstr(why, "mcp_servers"));
    assert_non_null(check(&p, "{\"container\":\"c\"}", why));
    /* two tools lists: readers disagree on which one counts */
    assert_non_null(check(&p,
                          "{\"tools\":[],\"tools\":[{\"type\":"
                          "\"code_execution_20250825\"}]}",
                          why));
    assert_non_null(check(&p, "{\"tools\":[{\"type\":\"custom\",\"type\":"
                              "\"web_search_20250305\"}]}",
                          why));
    assert_non_null(check(&p, "{\"model\":\"m\",}", why));
    assert_non_null(strstr(why, "not strict JSON"));
    assert_non_null(check(&p, "[]", why));
    /* the operator's widening */
    assert_int_equal(gw_body_allow(&p, 't', "web_fetch_20250910", &e), 0);
    assert_null(check(&p, "{\"tools\":[{\"type\":\"web_fetch_20250910\"}]}",
                      why));
    assert_int_equal(gw_body_allow(&p, 'f', "mcp_servers", &e), 0);
    assert_null(check(&p, "{\"mcp_servers\":[]}", why));
}

static void
test_openai(void **state)
{
    struct gw_body_policy p = { .api = GW_API_OPENAI };
    char why[256];

    (void)state;
    assert_true(gw_body_judged(&p, "/v1/responses", 13));
    assert_true(gw_body_judged(&p, "/v1/chat/completions", 20));
    assert_false(gw_body_judged(&p, "/v1/messages", 12));
    assert_true(gw_body_below(&p, "/v1/responses/compact", 21));
    assert_true(gw_body_below(&p, "/v1/chat/completions/", 21));
    assert_false(gw_body_below(&p, "/v1/messages/batches", 20));
    assert_null(check(&p,
                      "{\"model\":\"m\",\"input\":[],\"stream\":true,"
                      "\"tools\":[{\"type\":\"function\",\"name\":\"shell\"},"
                      "{\"type\":\"custom\",\"name\":\"apply_patch\"}],"
                      "\"reasoning\":{\"effort\":\"low\"},\"store\":false}",
                      why));
    assert_non_null(
        check(&p, "{\"model\":\"m\",\"tools\":[{\"type\":\"web_search\"}]}",
              why));
    assert_non_null(strstr(why, "\"web_search\""));
    assert_non_null(check(&p,
                          "{\"tools\":[{\"type\":\"mcp\",\"server_url\":"
                          "\"https://x.invalid/\"}]}",
                          why));
    assert_non_null(check(&p, "{\"model\":\"m\",\"background\":true}", why));
    assert_non_null(strstr(why, "\"background\""));
    assert_non_null(check(&p, "{\"web_search_options\":{}}", why));
}

static void
test_betas(void **state)
{
    struct gw_body_policy p = { .api = GW_API_ANTHROPIC };
    const char *ok = "claude-code-20250219, interleaved-thinking-2025-05-14";
    const char *bad = "claude-code-20250219,mcp-client-2025-04-04";
    char why[256];
    struct err e;

    (void)state;
    assert_null(gw_body_check_betas(&p, ok, strlen(ok), why, sizeof(why)));
    assert_non_null(
        gw_body_check_betas(&p, bad, strlen(bad), why, sizeof(why)));
    assert_non_null(strstr(why, "\"mcp-client-2025-04-04\""));
    assert_int_equal(gw_body_allow(&p, 'b', "mcp-client-2025-04-04", &e), 0);
    assert_null(gw_body_check_betas(&p, bad, strlen(bad), why, sizeof(why)));
    assert_int_equal(gw_body_allow(&p, 'b', "a b", &e), -1);
    assert_int_equal(gw_body_set_api(&p, "gemini", &e), -1);
    assert_string_equal(gw_body_beta_header(&p), "anthropic-beta");
}

/* OpenAI-Beta: nothing on the list (Codex 0.171.0 sends none through the
 * gateway); each flag compared whole, date included; a widening admits
 * exactly what it names, and Anthropic's flags are not OpenAI's. */
static void
test_openai_betas(void **state)
{
    struct gw_body_policy p = { .api = GW_API_OPENAI };
    const char *ws = "responses_websockets=2026-02-06";
    const char *two = "responses_websockets=2026-02-06, assistants=v2";
    const char *ant = "claude-code-20250219";
    char why[256];
    struct err e;

    (void)state;
    assert_string_equal(gw_body_beta_header(&p), "openai-beta");
    assert_non_null(gw_body_check_betas(&p, ws, strlen(ws), why, sizeof(why)));
    assert_non_null(strstr(why, "OpenAI-Beta \"responses_websockets="));
    assert_non_null(
        gw_body_check_betas(&p, ant, strlen(ant), why, sizeof(why)));
    assert_null(gw_body_check_betas(&p, " , ", 3, why, sizeof(why)));
    assert_int_equal(gw_body_allow(&p, 'b', ws, &e), 0);
    assert_null(gw_body_check_betas(&p, ws, strlen(ws), why, sizeof(why)));
    assert_non_null(
        gw_body_check_betas(&p, two, strlen(two), why, sizeof(why)));
    assert_non_null(strstr(why, "\"assistants=v2\""));
    assert_non_null(gw_body_check_betas(&p, "responses_websockets", 20, why,
                                        sizeof(why)));
}

/* One table of model endpoints: the paths whose bodies are judged are
 * the paths whose answers are read for their tokens, count_tokens apart
 * (it bills nothing), each under its own API only. */
static void
test_endpoints_one_table(void **state)
{
    struct gw_body_policy a = { .api = GW_API_ANTHROPIC };
    struct gw_body_policy o = { .api = GW_API_OPENAI };
    struct gw_body_policy none = { .api = GW_API_NONE };
    static const struct {
        const char *path;
        enum gw_api api, usage;
    } t[] = {
        { "/v1/messages", GW_API_ANTHROPIC, GW_API_ANTHROPIC },
        { "/v1/messages/count_tokens", GW_API_ANTHROPIC, GW_API_NONE },
        { "/v1/responses", GW_API_OPENAI, GW_API_OPENAI },
        { "/v1/chat/completions", GW_API_OPENAI, GW_API_OPENAI },
        { "/v1/models", GW_API_NONE, GW_API_NONE },
        { "/v1/messages/batches", GW_API_NONE, GW_API_NONE },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        size_t n = strlen(t[i].path);

        assert_int_equal(gw_usage_api(t[i].path, n), t[i].usage);
        assert_int_equal(gw_body_judged(&a, t[i].path, n),
                         t[i].api == GW_API_ANTHROPIC);
        assert_int_equal(gw_body_judged(&o, t[i].path, n),
                         t[i].api == GW_API_OPENAI);
        assert_false(gw_body_judged(&none, t[i].path, n));
    }
    assert_false(gw_body_below(&o, "/v1/messages/batches", 20));
    assert_true(gw_body_below(&o, "/v1/responses/compact", 21));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_anthropic),
        cmocka_unit_test(test_openai),
        cmocka_unit_test(test_betas),
        cmocka_unit_test(test_openai_betas),
        cmocka_unit_test(test_endpoints_one_table),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
