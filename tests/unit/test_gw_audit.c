/* test_gw_audit.c - the gateway's refusals byte for byte (Proxy-Status,
 * JSON body, length) and its audit line (fields, escaping, no query). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
        .tokens_left = -1,
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
             "\"requests_left\":7,\"bytes_left\":-1,\"tokens_left\":-1,"
             "\"reason\":\"forwarded\"}\n");
}

/* A model endpoint's answer: its usage (OpenAI's cached input as
 * cacheRead), or null when it could not be read. */
static void
test_gw_audit_line_usage(void **state)
{
    const struct gw_tokens t = { 1000, 77, 900, 0 };
    struct gw_audit a = {
        .time = "t",
        .client = "c",
        .method = "POST",
        .path = "/v1/responses",
        .status = 200,
        .requests_left = -1,
        .bytes_left = -1,
        .tokens_left = 8923,
        .has_usage = true,
        .usage = &t,
        .reason = "forwarded",
    };
    char buf[GW_AUDIT_MAX];

    (void)state;
    assert_true(gw_audit_format(buf, sizeof(buf), &a) > 0);
    assert_non_null(strstr(buf, "\"tokens_left\":8923,\"usage\":{\"input\":"
                                "1000,\"output\":77,\"cacheRead\":900,"
                                "\"cacheWrite\":0},\"reason\":"));
    a.usage = NULL;
    assert_true(gw_audit_format(buf, sizeof(buf), &a) > 0);
    assert_non_null(strstr(buf, "\"tokens_left\":8923,\"usage\":null,"));
}

static bool utf8_ok(const char *str);

/* Every field at its longest, every byte escaped to six: the line still
 * fits in GW_AUDIT_MAX, so no line is lost to its size. */
static void
test_gw_audit_longest_line_fits(void **state)
{
    const struct gw_tokens t = { UINT64_MAX, UINT64_MAX, UINT64_MAX,
                                 UINT64_MAX };
    char path[2048], other[2048], buf[GW_AUDIT_MAX];
    struct gw_audit a = {
        .status = 999,
        .bytes_up = UINT64_MAX,
        .bytes_down = UINT64_MAX,
        .duration_ms = INT64_MIN,
        .requests_left = INT64_MIN,
        .bytes_left = INT64_MIN,
        .tokens_left = INT64_MIN,
        .has_usage = true,
        .usage = &t,
    };

    (void)state;
    memset(path, 0x01, sizeof(path) - 1);
    path[sizeof(path) - 1] = '\0';
    memset(other, 0xff, sizeof(other) - 1);
    other[sizeof(other) - 1] = '\0';
    a.time = a.client = a.method = a.reason = other;
    a.path = path;
    assert_true(gw_audit_format(buf, sizeof(buf), &a) > 0);
    assert_true(utf8_ok(buf));
}

/* True when s is well-formed UTF-8 (RFC 3629), checked apart from the
 * writer: decode, then refuse overlongs, surrogates and > U+10FFFF. */
static bool
utf8_ok(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;

    while (*s != '\0') {
        unsigned cp, n;

        if (s[0] < 0x80) {
            s++;
            continue;
        }
        if ((s[0] & 0xe0) == 0xc0)
            n = 2, cp = s[0] & 0x1fu;
        else if ((s[0] & 0xf0) == 0xe0)
            n = 3, cp = s[0] & 0x0fu;
        else if ((s[0] & 0xf8) == 0xf0)
            n = 4, cp = s[0] & 0x07u;
        else
            return false;
        for (unsigned i = 1; i < n; i++) {
            if ((s[i] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (s[i] & 0x3fu);
        }
        if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
            (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        s += n;
    }
    return true;
}

/* Bytes that are not UTF-8 never reach an audit line: each becomes
 * U+FFFD; well-formed UTF-8 and the escapes stay. */
static void
test_gw_audit_line_is_strict_utf8(void **state)
{
    struct gw_audit a = {
        .time = "2026-12-04T10:00:00.000Z",
        .client = "1.2.3.4:5",
        .method = "P\xffST",
        /* 0xff; a cut sequence; overlong '/'; a surrogate; 'é' and an
         * emoji (kept); DEL; a lone continuation byte */
        .path = "/v1/\xff/\xc3/\xc0\xaf/\xed\xa0\x80/\xc3\xa9\xf0\x9f\x98\x80"
                "\x7f\x80",
        .status = 400,
        .requests_left = -1,
        .bytes_left = -1,
        .tokens_left = -1,
        .reason = "bad \xf5\x80\x80\x80 byte\x01",
    };
    char buf[GW_AUDIT_MAX], reason[400];
    size_t n;

    (void)state;
    n = gw_audit_format(buf, sizeof(buf), &a);
    assert_true(n > 0);
    assert_true(utf8_ok(buf));
    assert_non_null(strstr(buf, "\"method\":\"P\\ufffdST\""));
    assert_non_null(strstr(buf, "\"path\":\"/v1/\\ufffd/\\ufffd/\\ufffd\\ufffd/"
                                "\\ufffd\\ufffd\\ufffd/\xc3\xa9\xf0\x9f\x98\x80"
                                "\\u007f\\ufffd\","));
    assert_non_null(strstr(buf, "\"reason\":\"bad \\ufffd\\ufffd\\ufffd"
                                "\\ufffd byte\\u0001\"}\n"));

    /* a field cut to fit is cut between characters: 'é' is two bytes */
    for (size_t i = 0; i + 2 < sizeof(reason); i += 2)
        memcpy(reason + i, "\xc3\xa9", 2);
    reason[sizeof(reason) - 2] = '\0';
    a.reason = reason;
    n = gw_audit_format(buf, sizeof(buf), &a);
    assert_true(n > 0);
    assert_true(utf8_ok(buf));
    assert_non_null(strstr(buf, "\xc3\xa9\"}\n"));
}

/* A refusal with bytes that are not UTF-8 in its details: the JSON body
 * is strict UTF-8, the Proxy-Status string printable ASCII. */
static void
test_gw_answer_is_strict_too(void **state)
{
    struct gw_denial d = { 403, "http_request_denied",
                           "field \"x\xff\xc3\xa9\" not allowed\n" };
    char buf[GW_ANSWER_MAX];

    (void)state;
    assert_true(gw_answer_format(buf, sizeof(buf), &d) > 0);
    assert_true(utf8_ok(buf));
    assert_non_null(
        strstr(buf, "details=\"field \\\"x???\\\" not allowed?\"\r\n"));
    assert_non_null(strstr(buf, "\"message\":\"agentctl-gateway: field "
                                "\\\"x\\ufffd\xc3\xa9\\\" not allowed\\n\"}}"));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gw_answer_carries_proxy_status),
        cmocka_unit_test(test_gw_answer_escapes_details),
        cmocka_unit_test(test_gw_audit_line_has_every_field),
        cmocka_unit_test(test_gw_audit_line_is_strict_utf8),
        cmocka_unit_test(test_gw_audit_line_usage),
        cmocka_unit_test(test_gw_audit_longest_line_fits),
        cmocka_unit_test(test_gw_answer_is_strict_too),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
