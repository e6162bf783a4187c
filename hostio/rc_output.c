/* rc_output.c - the output sink: redact, cap, validate UTF-8, hash, write.
 * Each stage sees bytes exactly once and keeps its own small state, so a
 * chunk may be cut anywhere (the header says how each stage decides). */
#include "rc_output.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

static int
out_flush(struct rc_output *o)
{
    size_t done = 0;
    ssize_t r;

    while (done < o->out_len) {
        r = write(o->fd, o->out + done, o->out_len - done);
        if (r == -1 && errno == EINTR)
            continue;
        if (r == -1) {
            err_sys(&o->err, "output file: write");
            o->status = RC_OUTPUT_IO_ERROR;
            return -1;
        }
        done += (size_t)r;
    }
    if (o->out_len > 0 && EVP_DigestUpdate(o->sha, o->out, o->out_len) != 1) {
        err_set(&o->err, ERR_NOMEM, "output file: sha256 failed");
        o->status = RC_OUTPUT_IO_ERROR;
        return -1;
    }
    o->written += o->out_len;
    o->out_len = 0;
    return 0;
}

/* Emit one whole, valid character. */
static void
out_char(struct rc_output *o, const unsigned char *c, unsigned n)
{
    if (o->out_len + n > sizeof(o->out) && out_flush(o) == -1)
        return;
    memcpy(o->out + o->out_len, c, n);
    o->out_len += n;
}

static void
out_bad(struct rc_output *o, uint64_t at)
{
    o->status = RC_OUTPUT_CAPTURE_FAILURE;
    o->bad_offset = at;
    err_set(&o->err, ERR_SYNTAX,
            "output is not strict UTF-8: ill-formed sequence at byte %" PRIu64,
            at);
}

/* Length of the character a lead byte starts; 0 if it starts none. */
static unsigned
utf8_lead_len(unsigned char b)
{
    if (b < 0x80)
        return 1;
    if (b >= 0xc2 && b <= 0xdf)
        return 2;
    if (b >= 0xe0 && b <= 0xef)
        return 3;
    if (b >= 0xf0 && b <= 0xf4)
        return 4;
    return 0; /* continuation, overlong C0/C1, or F5..FF */
}

/* Is b allowed as the byte after lead (RFC 3629 table 3)? The tight
 * ranges after E0, ED, F0 and F4 are what exclude overlongs, surrogates
 * and code points above U+10FFFF. */
static int
utf8_second_ok(unsigned char lead, unsigned char b)
{
    switch (lead) {
    case 0xe0:
        return b >= 0xa0 && b <= 0xbf;
    case 0xed:
        return b >= 0x80 && b <= 0x9f;
    case 0xf0:
        return b >= 0x90 && b <= 0xbf;
    case 0xf4:
        return b >= 0x80 && b <= 0x8f;
    default:
        return b >= 0x80 && b <= 0xbf;
    }
}

static void
utf8_byte(struct rc_output *o, unsigned char b)
{
    int ok;

    if (o->seq_len == 0) {
        o->seq_need = utf8_lead_len(b);
        if (o->seq_need == 0) {
            out_bad(o, o->in_off);
            return;
        }
    } else {
        ok = o->seq_len == 1 ? utf8_second_ok(o->seq[0], b)
                             : (b >= 0x80 && b <= 0xbf);
        if (!ok) {
            out_bad(o, o->in_off - o->seq_len);
            return;
        }
    }
    o->seq[o->seq_len++] = b;
    o->in_off++;
    if (o->seq_len == o->seq_need) {
        out_char(o, o->seq, o->seq_len);
        o->seq_len = 0;
    }
}

/* Stage 2 and 3: the limit, then UTF-8. in_off counts every byte let in,
 * held or written, so the byte at offset max_bytes is the first past the
 * limit whatever characters are still incomplete. */
