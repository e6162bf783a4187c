/* test_ctl_auditline.c - the live egress audit's pure parts
 * (controller/inv/inv_auditline.h): a read resumed from a position takes
 * every line once (the equal-timestamp case included), since= is
 * Docker's seconds.nanoseconds, lines come whole whatever the chunking
 * and a line over the cap is reported once as over, only strict JSON
 * objects are kept, and the credential never reaches a rendered line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "inv_auditline.h"

#define T1 "2026-12-07T12:00:00.000000001Z"
#define T2 "2026-12-07T12:00:00.000000002Z"
#define T3 "2026-12-07T12:00:01.000000000Z"

/* A log of lines (timestamps), read once whole, then a restart after
 * each prefix: the lines taken by both reads together are the log, each
 * once. */
static void
test_resume_takes_every_line_once(void **state)
{
    static const char *const log[] = { T1, T2, T2, T2, T3, T3 };
    const size_t n = sizeof(log) / sizeof(log[0]);

    (void)state;
    for (size_t cut = 0; cut <= n; cut++) {
        struct inv_audit_pos p = { 0 };
        size_t taken = 0, first;

        inv_audit_pos_begin(&p);
        for (size_t i = 0; i < cut; i++)
            taken += inv_audit_pos_take(&p, log[i]);
        assert_int_equal(taken, cut);
        /* the restart: Docker gives every line at or after p.at */
        inv_audit_pos_begin(&p);
        for (first = 0; first < n && cut > 0 && strcmp(log[first], p.at) < 0;
             first++)
            ;
        for (size_t i = first; i < n; i++)
            taken += inv_audit_pos_take(&p, log[i]);
        assert_int_equal(taken, n);
        assert_string_equal(p.at, T3);
        assert_int_equal(p.seen, 2);
    }
}

/* A line before the position is passed over, and so are the lines at
 * the position that come again after it: Docker's follow re-sends a
 * stretch of the log across a rotation (T1 T2 T2 | T1 T2 T2 | T2 T3). */
static void
test_resend_within_a_read_taken_once(void **state)
{
    static const char *const stream[] = { T1, T2, T2, T1, T2, T2, T2, T3 };
    static const bool want[] = { 1, 1, 1, 0, 0, 0, 1, 1 };
    struct inv_audit_pos p = { 0 };

    (void)state;
    inv_audit_pos_begin(&p);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        assert_int_equal(inv_audit_pos_take(&p, stream[i]), want[i]);
    assert_string_equal(p.at, T3);
    assert_int_equal(p.seen, 1);
    /* a stray older line alone (a clock stepped back): lost, not twice */
    assert_false(inv_audit_pos_take(&p, T2));
    assert_false(inv_audit_pos_take(&p, T3)); /* taken as the T3 again */
    assert_true(inv_audit_pos_take(&p, T3));  /* a second line at T3 */
    assert_int_equal(p.seen, 2);
}

static void
test_since_is_seconds_dot_nanoseconds(void **state)
{
    char out[40];
    struct err e = { 0 };

    (void)state;
    assert_int_equal(
        inv_audit_since("1970-01-01T00:00:00.000000000Z", out, sizeof(out), &e),
        0);
    assert_string_equal(out, "0.000000000");
    assert_int_equal(
        inv_audit_since("2026-12-07T12:13:58.123456789Z", out, sizeof(out), &e),
        0);
    assert_string_equal(out, "1796645638.123456789");
    assert_int_equal(
        inv_audit_since("2026-12-07T12:13:58.12345678Z", out, sizeof(out), &e),
        -1);
    assert_int_equal(e.code, ERR_INVALID);
    assert_int_equal(
        inv_audit_since("2026-12-07 12:13:58.123456789Z", out, sizeof(out), &e),
        -1);
    assert_int_equal(inv_audit_since(NULL, out, sizeof(out), &e), -1);
    assert_int_equal(
        inv_audit_since("2026-12-07T12:13:58.123456789Z", out, 8, &e), -1);
    assert_int_equal(e.code, ERR_LIMIT);
}

/* Docker's prefix, in UTC or in the daemon's zone: one canonical form. */
static void
test_ts_take_canonical_utc(void **state)
{
    static const struct {
        const char *line;
        size_t took;
        const char *want;
    } cases[] = {
        { "2026-12-07T12:13:58.123456789Z {}", 31,
          "2026-12-07T12:13:58.123456789Z" },
        { "2026-12-07T13:13:58.123456789+01:00 {}", 36,
          "2026-12-07T12:13:58.123456789Z" },
        { "2026-12-31T23:30:00.000000001-01:00 x", 36,
          "2027-01-01T00:30:00.000000001Z" },
        { "2026-12-07T12:13:58.123456789Z{}", 0, NULL },
        { "2026-12-07T12:13:58.12345678Z {}", 0, NULL },
        { "2026-12-07T12:13:58.123456789+0100 {}", 0, NULL },
        { "{\"msg\":\"tunnel\"}", 0, NULL },
        { "2026-12-07T12:13:58.123456789Z", 0, NULL },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[CTL_AUDIT_TS_LEN + 1] = "";

        assert_int_equal(
            inv_audit_ts_take(cases[i].line, strlen(cases[i].line), out),
            cases[i].took);
        if (cases[i].want != NULL)
            assert_string_equal(out, cases[i].want);
    }
}

struct lines {
    char got[8][64];
    bool over[8];
    size_t len[8];
    size_t n;
};

