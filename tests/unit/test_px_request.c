/* test_px_request.c - the CONNECT parser, fed one byte at a time and in
 * one piece, and its header-limit accounting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "px_request.h"

struct req_case {
    const char *in;
    enum px_req_result res;
    int status;         /* when FAIL */
    const char *target; /* when DONE */
    size_t header_len;  /* consumed bytes when DONE */
};

#define OK(s, t)                                                               \
    {                                                                          \
        s, PX_REQ_DONE, 0, t, sizeof(s) - 1                                    \
    }
#define FAIL(s, c)                                                             \
    {                                                                          \
        s, PX_REQ_FAIL, c, NULL, 0                                             \
    }
#define MORE(s)                                                                \
    {                                                                          \
        s, PX_REQ_MORE, 0, NULL, 0                                             \
    }

static const struct req_case cases[] = {
    OK("CONNECT a.test:443 HTTP/1.1\r\n\r\n", "a.test:443"),
    OK("CONNECT a.test:443 HTTP/1.0\r\n\r\n", "a.test:443"),
    OK("CONNECT a.test:443 HTTP/1.1\n\n", "a.test:443"),
    OK("CONNECT [::1]:1 HTTP/1.1\r\nHost: [::1]:1\r\n"
       "Proxy-Authorization: x\r\nX-Empty:\r\nX-Tab:\ta\tb\r\n\r\n",
       "[::1]:1"),
    OK("CONNECT a:1 HTTP/1.1\r\nX: \x80\xff obs-text\r\n\r\n", "a:1"),
    MORE("CONNECT a.test:443 HTTP/1.1\r\n"),
    MORE("CONNECT a.test:443 HTTP/1.1\r\nHost: a\r\n\r"),
    MORE("CONNECT"),
    FAIL("GET / HTTP/1.1\r\n\r\n", 405),
    FAIL("POST http://a/ HTTP/1.1\r\n\r\n", 405),
    FAIL("connect a:1 HTTP/1.1\r\n\r\n", 405), /* methods are case-sensitive */
    FAIL("CONNECTXXXXXXXXXXXXXXXXXXXXXXX a:1 HTTP/1.1\r\n\r\n", 405),
    FAIL(" CONNECT a:1 HTTP/1.1\r\n\r\n", 400),
    FAIL("\r\nCONNECT a:1 HTTP/1.1\r\n\r\n", 400),
    FAIL("CONNECT  a:1 HTTP/1.1\r\n\r\n", 400),
    FAIL("CONNECT a:1 HTTP/2.0\r\n\r\n", 400),
    FAIL("CONNECT a:1 HTTP/1.1 \r\n\r\n", 400),
    FAIL("CONNECT a:1\r\n\r\n", 400),
    FAIL("CONNECT a:1 HTTP/1.1\rX\n\r\n", 400),
    FAIL("CONNECT a\x01:1 HTTP/1.1\r\n\r\n", 400),
    FAIL("CONNECT a:1 HTTP/1.1\r\n folded: x\r\n\r\n", 400),
    FAIL("CONNECT a:1 HTTP/1.1\r\nNo colon\r\n\r\n", 400),
    FAIL("CONNECT a:1 HTTP/1.1\r\n: empty name\r\n\r\n", 400),
    FAIL("CONNECT a:1 HTTP/1.1\r\nX: nul\0byte\r\n\r\n", 400),
    FAIL("CONNECT a:1 HTTP/1.1\r\nX: y\r\n\rz", 400),
};

/* Feed s one byte at a time; stop at the first non-MORE result. */
static enum px_req_result
feed_bytewise(struct px_req *r, const char *s, size_t n, size_t *used)
{
    enum px_req_result res = PX_REQ_MORE;

    *used = 0;
    for (size_t i = 0; i < n && res == PX_REQ_MORE; i++) {
        size_t c = 0;
        res = px_req_feed(r, s + i, 1, &c);
        *used += c;
    }
    return res;
}

static void
check_case(const struct req_case *c, bool bytewise)
{
    /* sizeof-1 of the literal: inputs may hold NUL */
    size_t n = c->header_len ? c->header_len : strlen(c->in);
    struct px_req r;
    size_t used = 0;
    enum px_req_result res;

    if (strstr(c->in, "nul") != NULL)
        n = strlen(c->in) + 1 + strlen(c->in + strlen(c->in) + 1);
    px_req_init(&r, 8192);
    res = bytewise ? feed_bytewise(&r, c->in, n, &used)
                   : px_req_feed(&r, c->in, n, &used);
    if (res != c->res)
        fail_msg("%s (%s): result %d, want %d (%s)", c->in,
                 bytewise ? "bytewise" : "whole", res, c->res,
                 r.why ? r.why : "");
    if (res == PX_REQ_FAIL)
        assert_int_equal(r.status, c->status);
    if (res == PX_REQ_DONE) {
        assert_string_equal(r.target, c->target);
        assert_string_equal(r.method, "CONNECT");
        assert_int_equal(used, c->header_len);
    }
}

