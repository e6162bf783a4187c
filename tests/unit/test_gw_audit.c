/* test_gw_audit.c - the gateway's refusals byte for byte (Proxy-Status,
 * JSON body, length) and its audit line (fields, escaping, no query). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gw_audit.h"

static void
test_gw_answer_carries_proxy_status(void **state)
{
    static const char body[] =
        "{\"type\":\"error\",\"error\":{\"type\":\"http_request_denied\","
        "\"message\":\"agentctl-gateway: path not allowed\"}}";
    struct gw_denial d = { 403, "http_request_denied", "path not allowed" };
    char want[GW_ANSWER_MAX], buf[GW_ANSWER_MAX];
    size_t n;

    (void)state;
    snprintf(want, sizeof(want),
             "HTTP/1.1 403 Forbidden\r\n"
             "Proxy-Status: agentctl-gateway; error=http_request_denied; "
             "details=\"path not allowed\"\r\n"
             "Content-Type: application/json\r\nContent-Length: %zu\r\n"
             "Connection: close\r\n\r\n%s",
             sizeof(body) - 1, body);
    n = gw_answer_format(buf, sizeof(buf), &d);
    assert_int_equal(n, strlen(want));
    assert_string_equal(buf, want);
    d = (struct gw_denial){ 429, "http_request_denied",
                            "request budget spent" };
    n = gw_answer_format(buf, sizeof(buf), &d);
    assert_non_null(strstr(buf, "HTTP/1.1 429 Too Many Requests\r\n"));
    assert_non_null(strstr(buf, "details=\"request budget spent\""));
    assert_int_equal(gw_answer_format(buf, 40, &d), 0);
}

static void
test_gw_answer_escapes_details(void **state)
{
    struct gw_denial d = { 502, "tls_certificate_error", "a \"q\" \\ b" };
    char buf[GW_ANSWER_MAX];

    (void)state;
    assert_true(gw_answer_format(buf, sizeof(buf), &d) > 0);
    assert_non_null(strstr(buf, "details=\"a \\\"q\\\" \\\\ b\"\r\n"));
}

static void
test_gw_audit_line_has_every_field(void **state)
{
    struct gw_audit a = {
        .time = "2026-12-04T10:00:00.000Z",
        .client = "172.30.0.3:40000",
        .method = "POST",
        .path = "/v1/\"messages\n",
        .status = 200,
        .bytes_up = 1234,
        .bytes_down = 5678,
        .duration_ms = 42,
        .requests_left = 7,
        .bytes_left = -1,
        .reason = "forwarded",
    };
    char buf[GW_AUDIT_MAX];
    size_t n;

    (void)state;
    n = gw_audit_format(buf, sizeof(buf), &a);
    assert_int_equal(n, strlen(buf));
    assert_string_equal(
        buf, "{\"time\":\"2026-12-04T10:00:00.000Z\",\"msg\":\"request\","
             "\"client\":\"172.30.0.3:40000\",\"method\":\"POST\","
             "\"path\":\"/v1/\\\"messages\\n\",\"status\":200,"
             "\"bytes_up\":1234,\"bytes_down\":5678,\"duration_ms\":42,"
             "\"requests_left\":7,\"bytes_left\":-1,"
             "\"reason\":\"forwarded\"}\n");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gw_answer_carries_proxy_status),
        cmocka_unit_test(test_gw_answer_escapes_details),
        cmocka_unit_test(test_gw_audit_line_has_every_field),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