static void
on_line(const char *line, size_t len, bool over, void *arg)
{
    struct lines *l = arg;

    assert_true(l->n < 8);
    snprintf(l->got[l->n], sizeof(l->got[0]), "%.40s", line);
    l->len[l->n] = len;
    l->over[l->n++] = over;
}

/* Fed one byte at a time or all at once, the same lines. */
static void
test_framer_any_chunking(void **state)
{
    static const char in[] = "a\n\nbc\nd";

    (void)state;
    for (size_t step = 1; step <= sizeof(in) - 1; step++) {
        struct inv_audit_framer f;
        struct lines l = { 0 };

        inv_audit_framer_init(&f);
        for (size_t i = 0; i < sizeof(in) - 1; i += step) {
            size_t n = sizeof(in) - 1 - i < step ? sizeof(in) - 1 - i : step;

            inv_audit_framer_feed(&f, in + i, n, on_line, &l);
        }
        assert_int_equal(l.n, 3);
        assert_string_equal(l.got[0], "a");
        assert_string_equal(l.got[1], "");
        assert_string_equal(l.got[2], "bc");
        assert_int_equal(f.len, 1); /* "d" waits for its newline */
    }
}

static void
test_framer_long_line_reported_once_as_over(void **state)
{
    static char big[CTL_AUDIT_FRAME_MAX + 100];
    struct inv_audit_framer f;
    struct lines l = { 0 };

    (void)state;
    memset(big, 'x', sizeof(big));
    inv_audit_framer_init(&f);
    inv_audit_framer_feed(&f, big, sizeof(big), on_line, &l);
    inv_audit_framer_feed(&f, "\nok\n", 4, on_line, &l);
    assert_int_equal(l.n, 2);
    assert_true(l.over[0]);
    assert_int_equal(l.len[0], CTL_AUDIT_FRAME_MAX);
    assert_false(l.over[1]);
    assert_string_equal(l.got[1], "ok");
    /* exactly at the cap is not over */
    inv_audit_framer_feed(&f, big, CTL_AUDIT_FRAME_MAX, on_line, &l);
    inv_audit_framer_feed(&f, "\n", 1, on_line, &l);
    assert_false(l.over[2]);
}

static void
test_judge(void **state)
{
    static const struct {
        const char *line;
        enum inv_audit_verdict want;
    } cases[] = {
        { "{\"msg\":\"tunnel\",\"status\":403}", CTL_AUDIT_KEEP },
        { "{\"msg\":\"listening\"}", CTL_AUDIT_OTHER },
        { "{\"msg\":\"tunnel\",\"status\":403", CTL_AUDIT_BAD },
        { "{\"msg\":\"tunnel\"} {}", CTL_AUDIT_BAD },
        { "{\"msg\":\"tunnel\",\"t\":\"\xff\"}", CTL_AUDIT_BAD },
        { "{\"msg\":\"tunnel\",\"t\":\"\xc0\xaf\"}", CTL_AUDIT_BAD },
        { "{\"msg\":\"tunnel\",\"t\":\"\xed\xa0\x80\"}", CTL_AUDIT_BAD },
        { "{\"msg\":\"tunnel\",\"t\":\"\xc3\xa9\"}", CTL_AUDIT_KEEP },
        { "{\"msg\":\"tunnel\",\"t\":\"a\tb\"}", CTL_AUDIT_BAD },
        { "[\"msg\":\"tunnel\"]", CTL_AUDIT_BAD },
        { " {\"msg\":\"tunnel\"}", CTL_AUDIT_BAD },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(inv_audit_judge(cases[i].line, strlen(cases[i].line),
                                         "\"msg\":\"tunnel\""),
                         cases[i].want);
    }
}

static void
test_render_source_and_redaction(void **state)
{
    struct buf b;
    struct err e = { 0 };

    (void)state;
    buf_init(&b, 150);
    assert_int_equal(inv_audit_render(&b, "proxy",
                                      "{\"msg\":\"tunnel\",\"target\":"
                                      "\"sk-KEY.example:443/sk-KEY\"}",
                                      "sk-KEY", &e),
                     0);
    assert_string_equal(b.data,
                        "{\"source\":\"proxy\",\"msg\":\"tunnel\",\"target\":"
                        "\"<redacted>.example:443/<redacted>\"}\n");
    /* a secret that spans the syntax: nothing written */
    assert_int_equal(inv_audit_render(&b, "proxy",
                                      "{\"msg\":\"tunnel\",\"s\":1}", "\",\"s",
                                      &e),
                     -1);
    assert_int_equal(e.code, ERR_SYNTAX);
    assert_int_equal(b.len, strlen(b.data));
    assert_null(strstr(b.data, "\"s\":1"));
    /* over the buffer's cap: nothing written either */
    assert_int_equal(inv_audit_render(&b, "gateway",
                                      "{\"msg\":\"request\",\"path\":"
                                      "\"/v1/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                                      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                                      "\"}",
                                      NULL, &e),
                     -1);
    assert_int_equal(e.code, ERR_LIMIT);
    assert_null(strstr(b.data, "gateway"));
    buf_cleanup(&b);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_takes_every_line_once),
        cmocka_unit_test(test_resend_within_a_read_taken_once),
        cmocka_unit_test(test_since_is_seconds_dot_nanoseconds),
        cmocka_unit_test(test_ts_take_canonical_utc),
        cmocka_unit_test(test_framer_any_chunking),
        cmocka_unit_test(test_framer_long_line_reported_once_as_over),
        cmocka_unit_test(test_judge),
        cmocka_unit_test(test_render_source_and_redaction),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