static void
test_px_req_table_bytewise_and_whole(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        check_case(&cases[i], true);
        check_case(&cases[i], false);
    }
}

static void
test_px_req_payload_after_header_is_not_consumed(void **state)
{
    static const char hdr[] = "CONNECT a.test:443 HTTP/1.1\r\n\r\n";
    char *in = malloc(sizeof(hdr) - 1 + 16384);
    struct px_req r;
    size_t used = 0;

    (void)state;
    assert_non_null(in);
    memcpy(in, hdr, sizeof(hdr) - 1);
    memset(in + sizeof(hdr) - 1, 'p', 16384);
    /* the limit only fits the header: the payload must not count */
    px_req_init(&r, sizeof(hdr) - 1);
    assert_int_equal(px_req_feed(&r, in, sizeof(hdr) - 1 + 16384, &used),
                     PX_REQ_DONE);
    assert_int_equal(used, sizeof(hdr) - 1);
    /* feeding after DONE consumes nothing */
    assert_int_equal(px_req_feed(&r, "x", 1, &used), PX_REQ_DONE);
    assert_int_equal(used, 0);
    free(in);
}

static void
test_px_req_limit_counts_header_bytes_exactly(void **state)
{
    static const char hdr[] = "CONNECT a.test:443 HTTP/1.1\r\nX: y\r\n\r\n";
    const size_t n = sizeof(hdr) - 1;
    struct px_req r;
    size_t used = 0;

    (void)state;
    px_req_init(&r, n); /* exactly the limit: accepted */
    assert_int_equal(feed_bytewise(&r, hdr, n, &used), PX_REQ_DONE);
    assert_int_equal(used, n);
    px_req_init(&r, n - 1); /* one byte over: 431 */
    assert_int_equal(feed_bytewise(&r, hdr, n, &used), PX_REQ_FAIL);
    assert_int_equal(r.status, 431);
    assert_int_equal(used, n - 1);
    px_req_init(&r, n - 1); /* same in one piece */
    assert_int_equal(px_req_feed(&r, hdr, n, &used), PX_REQ_FAIL);
    assert_int_equal(r.status, 431);
    assert_int_equal(r.used, n - 1);
}

static void
test_px_req_endless_header_stops_at_limit(void **state)
{
    char chunk[1000];
    struct px_req r;
    size_t used = 0, total = 0;
    enum px_req_result res = PX_REQ_MORE;

    (void)state;
    memset(chunk, 'a', sizeof(chunk));
    px_req_init(&r, 8192);
    res = px_req_feed(&r, "CONNECT a:1 HTTP/1.1\r\nX: ", 25, &used);
    total += used;
    for (int i = 0; i < 100 && res == PX_REQ_MORE; i++) {
        res = px_req_feed(&r, chunk, sizeof(chunk), &used);
        total += used;
    }
    assert_int_equal(res, PX_REQ_FAIL);
    assert_int_equal(r.status, 431);
    assert_int_equal(total, 8192);
}

static void
test_px_req_long_target_is_refused(void **state)
{
    char in[PX_REQ_TARGET_MAX + 64];
    struct px_req r;

    (void)state;
    memcpy(in, "CONNECT ", 8);
    memset(in + 8, 'a', PX_REQ_TARGET_MAX + 1);
    memcpy(in + 8 + PX_REQ_TARGET_MAX + 1, " HTTP/1.1\r\n\r\n", 14);
    px_req_init(&r, 8192);
    assert_int_equal(px_req_feed(&r, in, strlen(in), NULL), PX_REQ_FAIL);
    assert_int_equal(r.status, 400);
    /* PX_REQ_TARGET_MAX itself fits */
    memcpy(in + 8 + PX_REQ_TARGET_MAX, " HTTP/1.1\r\n\r\n", 14);
    px_req_init(&r, 8192);
    assert_int_equal(px_req_feed(&r, in, strlen(in), NULL), PX_REQ_DONE);
    assert_int_equal(r.target_len, PX_REQ_TARGET_MAX);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_px_req_table_bytewise_and_whole),
        cmocka_unit_test(test_px_req_payload_after_header_is_not_consumed),
        cmocka_unit_test(test_px_req_limit_counts_header_bytes_exactly),
        cmocka_unit_test(test_px_req_endless_header_stops_at_limit),
        cmocka_unit_test(test_px_req_long_target_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