static void
utf8_feed(struct rc_output *o, const unsigned char *p, size_t n)
{
    size_t i;

    for (i = 0; i < n && o->status == RC_OUTPUT_OK; i++) {
        if (o->in_off >= o->max_bytes) {
            o->truncated = 1;
            o->status = RC_OUTPUT_LIMIT;
            err_set(&o->err, ERR_LIMIT,
                    "output reached its limit of %" PRIu64 " bytes",
                    o->max_bytes);
            return;
        }
        utf8_byte(o, p[i]);
    }
}

/* Stage 1 on the window work[0..work_len): pass on everything that cannot
 * be the start of a secret, keep the last secret_len - 1 bytes unless
 * final. */
static void
redact_window(struct rc_output *o, int final)
{
    static const char mark[] = RC_OUTPUT_REDACTED;
    size_t pos = 0, keep = final ? 0 : o->secret_len - 1, tail;
    unsigned char *m;

    while ((m = memmem(o->work + pos, o->work_len - pos, o->secret,
                       o->secret_len)) != NULL) {
        utf8_feed(o, o->work + pos, (size_t)(m - (o->work + pos)));
        utf8_feed(o, (const unsigned char *)mark, sizeof(mark) - 1);
        pos = (size_t)(m - o->work) + o->secret_len;
    }
    tail = o->work_len > keep ? o->work_len - keep : 0;
    if (tail < pos)
        tail = pos;
    utf8_feed(o, o->work + pos, tail - pos);
    memmove(o->work, o->work + tail, o->work_len - tail);
    o->work_len -= tail;
}

int
rc_output_open(const char *path, uint64_t max_bytes, struct rc_output *o,
               struct err *e)
{
    memset(o, 0, sizeof(*o));
    o->max_bytes = max_bytes;
    o->bad_offset = RC_OUTPUT_NO_BAD;
    dk_logs_demux_init(&o->demux);
    o->sha = EVP_MD_CTX_new();
    if (o->sha == NULL || EVP_DigestInit_ex(o->sha, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(o->sha);
        return err_set(e, ERR_NOMEM, "output: cannot start sha256");
    }
    o->fd =
        open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (o->fd == -1) {
        err_sys(e, "output file %s", path);
        EVP_MD_CTX_free(o->sha);
        return -1;
    }
    return 0;
}

int
rc_output_redact(struct rc_output *o, const void *secret, size_t len,
                 struct err *e)
{
    if (len == 0 || len > RC_OUTPUT_SECRET_MAX)
        return err_set(e, ERR_INVALID, "secret to redact must be 1..%u bytes",
                       RC_OUTPUT_SECRET_MAX);
    if (o->secret != NULL || o->in_off > 0)
        return err_set(e, ERR_INVALID,
                       "redaction must be set once, before any output");
    o->secret = malloc(len);
    o->work = malloc(len - 1 + RC_OUTPUT_CHUNK);
    if (o->secret == NULL || o->work == NULL) {
        free(o->secret);
        free(o->work);
        o->secret = o->work = NULL;
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    memcpy(o->secret, secret, len);
    o->secret_len = len;
    return 0;
}

enum rc_output_status
rc_output_write(struct rc_output *o, const void *p, size_t n)
{
    const unsigned char *s = p;
    size_t room, take;

    if (o->secret == NULL) {
        utf8_feed(o, s, n);
    } else {
        room = o->secret_len - 1 + RC_OUTPUT_CHUNK;
        while (n > 0 && o->status == RC_OUTPUT_OK) {
            take = room - o->work_len < n ? room - o->work_len : n;
            memcpy(o->work + o->work_len, s, take);
            o->work_len += take;
            s += take;
            n -= take;
            redact_window(o, 0);
        }
    }
    /* Keep the file current for whoever tails it; a status change keeps
     * the valid bytes before the stop. */
    if (o->status != RC_OUTPUT_IO_ERROR)
        out_flush(o);
    return o->status;
}

static void
on_log_piece(int stream, const char *data, size_t len, void *arg)
{
    (void)stream; /* stdout and stderr share the one capture */
    rc_output_write(arg, data, len);
}

enum rc_output_status
rc_output_feed_logs(struct rc_output *o, const void *p, size_t n)
{
    struct err de = { 0 };

    if (o->status != RC_OUTPUT_OK)
        return o->status;
    if (dk_logs_demux_feed(&o->demux, p, n, on_log_piece, o, &de) == -1 &&
        o->status == RC_OUTPUT_OK) {
        o->err = de;
        err_prefix(&o->err, "log stream: ");
        o->status = RC_OUTPUT_CAPTURE_FAILURE;
    }
    o->demuxing = 1;
    return o->status;
}

/* End of input: pending secret prefix goes out, a cut character or a cut
 * log frame is a capture failure. */
static void
out_finish(struct rc_output *o)
{
    struct err de = { 0 };

    if (o->status != RC_OUTPUT_OK)
        return;
    if (o->secret != NULL)
        redact_window(o, 1);
    if (o->status == RC_OUTPUT_OK && o->seq_len > 0) {
        o->status = RC_OUTPUT_CAPTURE_FAILURE;
        o->bad_offset = o->in_off - o->seq_len;
        err_set(&o->err, ERR_SYNTAX,
                "output is not strict UTF-8: it ends inside the sequence at "
                "byte %" PRIu64,
                o->bad_offset);
    }
    if (o->status == RC_OUTPUT_OK && o->demuxing &&
        dk_logs_demux_end(&o->demux, &de) == -1) {
        o->err = de;
        err_prefix(&o->err, "log stream: ");
        o->status = RC_OUTPUT_CAPTURE_FAILURE;
    }
}

int
rc_output_close(struct rc_output *o, struct rc_output_result *r, struct err *e)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned mdlen = 0, i;
    int rc = 0;

