/* test_gw_http.c - the gateway's request head parser (whole heads, good
 * and hostile), the body trackers fed in one piece and one byte at a
 * time, and the response tracker's framing decisions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gw_http.h"

static int
parse(const char *s, struct gw_req_head *h, int *status)
{
    size_t n = strlen(s);

    assert_int_equal(gw_head_end(s, n), n);
    return gw_req_parse(s, n, h, status, NULL);
}

static void
test_gw_req_parses_a_messages_request(void **state)
{
    static const char in[] = "POST /v1/messages?beta=true HTTP/1.1\r\n"
                             "Host: 10.0.0.2:8080\r\n"
                             "x-api-key:  placeholder \r\n"
                             "Content-Length: 12\r\n\r\n";
    struct gw_req_head h;
    int status;

    (void)state;
    assert_int_equal(parse(in, &h, &status), 0);
    assert_int_equal(h.method_len, 4);
    assert_memory_equal(h.method, "POST", 4);
    assert_int_equal(h.target_len, strlen("/v1/messages?beta=true"));
    assert_int_equal(h.path_len, strlen("/v1/messages"));
    assert_int_equal(h.nfields, 3);
    assert_int_equal(h.fields[1].value_len, strlen("placeholder"));
    assert_memory_equal(h.fields[1].value, "placeholder", 11);
    assert_int_equal(h.framing, GW_BODY_LENGTH);
    assert_int_equal(h.length, 12);
    assert_true(h.keep_alive);
    assert_false(h.expect_continue);
}

static void
test_gw_req_reads_persistence_and_expect(void **state)
{
    struct gw_req_head h;
    int status;

    (void)state;
    assert_int_equal(parse("GET / HTTP/1.1\r\nConnection: keep-alive, "
                           "close\r\n\r\n",
                           &h, &status),
                     0);
    assert_false(h.keep_alive);
    assert_int_equal(parse("GET / HTTP/1.0\r\n\r\n", &h, &status), 0);
    assert_false(h.keep_alive);
    assert_int_equal(
        parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", &h, &status),
        0);
    assert_true(h.keep_alive);
    assert_int_equal(parse("POST / HTTP/1.1\r\nExpect: 100-continue\r\n"
                           "Transfer-Encoding: chunked\r\n\r\n",
                           &h, &status),
                     0);
    assert_true(h.expect_continue);
    assert_int_equal(h.framing, GW_BODY_CHUNKED);
    assert_int_equal(
        parse("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", &h, &status), 0);
    assert_int_equal(h.framing, GW_BODY_NONE);
}

static void
test_gw_req_refuses_hostile_heads(void **state)
{
    static const struct {
        const char *in;
        int status;
    } cases[] = {
        { "GET http://x/ HTTP/1.1\r\n\r\n", 400 }, /* absolute form */
        { "CONNECT x:443 HTTP/1.1\r\n\r\n", 400 }, /* authority form */
        { "GET / HTTP/2.0\r\n\r\n", 505 },
        { "GET / HTTP/1.1\r\n folded\r\n\r\n", 400 }, /* obs-fold */
        { "GET / HTTP/1.1\r\nA : b\r\n\r\n", 400 },   /* space before colon */
        { "GET / HTTP/1.1\r\nA: b\x01\r\n\r\n", 400 },
        { "POST / HTTP/1.1\r\nContent-Length: 3\r\n"
          "Transfer-Encoding: chunked\r\n\r\n",
          400 }, /* smuggling */
        { "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
          400 },
        { "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400 },
        { "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501 },
        { "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
          "Transfer-Encoding: chunked\r\n\r\n",
          501 },
        { "GET /a b HTTP/1.1\r\n\r\n", 400 },
        { "G\x01T / HTTP/1.1\r\n\r\n", 400 },
    };
    struct gw_req_head h;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int status = 0;

        assert_int_equal(parse(cases[i].in, &h, &status), -1);
        assert_int_equal(status, cases[i].status);
    }
}

