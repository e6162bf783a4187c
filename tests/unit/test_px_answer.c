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
        const char *text;
    } cases[] = {
        { 403, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n"
               "Connection: close\r\n\r\n" },
        { 503, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
               "Connection: close\r\n\r\n" },
        { 431, "HTTP/1.1 431 Request Header Fields Too Large\r\n"
               "Content-Length: 0\r\nConnection: close\r\n\r\n" },
        { 599, "HTTP/1.1 599 Error\r\nContent-Length: 0\r\n"
               "Connection: close\r\n\r\n" },
    };
    char buf[PX_ANSWER_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = px_answer_format(buf, sizeof(buf), cases[i].status);

        assert_int_equal(n, strlen(cases[i].text));
        assert_string_equal(buf, cases[i].text);
    }
}

static void
test_px_answer_too_small_buffer_is_refused(void **state)
{
    char buf[16];

    (void)state;
    assert_int_equal(px_answer_format(buf, sizeof(buf), 503), 0);
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
