/* test_dk_logs.c - the multiplexed logs decoder (dk_logs_demux_*): any
 * chunking gives the same (stream, bytes), bad or cut input is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dk.h"

struct seen {
    char out[256], err[256];
    size_t out_len, err_len;
    int pieces;
};

static void
on_piece(int stream, const char *data, size_t len, void *arg)
{
    struct seen *s = arg;
    char *dst = stream == 2 ? s->err : s->out;
    size_t *n = stream == 2 ? &s->err_len : &s->out_len;

    assert_true(stream == 1 || stream == 2);
    assert_true(*n + len < sizeof(s->out));
    memcpy(dst + *n, data, len);
    *n += len;
    dst[*n] = '\0';
    s->pieces++;
}

static size_t
frame(unsigned char *p, int stream, const char *payload)
{
    size_t n = strlen(payload);

    p[0] = (unsigned char)stream;
    p[1] = p[2] = p[3] = 0;
    p[4] = (unsigned char)(n >> 24);
    p[5] = (unsigned char)(n >> 16);
    p[6] = (unsigned char)(n >> 8);
    p[7] = (unsigned char)n;
    memcpy(p + 8, payload, n);
    return 8 + n;
}

/* The capture from docs/docker-notes.md section 7 plus an empty frame. */
static size_t
sample(unsigned char *p)
{
    size_t n = 0;

    n += frame(p + n, 2, "err1\n");
    n += frame(p + n, 1, "out1\n");
    n += frame(p + n, 1, "");
    n += frame(p + n, 1, "out2 is a longer line\n");
    n += frame(p + n, 2, "err2\n");
    return n;
}

static void
test_dk_logs_demux_one_byte_at_a_time(void **state)
{
    unsigned char buf[256];
    size_t n = sample(buf), i;
    struct dk_logs_demux d;
    struct seen s = { 0 };
    struct err e = { 0 };

    (void)state;
    dk_logs_demux_init(&d);
    for (i = 0; i < n; i++)
        assert_int_equal(dk_logs_demux_feed(&d, buf + i, 1, on_piece, &s, &e),
                         0);
    assert_int_equal(dk_logs_demux_end(&d, &e), 0);
    assert_string_equal(s.out, "out1\nout2 is a longer line\n");
    assert_string_equal(s.err, "err1\nerr2\n");
    /* one call per payload byte: nothing was held back or merged */
    assert_int_equal(s.pieces, (int)(s.out_len + s.err_len));
}

static void
test_dk_logs_demux_whole_buffer_and_every_split(void **state)
{
    unsigned char buf[256];
    size_t n = sample(buf), cut;
    struct err e = { 0 };

    (void)state;
    for (cut = 0; cut <= n; cut++) {
        struct dk_logs_demux d;
        struct seen s = { 0 };

        dk_logs_demux_init(&d);
        assert_int_equal(dk_logs_demux_feed(&d, buf, cut, on_piece, &s, &e), 0);
        assert_int_equal(
            dk_logs_demux_feed(&d, buf + cut, n - cut, on_piece, &s, &e), 0);
        assert_int_equal(dk_logs_demux_end(&d, &e), 0);
        assert_string_equal(s.out, "out1\nout2 is a longer line\n");
        assert_string_equal(s.err, "err1\nerr2\n");
    }
}

static void
test_dk_logs_demux_refuses_tty_stream(void **state)
{
    static const char raw[] = "hello from a tty\r\n";
    struct dk_logs_demux d;
    struct seen s = { 0 };
    struct err e = { 0 };

    (void)state;
    dk_logs_demux_init(&d);
    assert_int_equal(
        dk_logs_demux_feed(&d, raw, sizeof(raw) - 1, on_piece, &s, &e), -1);
    assert_int_equal(e.code, ERR_SYNTAX);
    assert_non_null(strstr(e.msg, "not multiplexed"));
    assert_int_equal(s.pieces, 0);
    /* once failed, it stays failed */
    assert_int_equal(dk_logs_demux_feed(&d, "", 0, on_piece, &s, &e), -1);
    assert_int_equal(dk_logs_demux_end(&d, &e), -1);
}

static void
test_dk_logs_demux_end_inside_frame_is_error(void **state)
{
    unsigned char buf[64];
    size_t n = frame(buf, 1, "abcdef");
    struct dk_logs_demux d;
    struct seen s = { 0 };
    struct err e = { 0 };

    (void)state;
    dk_logs_demux_init(&d);
    assert_int_equal(dk_logs_demux_feed(&d, buf, n - 2, on_piece, &s, &e), 0);
    assert_int_equal(dk_logs_demux_end(&d, &e), -1);
    assert_int_equal(e.code, ERR_SYNTAX);
    assert_non_null(strstr(e.msg, "2 payload bytes missing"));
    dk_logs_demux_init(&d);
    assert_int_equal(dk_logs_demux_feed(&d, buf, 5, on_piece, &s, &e), 0);
    assert_int_equal(dk_logs_demux_end(&d, &e), -1);
    assert_non_null(strstr(e.msg, "3 header bytes"));
}

static void
count_bytes(int stream, const char *data, size_t len, void *arg)
{
    size_t *total = arg;

    (void)data;
    assert_int_equal(stream, 1);
    *total += len;
}

static void
test_dk_logs_demux_big_frame_length_is_big_endian(void **state)
{
    size_t len = 70000, total = 0;
    unsigned char *buf = calloc(1, 8 + len);
    struct dk_logs_demux d;
    struct err e = { 0 };

    (void)state;
    assert_non_null(buf);
    buf[0] = 1;
    buf[5] = 0x01; /* 0x011170 = 70000 */
    buf[6] = 0x11;
    buf[7] = 0x70;
    dk_logs_demux_init(&d);
    assert_int_equal(
        dk_logs_demux_feed(&d, buf, 8 + len - 1, count_bytes, &total, &e), 0);
    assert_int_equal(total, len - 1);
    assert_int_equal(dk_logs_demux_end(&d, &e), -1);
    assert_int_equal(
        dk_logs_demux_feed(&d, buf + 8 + len - 1, 1, count_bytes, &total, &e),
        0);
    assert_int_equal(total, len);
    assert_int_equal(dk_logs_demux_end(&d, &e), 0);
    free(buf);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dk_logs_demux_one_byte_at_a_time),
        cmocka_unit_test(test_dk_logs_demux_whole_buffer_and_every_split),
        cmocka_unit_test(test_dk_logs_demux_refuses_tty_stream),
        cmocka_unit_test(test_dk_logs_demux_end_inside_frame_is_error),
        cmocka_unit_test(test_dk_logs_demux_big_frame_length_is_big_endian),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