/* Only RFC 3986 characters in the target: what a server could cut
 * ('#'), decode its own way (raw 8-bit, "%u") or not decode at all ('%'
 * without two hex digits) is refused with the byte and its offset. */
static void
test_gw_req_target_is_rfc3986_only(void **state)
{
    static const struct {
        const char *target;
        int byte; /* -1: accepted */
        size_t at;
    } cases[] = {
        { "/v1/messages?beta=true", -1, 0 },
        { "/a-b._~!$&'()*+,=:@/c?q=;/?%2F%2f%aF", -1, 0 },
        { "/v1/messages%41", -1, 0 },
        { "/v1/messages#/../../admin", 0x23, 12 },
        { "/v1/messages?x=1#frag", 0x23, 16 },
        { "/v1/m\xc3\xa9ssages", 0xc3, 5 },
        { "/v1/\xff", 0xff, 4 },
        { "/v1/%u002e%u002e/admin", 0x25, 4 },
        { "/v1/messages%4", 0x25, 12 },
        { "/v1/messages%", 0x25, 12 },
        { "/v1/%zz", 0x25, 4 },
        { "/v1/\"x\"", 0x22, 4 },
        { "/v1/<a>", 0x3c, 4 },
        { "/v1/a|b", 0x7c, 5 },
        { "/v1/{a}", 0x7b, 4 },
        { "/v1/a^b`", 0x5e, 5 },
        { "/v1/a\\b", 0x5c, 5 },
        { "/v1/a\x7f"
          "b",
          0x7f, 5 },
        { "/v1/a\x01"
          "b",
          0x01, 5 },
        { "/v1/a\tb", 0x09, 5 },
    };
    char in[256], want[128];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gw_req_head h;
        struct err e = { 0 };
        int status = 0, n;

        n = snprintf(in, sizeof(in), "POST %s HTTP/1.1\r\nHost: x\r\n\r\n",
                     cases[i].target);
        assert_true(n > 0 && (size_t)n < sizeof(in));
        if (cases[i].byte < 0) {
            assert_int_equal(gw_req_parse(in, (size_t)n, &h, &status, &e), 0);
            assert_int_equal(h.target_len, strlen(cases[i].target));
            continue;
        }
        snprintf(want, sizeof(want),
                 "request target: byte 0x%02x at %zu is not allowed (RFC "
                 "3986)",
                 cases[i].byte, cases[i].at);
        assert_int_equal(gw_req_parse(in, (size_t)n, &h, &status, &e), -1);
        assert_int_equal(status, 400);
        assert_string_equal(e.msg, want);
    }
}

/* A field name with '_' is refused, whatever it would fold to: servers
 * read "X_Api_Key" as "X-Api-Key" (or drop it) while the gateway's
 * comparisons see another name. A response field with '_' is the
 * vendor's business and passes. */
static void
test_gw_req_refuses_underscore_field_names(void **state)
{
    static const char *const names[] = {
        "X_Api_Key",         "X_HTTP_Method_Override", "Content_Length",
        "Transfer_Encoding", "x_forwarded_for",        "_",
        "Authorization_",    "OpenAI_Organization",
    };
    char in[256], want[160];
    size_t used;
    struct gw_resp r;

    (void)state;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        struct gw_req_head h;
        struct err e = { 0 };
        int status = 0, n;

        n = snprintf(in, sizeof(in),
                     "POST /v1/messages HTTP/1.1\r\nHost: x\r\n%s: v\r\n"
                     "Content-Length: 0\r\n\r\n",
                     names[i]);
        assert_true(n > 0 && (size_t)n < sizeof(in));
        assert_int_equal(gw_req_parse(in, (size_t)n, &h, &status, &e), -1);
        assert_int_equal(status, 400);
        snprintf(want, sizeof(want),
                 "header field name \"%s\" has \"_\": refused, servers read "
                 "it as \"-\"",
                 names[i]);
        assert_string_equal(e.msg, want);
    }
    {
        static const char resp[] = "HTTP/1.1 200 OK\r\nX_Vendor: 1\r\n"
                                   "Content-Length: 2\r\n\r\nok";

        gw_resp_init(&r, false);
        assert_int_equal(gw_resp_feed(&r, resp, sizeof(resp) - 1, &used),
                         GW_FEED_DONE);
        assert_int_equal(r.status, 200);
        gw_resp_cleanup(&r);
    }
}

