/* test_rc_output.c - the output sink: the limit is exact, UTF-8 is checked
 * across any chunking with the right offset, the sha256 is of the file,
 * a secret is redacted wherever the chunks cut it, and Docker log frames
 * feed it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "rc_output.h"

struct fx {
    char dir[64];
    char path[96];
    char got[4096];
    size_t got_len;
};

static int
setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    if (f == NULL)
        return -1;
    snprintf(f->dir, sizeof(f->dir), "/tmp/rc-out-XXXXXX");
    if (mkdtemp(f->dir) == NULL) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof(f->path), "%s/out.log", f->dir);
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fx *f = *state;
    char p[128];

    unlink(f->path);
    snprintf(p, sizeof(p), "%s/link.log", f->dir);
    unlink(p);
    if (rmdir(f->dir) != 0)
        return -1;
    free(f);
    return 0;
}

static void
read_back(struct fx *f)
{
    FILE *fp = fopen(f->path, "rb");

    assert_non_null(fp);
    f->got_len = fread(f->got, 1, sizeof(f->got) - 1, fp);
    f->got[f->got_len] = '\0';
    fclose(fp);
}

/* Independent hex sha256 of p[0..n) (one-shot EVP_Digest). */
static void
sha_hex(const void *p, size_t n, char out[65])
{
    unsigned char md[32];
    unsigned len = 0, i;

    assert_int_equal(EVP_Digest(p, n, md, &len, EVP_sha256(), NULL), 1);
    assert_int_equal(len, 32);
    for (i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* Capture input cut at a and b (a <= b <= n) into f->path. */
static void
capture(struct fx *f, const char *secret, uint64_t max, const char *in,
        size_t n, size_t a, size_t b, struct rc_output_result *r)
{
    struct rc_output o;
    struct err e = { 0 };

    assert_int_equal(rc_output_open(f->path, max, &o, &e), 0);
    if (secret != NULL)
        assert_int_equal(rc_output_redact(&o, secret, strlen(secret), &e), 0);
    rc_output_write(&o, in, a);
    rc_output_write(&o, in + a, b - a);
    rc_output_write(&o, in + b, n - b);
    assert_int_equal(rc_output_close(&o, r, &e), 0);
    read_back(f);
    assert_int_equal(r->bytes, f->got_len);
}

static void
test_rc_output_exactly_at_limit_is_not_truncated(void **state)
{
    struct fx *f = *state;
    struct rc_output_result r;

    capture(f, NULL, 10, "0123456789", 10, 3, 7, &r);
    assert_int_equal(r.status, RC_OUTPUT_OK);
    assert_false(r.truncated);
    assert_string_equal(f->got, "0123456789");
    assert_int_equal(r.bad_offset, RC_OUTPUT_NO_BAD);
}

static void
test_rc_output_one_byte_over_truncates_at_limit(void **state)
{
    struct fx *f = *state;
    struct rc_output_result r;
    struct rc_output o;
    struct err e = { 0 };

    capture(f, NULL, 10, "0123456789X", 11, 10, 10, &r);
    assert_int_equal(r.status, RC_OUTPUT_LIMIT);
    assert_true(r.truncated);
    assert_int_equal(r.bytes, 10);
    assert_string_equal(f->got, "0123456789");

    /* Input after the stop is dropped and the status stays. */
    assert_int_equal(rc_output_open(f->path, 2, &o, &e), 0);
    assert_int_equal(rc_output_write(&o, "ab", 2), RC_OUTPUT_OK);
    assert_int_equal(rc_output_write(&o, "c", 1), RC_OUTPUT_LIMIT);
    assert_non_null(strstr(o.err.msg, "limit of 2 bytes"));
    assert_int_equal(rc_output_write(&o, "d", 1), RC_OUTPUT_LIMIT);
    assert_int_equal(rc_output_close(&o, &r, &e), 0);
    read_back(f);
    assert_string_equal(f->got, "ab");
    assert_int_equal(rc_output_close(&o, &r, &e), -1);
    assert_int_equal(e.code, ERR_INVALID);

    /* A character that would straddle the limit is not cut in half. */
    capture(f, NULL, 3, "ab\xc3\xa9", 4, 4, 4, &r);
    assert_int_equal(r.status, RC_OUTPUT_LIMIT);
    assert_string_equal(f->got, "ab");
    capture(f, NULL, 0, "", 0, 0, 0, &r);
    assert_int_equal(r.status, RC_OUTPUT_OK);
    assert_int_equal(r.bytes, 0);
}

static void
test_rc_output_utf8_split_anywhere_passes(void **state)
{
    struct fx *f = *state;
    static const char in[] = "a\xf0\x9f\x98\x80\xe2\x82\xac\xc3\xa9z";
    size_t n = sizeof(in) - 1, a, b;
    struct rc_output_result r;

    for (a = 0; a <= n; a++) {
        for (b = a; b <= n; b++) {
            capture(f, NULL, 100, in, n, a, b, &r);
            assert_int_equal(r.status, RC_OUTPUT_OK);
            assert_int_equal(r.bytes, n);
            assert_memory_equal(f->got, in, n);
        }
    }
}

struct bad_case {
    const char *in;
    size_t len;
    uint64_t bad; /* RC_OUTPUT_NO_BAD: valid */
};

#define BC(s, b)                                                               \
    {                                                                          \
        s, sizeof(s) - 1, b                                                    \
    }

static const struct bad_case bad_cases[] = {
    BC("ab\x80", 2),             /* stray continuation */
    BC("a\xc0\x80", 1),          /* overlong NUL */
    BC("a\xc1\xbf", 1),          /* overlong 2-byte */
    BC("\xe0\x80\x80", 0),       /* overlong 3-byte */
    BC("\xe0\x9f\xbf", 0),       /* overlong U+07FF */
    BC("xx\xed\xa0\x80", 2),     /* surrogate U+D800 */
    BC("x\xed\xbf\xbf", 1),      /* surrogate U+DFFF */
    BC("\xf0\x80\x80\x80", 0),   /* overlong 4-byte */
    BC("\xf0\x8f\xbf\xbf", 0),   /* overlong U+FFFF */
    BC("ok\xf4\x90\x80\x80", 2), /* U+110000 */
    BC("\xf5\x80\x80\x80", 0),   /* lead above F4 */
    BC("\xff", 0),
    BC("\xe2\x82\x41zz", 0),       /* cut by an ASCII byte */
    BC("\xf0\x9f\x98\xc3\xa9", 0), /* cut by another lead */
    BC("abc\xe2\x82", 3),          /* cut by the end */
    BC("abc\xf0", 3),
    BC("\xc2\x80\xdf\xbf", RC_OUTPUT_NO_BAD),
    BC("\xed\x9f\xbf\xee\x80\x80", RC_OUTPUT_NO_BAD), /* around surrogates */
    BC("\xef\xbf\xbf\xf4\x8f\xbf\xbf", RC_OUTPUT_NO_BAD),
    BC("\xf0\x90\x80\x80", RC_OUTPUT_NO_BAD),
};

static void
test_rc_output_invalid_utf8_stops_at_its_first_byte(void **state)
{
    struct fx *f = *state;
    struct rc_output_result r;
    size_t i, a;

    for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        const struct bad_case *c = &bad_cases[i];
        for (a = 0; a <= c->len; a++) {
            capture(f, NULL, 100, c->in, c->len, a, a, &r);
            if (r.bad_offset != c->bad)
                fail_msg("case %zu split %zu: bad offset %llu, want %llu", i, a,
                         (unsigned long long)r.bad_offset,
                         (unsigned long long)c->bad);
            if (c->bad == RC_OUTPUT_NO_BAD) {
                assert_int_equal(r.status, RC_OUTPUT_OK);
                assert_int_equal(r.bytes, c->len);
            } else {
                assert_int_equal(r.status, RC_OUTPUT_CAPTURE_FAILURE);
                assert_int_equal(r.bytes, c->bad);
                assert_false(r.truncated);
            }
            assert_memory_equal(f->got, c->in, r.bytes);
        }
    }
}

static void
test_rc_output_sha256_is_of_the_file(void **state)
{
    struct fx *f = *state;
    struct rc_output_result r;
    char want[65];
    static const char big[] = "h\xc3\xa9llo, world\n";
    struct rc_output o;
    struct err e = { 0 };
    size_t i;

    capture(f, NULL, 100, "abc", 3, 1, 2, &r);
    assert_string_equal(
        r.sha256,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");

    /* Past one internal chunk, then cut by the limit. */
    assert_int_equal(rc_output_open(f->path, 3000, &o, &e), 0);
    for (i = 0; i < 300; i++)
        rc_output_write(&o, big, sizeof(big) - 1);
    assert_int_equal(rc_output_close(&o, &r, &e), 0);
    assert_int_equal(r.status, RC_OUTPUT_LIMIT);
    read_back(f);
    assert_true(r.bytes <= 3000 && r.bytes > 2990);
    sha_hex(f->got, f->got_len, want);
    assert_string_equal(r.sha256, want);

    capture(f, NULL, 100, "", 0, 0, 0, &r);
    assert_string_equal(
        r.sha256,
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void
test_rc_output_secret_redacted_at_every_split(void **state)
{
    struct fx *f = *state;
    static const char sec[] = "s3cr3t-KEY";
    static const char in[] = "before s3cr3t-KEY mid s3cr3t-KEYs3cr3t-KEY"
                             "ss3cr3t-KEY end s3cr3t-KE";
    static const char want[] = "before <redacted> mid <redacted><redacted>"
                               "s<redacted> end s3cr3t-KE";
    size_t n = sizeof(in) - 1, a, b;
    struct rc_output_result r;

    for (a = 0; a <= n; a++) {
        for (b = a; b <= n; b += 3) {
            capture(f, sec, 1000, in, n, a, b, &r);
            assert_int_equal(r.status, RC_OUTPUT_OK);
            assert_string_equal(f->got, want);
        }
    }
    /* Negative control: without redaction the secret is stored. */
    capture(f, NULL, 1000, in, n, 5, 9, &r);
    assert_non_null(strstr(f->got, sec));
}

static void
test_rc_output_secret_byte_by_byte_and_single_byte(void **state)
{
    struct fx *f = *state;
    static const char in[] = "xxTOKxTOTOKTOK";
    struct rc_output o;
    struct rc_output_result r;
    struct err e = { 0 };
    size_t i;

    assert_int_equal(rc_output_open(f->path, 1000, &o, &e), 0);
    assert_int_equal(rc_output_redact(&o, "TOK", 3, &e), 0);
    for (i = 0; i < sizeof(in) - 1; i++)
        assert_int_equal(rc_output_write(&o, in + i, 1), RC_OUTPUT_OK);
    assert_int_equal(rc_output_close(&o, &r, &e), 0);
    read_back(f);
    assert_string_equal(f->got, "xx<redacted>xTO<redacted><redacted>");

    capture(f, "a", 1000, "banana", 6, 2, 3, &r);
    assert_string_equal(f->got, "b<redacted>n<redacted>n<redacted>");

    assert_int_equal(rc_output_open(f->path, 10, &o, &e), 0);
    assert_int_equal(rc_output_redact(&o, "", 0, &e), -1);
    assert_int_equal(rc_output_write(&o, "x", 1), RC_OUTPUT_OK);
    assert_int_equal(rc_output_redact(&o, "x", 1, &e), -1);
    assert_int_equal(rc_output_close(&o, &r, &e), 0);
}

static size_t
frame(unsigned char *p, int stream, const char *payload, size_t n)
{
    p[0] = (unsigned char)stream;
    p[1] = p[2] = p[3] = 0;
    p[4] = (unsigned char)(n >> 24);
    p[5] = (unsigned char)(n >> 16);
    p[6] = (unsigned char)(n >> 8);
    p[7] = (unsigned char)n;
    memcpy(p + 8, payload, n);
    return 8 + n;
}

static void
test_rc_output_docker_log_frames(void **state)
{
    struct fx *f = *state;
    unsigned char body[256];
    size_t n = 0, i;
    struct rc_output o;
    struct rc_output_result r;
    struct err e = { 0 };

    n += frame(body + n, 2, "err1\n", 5);
    n += frame(body + n, 1, "out1 \xe2\x82", 7);
    n += frame(body + n, 1, "\xac\n", 2);
    assert_int_equal(rc_output_open(f->path, 100, &o, &e), 0);
    for (i = 0; i < n; i++)
        assert_int_equal(rc_output_feed_logs(&o, body + i, 1), RC_OUTPUT_OK);
    assert_int_equal(rc_output_close(&o, &r, &e), 0);
    assert_int_equal(r.status, RC_OUTPUT_OK);
    read_back(f);
    assert_string_equal(f->got, "err1\nout1 \xe2\x82\xac\n");

    /* A raw (Tty:true) stream is not frames. */
    assert_int_equal(rc_output_open(f->path, 100, &o, &e), 0);
    assert_int_equal(rc_output_feed_logs(&o, "hello world\n", 12),
                     RC_OUTPUT_CAPTURE_FAILURE);
    assert_non_null(strstr(o.err.msg, "log stream"));
    assert_int_equal(rc_output_close(&o, &r, &e), 0);
    assert_int_equal(r.bytes, 0);

    /* A stream cut inside a frame. */
    assert_int_equal(rc_output_open(f->path, 100, &o, &e), 0);
    assert_int_equal(rc_output_feed_logs(&o, body, 10), RC_OUTPUT_OK);
    assert_int_equal(rc_output_close(&o, &r, &e), 0);
    assert_int_equal(r.status, RC_OUTPUT_CAPTURE_FAILURE);
    assert_int_equal(r.bytes, 2);
}

static void
test_rc_output_open_refuses_symlink(void **state)
{
    struct fx *f = *state;
    char link[128];
    struct rc_output o;
    struct err e = { 0 };

    snprintf(link, sizeof(link), "%s/link.log", f->dir);
    assert_int_equal(symlink("/dev/null", link), 0);
    assert_int_equal(rc_output_open(link, 10, &o, &e), -1);
    assert_int_equal(e.code, ERR_IO);
    assert_string_equal(rc_output_status_name(RC_OUTPUT_LIMIT), "output-limit");
    assert_string_equal(rc_output_status_name(RC_OUTPUT_CAPTURE_FAILURE),
                        "capture-failure");
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int
main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_rc_output_exactly_at_limit_is_not_truncated),
        T(test_rc_output_one_byte_over_truncates_at_limit),
        T(test_rc_output_utf8_split_anywhere_passes),
        T(test_rc_output_invalid_utf8_stops_at_its_first_byte),
        T(test_rc_output_sha256_is_of_the_file),
        T(test_rc_output_secret_redacted_at_every_split),
        T(test_rc_output_secret_byte_by_byte_and_single_byte),
        T(test_rc_output_docker_log_frames),
        T(test_rc_output_open_refuses_symlink),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
