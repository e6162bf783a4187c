/* fuzz_rc_output.c - libFuzzer target for the output sink (rc_output):
 * redaction, the byte limit and strict UTF-8 across chunk boundaries.
 *
 * Input layout: byte 0 = secret length (0..15, 0 = no redaction), byte 1
 * = limit, byte 2 = chunk size seed, then the secret, then the stream.
 * The stream is fed in chunks and the file must equal what a simple
 * whole-buffer reference computes (redact with memmem, then cut at the
 * limit or at the first ill-formed sequence), so the incremental code is
 * checked against a non-incremental one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rc_output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Length of the valid character at p[0..n), 0 if ill-formed or cut. */
static size_t
ref_char(const uint8_t *p, size_t n)
{
    uint32_t cp;
    size_t len, i;

    if (p[0] < 0x80)
        return 1;
    if ((p[0] & 0xe0) == 0xc0)
        len = 2, cp = p[0] & 0x1f;
    else if ((p[0] & 0xf0) == 0xe0)
        len = 3, cp = p[0] & 0x0f;
    else if ((p[0] & 0xf8) == 0xf0)
        len = 4, cp = p[0] & 0x07;
    else
        return 0;
    if (n < len)
        return 0;
    for (i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
        (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* The expected file: redact, then keep whole valid characters while they
 * end at or before the limit. */
static size_t
ref_output(const uint8_t *in, size_t n, const uint8_t *sec, size_t slen,
           size_t max, uint8_t *out)
{
    uint8_t *red = malloc(n * 10 + 1);
    size_t rn = 0, i = 0, len, o = 0;
    const uint8_t *m;

    while (i < n) {
        m = slen ? memmem(in + i, n - i, sec, slen) : NULL;
        if (m == NULL) {
            memcpy(red + rn, in + i, n - i);
            rn += n - i;
            break;
        }
        memcpy(red + rn, in + i, (size_t)(m - (in + i)));
        rn += (size_t)(m - (in + i));
        memcpy(red + rn, RC_OUTPUT_REDACTED, 10);
        rn += 10;
        i = (size_t)(m - in) + slen;
    }
    for (i = 0; i < rn; i += len) {
        len = ref_char(red + i, rn - i);
        if (len == 0 || i + len > max)
            break;
        memcpy(out + o, red + i, len);
        o += len;
    }
    free(red);
    return o;
}

/* One scratch file for the whole run (rc_output_open truncates it),
 * removed at exit; on tmpfs when there is one, which is 8x faster here
 * than truncating a file on disk at each input. */
static char path[64];

static void
fuzz_cleanup(void)
{
    unlink(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rc_output o;
    struct rc_output_result r;
    size_t slen, max, chunk, n, i, want_len, got_len;
    const uint8_t *sec, *in;
    uint8_t *want, *got;
    int fd;
    FILE *f;

    if (size < 3)
        return 0;
    slen = data[0] % 16;
    max = data[1];
    chunk = data[2] % 17 + 1;
    if (size < 3 + slen)
        return 0;
    sec = data + 3;
    in = sec + slen;
    n = size - 3 - slen;
    if (path[0] == '\0') {
        snprintf(path, sizeof(path), "/dev/shm/fuzz-rc-output-XXXXXX");
        fd = mkstemp(path);
        if (fd == -1) {
            snprintf(path, sizeof(path), "/tmp/fuzz-rc-output-XXXXXX");
            fd = mkstemp(path);
        }
        if (fd == -1)
            abort();
        close(fd);
        atexit(fuzz_cleanup);
    }
    if (rc_output_open(path, max, &o, NULL) == -1)
        abort();
    if (slen > 0 && rc_output_redact(&o, sec, slen, NULL) == -1)
        abort();
    for (i = 0; i < n; i += chunk)
        rc_output_write(&o, in + i, n - i < chunk ? n - i : chunk);
    if (rc_output_close(&o, &r, NULL) == -1)
        abort();

    want = malloc(n * 10 + 1);
    got = malloc(max + 2);
    want_len = ref_output(in, n, sec, slen, max, want);
    f = fopen(path, "rb");
    if (f == NULL)
        abort();
    got_len = fread(got, 1, max + 1, f);
    fclose(f);
    if (got_len != want_len || r.bytes != got_len ||
        memcmp(got, want, got_len) != 0)
        abort();
    if (r.status == RC_OUTPUT_LIMIT && !r.truncated)
        abort();
    free(want);
    free(got);
    return 0;
}