static void
test_gw_req_caps_the_field_count(void **state)
{
    char *in = malloc(64 * 1024);
    size_t n = 0;
    struct gw_req_head h;
    int status = 0;

    (void)state;
    assert_non_null(in);
    n += (size_t)snprintf(in, 64 * 1024, "GET / HTTP/1.1\r\n");
    for (int i = 0; i <= GW_FIELDS_MAX; i++)
        n += (size_t)snprintf(in + n, 64 * 1024 - n, "f%d: v\r\n", i);
    n += (size_t)snprintf(in + n, 64 * 1024 - n, "\r\n");
    assert_int_equal(gw_req_parse(in, n, &h, &status, NULL), -1);
    assert_int_equal(status, 431);
    free(in);
}

static void
test_gw_head_end_needs_the_blank_line(void **state)
{
    (void)state;
    assert_int_equal(gw_head_end("GET / HTTP/1.1\r\n", 16), 0);
    assert_int_equal(gw_head_end("GET / HTTP/1.1\r\n\r\nBODY", 22), 18);
}

/* Feed s to a body tracker whole and byte by byte: the same end. */
static void
body_both_ways(enum gw_framing kind, uint64_t len, bool no_trailers,
               const char *s, enum gw_feed want, size_t want_used)
{
    struct gw_body b;
    size_t n = strlen(s), used = 0, total = 0;
    enum gw_feed f = GW_FEED_MORE;

    gw_body_init(&b, kind, len, no_trailers);
    assert_int_equal(gw_body_feed(&b, s, n, &used), want);
    if (want != GW_FEED_FAIL)
        assert_int_equal(used, want_used);
    gw_body_init(&b, kind, len, no_trailers);
    for (size_t i = 0; i < n && f == GW_FEED_MORE; i++) {
        f = gw_body_feed(&b, s + i, 1, &used);
        total += used;
    }
    assert_int_equal(f, want);
    if (want != GW_FEED_FAIL)
        assert_int_equal(total, want_used);
}

static void
test_gw_body_finds_the_end(void **state)
{
    static const char chunked[] = "5\r\nhello\r\n"
                                  "1a;ext=1\r\nabcdefghijklmnopqrstuvwxyz\r\n"
                                  "0\r\n\r\n";
    static const char trailer[] = "2\r\nhi\r\n0\r\nx-t: 1\r\n\r\n";

    (void)state;
    body_both_ways(GW_BODY_LENGTH, 5, true, "helloNEXT", GW_FEED_DONE, 5);
    body_both_ways(GW_BODY_CHUNKED, 0, true, "5\r\nhel", GW_FEED_MORE, 6);
    {
        char with_next[sizeof(chunked) + 8];

        snprintf(with_next, sizeof(with_next), "%sGET /", chunked);
        body_both_ways(GW_BODY_CHUNKED, 0, true, with_next, GW_FEED_DONE,
                       sizeof(chunked) - 1);
    }
    body_both_ways(GW_BODY_CHUNKED, 0, false, trailer, GW_FEED_DONE,
                   sizeof(trailer) - 1);
    body_both_ways(GW_BODY_CHUNKED, 0, true, trailer, GW_FEED_FAIL, 0);
    body_both_ways(GW_BODY_CHUNKED, 0, true, "zz\r\n", GW_FEED_FAIL, 0);
    body_both_ways(GW_BODY_CHUNKED, 0, true, "2\r\nhiX\r\n", GW_FEED_FAIL, 0);
    body_both_ways(GW_BODY_CHUNKED, 0, true, "1000000000000000\r\n",
                   GW_FEED_FAIL, 0);
    body_both_ways(GW_BODY_EOF, 0, false, "anything", GW_FEED_MORE, 8);
}

