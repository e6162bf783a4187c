/* test_px_answer.c - the proxy's fixed answers, byte for byte: every
 * refusal path (the lingering one and the stateless one past the linger
 * cap) sends what px_answer_format() writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "px_answer.h"

static void
test_px_answer_formats_each_refusal(void **state)
{
    static const struct {
        int status;
        const char *error, *details;
        const char *text;
    } cases[] = {
        { 403, NULL, "not in the allowlist",
          "HTTP/1.1 403 Forbidden\r\n"
          "Proxy-Status: agentctl-egress-proxy; error=http_request_denied; "
          "details=\"not in the allowlist\"\r\n"
          "Content-Length: 0\r\nConnection: close\r\n\r\n" },
        { 403, "destination_ip_prohibited", "x",
          "HTTP/1.1 403 Forbidden\r\n"
          "Proxy-Status: agentctl-egress-proxy; "
          "error=destination_ip_prohibited; details=\"x\"\r\n"
          "Content-Length: 0\r\nConnection: close\r\n\r\n" },
        { 503, NULL, NULL,
          "HTTP/1.1 503 Service Unavailable\r\n"
          "Proxy-Status: agentctl-egress-proxy; "
          "error=connection_limit_reached\r\n"
          "Content-Length: 0\r\nConnection: close\r\n\r\n" },
        { 431, NULL, "header over the limit",
          "HTTP/1.1 431 Request Header Fields Too Large\r\n"
          "Proxy-Status: agentctl-egress-proxy; error=http_request_error; "
          "details=\"header over the limit\"\r\n"
          "Content-Length: 0\r\nConnection: close\r\n\r\n" },
        { 504, "dns_timeout", NULL,
          "HTTP/1.1 504 Gateway Timeout\r\n"
          "Proxy-Status: agentctl-egress-proxy; error=dns_timeout\r\n"
          "Content-Length: 0\r\nConnection: close\r\n\r\n" },
        { 599, NULL, NULL,
          "HTTP/1.1 599 Error\r\n"
          "Proxy-Status: agentctl-egress-proxy; "
          "error=destination_unavailable\r\n"
          "Content-Length: 0\r\nConnection: close\r\n\r\n" },
    };
    char buf[PX_ANSWER_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = px_answer_format(buf, sizeof(buf), cases[i].status,
                                    cases[i].error, cases[i].details);

        assert_int_equal(n, strlen(cases[i].text));
        assert_string_equal(buf, cases[i].text);
    }
}

static void
test_px_answer_too_small_buffer_is_refused(void **state)
{
    char buf[16];

    (void)state;
    assert_int_equal(px_answer_format(buf, sizeof(buf), 503, NULL, NULL), 0);
    assert_string_equal(px_answer_reason(200), "Connection established");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_px_answer_formats_each_refusal),
        cmocka_unit_test(test_px_answer_too_small_buffer_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
