/* test_ctl_usage.c - status.usage from the gateway's audit lines
 * (controller/obs/obs_usage.h): usage summed, the gateway's refusals told from
 * the vendor's own 4xx, the token budget's refusals counted, bad lines
 * counted as requests and nothing else, the status object's keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "obs_usage.h"

#define LINE(status, tail)                                                     \
    "{\"time\":\"t\",\"msg\":\"request\",\"client\":\"c\",\"method\":"         \
    "\"POST\","                                                                \
    "\"path\":\"/v1/messages\",\"status\":" status ",\"bytes_up\":1,"          \
    "\"bytes_down\":1,\"duration_ms\":1,\"requests_left\":-1,"                 \
    "\"bytes_left\":-1,\"tokens_left\":-1" tail "}"

static void
test_ctl_usage_sums_lines(void **state)
{
    static const char *const lines[] = {
        LINE("200", ",\"usage\":{\"input\":100,\"output\":20,\"cacheRead\":300,"
                    "\"cacheWrite\":40},\"reason\":\"forwarded\""),
        LINE("200", ",\"usage\":{\"input\":1000,\"output\":77,\"cacheRead\":"
                    "900,\"cacheWrite\":0},\"reason\":\"forwarded\""),
        /* unreadable usage: a request, no tokens */
        LINE("200", ",\"usage\":null,\"reason\":\"forwarded\""),
        /* the vendor's own 429 is not a refusal of the gateway */
        LINE("429", ",\"reason\":\"forwarded\""),
        LINE("429", ",\"reason\":\"token budget spent\""),
        LINE("429", ",\"reason\":\"request budget spent\""),
        LINE("403", ",\"reason\":\"path not allowed\""),
        /* a 502 the gateway gave: not a refusal */
        LINE("502", ",\"reason\":\"cannot connect to the vendor\""),
        /* a cut stream still bills what came */
        LINE("200", ",\"usage\":{\"input\":5,\"output\":-3,\"cacheRead\":"
                    "\"x\"},\"reason\":\"the vendor cut the response short\""),
        "not json",
        "{\"usage\":{\"input\":1e300}}",
    };
    struct obs_usage u = { 0 };

    (void)state;
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        obs_usage_add_line(&u, lines[i]);
    assert_int_equal(u.requests, 11);
    assert_int_equal(u.refused, 3);
    assert_int_equal(u.token_spent, 1);
    assert_int_equal(u.input, 1105);
    assert_int_equal(u.output, 97);
    assert_int_equal(u.cache_read, 1200);
    assert_int_equal(u.cache_write, 40);
}

static void
test_ctl_usage_status_object(void **state)
{
    const struct obs_usage u = { 7, 2, 1105, 97, 1200, 40, 1 };
    cJSON *o = obs_usage_to_json(&u);
    char *text;

    (void)state;
    assert_non_null(o);
    text = cJSON_PrintUnformatted(o);
    assert_string_equal(text, "{\"requests\":7,\"refused\":2,\"inputTokens\":"
                              "1105,\"outputTokens\":97,\"cacheReadTokens\":"
                              "1200,\"cacheWriteTokens\":40}");
    cJSON_free(text);
    cJSON_Delete(o);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ctl_usage_sums_lines),
        cmocka_unit_test(test_ctl_usage_status_object),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