static enum gw_feed
resp_feed_all(struct gw_resp *r, const char *s, bool bytewise, size_t *total)
{
    size_t n = strlen(s), used = 0;
    enum gw_feed f = GW_FEED_MORE;

    *total = 0;
    if (!bytewise) {
        f = gw_resp_feed(r, s, n, &used);
        *total = used;
        return f;
    }
    for (size_t i = 0; i < n && f == GW_FEED_MORE; i++) {
        f = gw_resp_feed(r, s + i, 1, &used);
        *total += used;
    }
    return f;
}

static void
test_gw_resp_tracks_framing(void **state)
{
    static const char sse[] = "HTTP/1.1 200 OK\r\nContent-Type: "
                              "text/event-stream\r\nTransfer-Encoding: "
                              "chunked\r\n\r\n"
                              "d\r\nevent: ping\n\n\r\n0\r\n\r\n";
    static const char interim[] = "HTTP/1.1 100 Continue\r\n\r\n"
                                  "HTTP/1.1 201 Created\r\n"
                                  "Content-Length: 2\r\n\r\nok";
    size_t used;

    (void)state;
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        struct gw_resp r;

        gw_resp_init(&r, false);
        assert_int_equal(resp_feed_all(&r, sse, bytewise, &used), GW_FEED_DONE);
        assert_int_equal(used, sizeof(sse) - 1);
        assert_int_equal(r.status, 200);
        gw_resp_cleanup(&r);

        gw_resp_init(&r, false);
        assert_int_equal(resp_feed_all(&r, interim, bytewise, &used),
                         GW_FEED_DONE);
        assert_int_equal(r.status, 201);
        gw_resp_cleanup(&r);

        gw_resp_init(&r, false);
        assert_int_equal(
            resp_feed_all(&r, "HTTP/1.1 200 OK\r\n\r\nstream", bytewise, &used),
            GW_FEED_MORE);
        assert_true(gw_resp_eof_ok(&r));
        gw_resp_cleanup(&r);

        gw_resp_init(&r, true); /* HEAD: no body whatever the length */
        assert_int_equal(resp_feed_all(&r,
                                       "HTTP/1.1 200 OK\r\n"
                                       "Content-Length: 9\r\n\r\n",
                                       bytewise, &used),
                         GW_FEED_DONE);
        gw_resp_cleanup(&r);

        gw_resp_init(&r, false);
        assert_int_equal(resp_feed_all(&r,
                                       "HTTP/1.1 200 OK\r\nConnection: "
                                       "close\r\nContent-Length: 1\r\n\r\n",
                                       bytewise, &used),
                         GW_FEED_MORE);
        assert_true(r.close);
        assert_false(gw_resp_eof_ok(&r)); /* a cut Content-Length body */
        gw_resp_cleanup(&r);

        gw_resp_init(&r, false);
        assert_int_equal(
            resp_feed_all(&r, "SSH-2.0-x\r\n\r\n", bytewise, &used),
            GW_FEED_FAIL);
        gw_resp_cleanup(&r);
    }
}

static void
test_gw_list_has_matches_tokens(void **state)
{
    (void)state;
    assert_true(gw_list_has("keep-alive, Close", 17, "close"));
    assert_false(gw_list_has("closed", 6, "close"));
    assert_true(gw_list_has(" x-api-key ,a", 13, "x-api-key"));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gw_req_parses_a_messages_request),
        cmocka_unit_test(test_gw_req_reads_persistence_and_expect),
        cmocka_unit_test(test_gw_req_refuses_hostile_heads),
        cmocka_unit_test(test_gw_req_target_is_rfc3986_only),
        cmocka_unit_test(test_gw_req_refuses_underscore_field_names),
        cmocka_unit_test(test_gw_req_caps_the_field_count),
        cmocka_unit_test(test_gw_head_end_needs_the_blank_line),
        cmocka_unit_test(test_gw_body_finds_the_end),
        cmocka_unit_test(test_gw_resp_tracks_framing),
        cmocka_unit_test(test_gw_list_has_matches_tokens),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