    if (o->sha == NULL) { /* closed already: nothing left to release */
        memset(r, 0, sizeof(*r));
        r->status = RC_OUTPUT_IO_ERROR;
        r->bad_offset = RC_OUTPUT_NO_BAD;
        return err_set(e, ERR_INVALID, "output: closed twice");
    }
    out_finish(o);
    if (o->status != RC_OUTPUT_IO_ERROR)
        out_flush(o);
    if (close(o->fd) == -1 && o->status != RC_OUTPUT_IO_ERROR) {
        err_sys(&o->err, "output file: close");
        o->status = RC_OUTPUT_IO_ERROR;
    }
    memset(r, 0, sizeof(*r));
    if (EVP_DigestFinal_ex(o->sha, md, &mdlen) != 1 || mdlen != 32) {
        err_set(&o->err, ERR_NOMEM, "output file: sha256 failed");
        o->status = RC_OUTPUT_IO_ERROR;
    }
    for (i = 0; i < mdlen && i < 32; i++) {
        r->sha256[2 * i] = hex[md[i] >> 4];
        r->sha256[2 * i + 1] = hex[md[i] & 15];
    }
    r->bytes = o->written;
    r->truncated = o->truncated;
    r->status = o->status;
    r->bad_offset = o->bad_offset;
    if (o->status == RC_OUTPUT_IO_ERROR) {
        if (e != NULL)
            *e = o->err;
        rc = -1;
    }
    EVP_MD_CTX_free(o->sha);
    if (o->secret != NULL) {
        explicit_bzero(o->secret, o->secret_len);
        explicit_bzero(o->work, o->secret_len - 1 + RC_OUTPUT_CHUNK);
    }
    free(o->secret);
    free(o->work);
    explicit_bzero(o->out, sizeof(o->out));
    o->sha = NULL;
    o->secret = o->work = NULL;
    o->fd = -1;
    return rc;
}

const char *
rc_output_status_name(enum rc_output_status s)
{
    switch (s) {
    case RC_OUTPUT_OK:
        return "ok";
    case RC_OUTPUT_LIMIT:
        return "output-limit";
    case RC_OUTPUT_CAPTURE_FAILURE:
        return "capture-failure";
    case RC_OUTPUT_IO_ERROR:
        return "io-error";
    }
    return "unknown";
}
