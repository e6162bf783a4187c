/* inv_auditline.c - the live egress audit's pure parts: framing under a
 * cap, Docker's timestamps, the resume rule, strict lines
 * (inv_auditline.h). No I/O: table-tested in test_ctl_auditline.c. */
#include "inv_auditline.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

void
inv_audit_pos_begin(struct inv_audit_pos *p)
{
    p->skip = p->seen;
}

bool
inv_audit_pos_take(struct inv_audit_pos *p, const char *ts)
{
    int cmp = p->at[0] != '\0' ? strcmp(ts, p->at) : 1;

    if (cmp < 0) {
        /* Docker reads from an earlier point again (its follow re-sends
         * lines across a log rotation, measured: 5,724 of 100,000): as
         * at a restart, the lines at `at` already taken come again */
        p->skip = p->seen;
        return false;
    }
    if (cmp == 0 && p->skip > 0) {
        p->skip--;
        return false;
    }
    if (cmp == 0) {
        p->seen++;
        return true;
    }
    snprintf(p->at, sizeof(p->at), "%s", ts);
    p->seen = 1;
    p->skip = 0;
    return true;
}

/* "YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ": digits where the pattern has 'd'. */
bool
inv_audit_ts_valid(const char *ts, size_t len)
{
    static const char pat[] = "dddd-dd-ddTdd:dd:dd.dddddddddZ";

    if (len < CTL_AUDIT_TS_LEN)
        return false;
    for (size_t i = 0; i < CTL_AUDIT_TS_LEN; i++) {
        if (pat[i] == 'd' ? (ts[i] < '0' || ts[i] > '9') : ts[i] != pat[i])
            return false;
    }
    return true;
}

static int
digits(const char *s, size_t n)
{
    int v = 0;

    for (size_t i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

/* The whole seconds since the epoch of "YYYY-MM-DDTHH:MM:SS" at z, read
 * as UTC (the caller checked the form). */
static time_t
ts_seconds(const char *z)
{
    struct tm tm;

    memset(&tm, 0, sizeof(tm));
    tm.tm_year = digits(z, 4) - 1900;
    tm.tm_mon = digits(z + 5, 2) - 1;
    tm.tm_mday = digits(z + 8, 2);
    tm.tm_hour = digits(z + 11, 2);
    tm.tm_min = digits(z + 14, 2);
    tm.tm_sec = digits(z + 17, 2);
    return timegm(&tm);
}

static bool
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* "+HH:MM" or "-HH:MM" at s (6 bytes there): its seconds east of UTC. */
static bool
zone_offset(const char *s, long *off)
{
    if ((s[0] != '+' && s[0] != '-') || !is_digit(s[1]) || !is_digit(s[2]) ||
        s[3] != ':' || !is_digit(s[4]) || !is_digit(s[5]))
        return false;
    *off = (digits(s + 1, 2) * 60L + digits(s + 4, 2)) * 60L;
    if (s[0] == '-')
        *off = -*off;
    return true;
}

size_t
inv_audit_ts_take(const char *line, size_t len, char out[CTL_AUDIT_TS_LEN + 1])
{
    const size_t n = CTL_AUDIT_TS_LEN - 1; /* up to the 'Z' */
    struct tm tm;
    long off = 0;
    size_t end;
    time_t t;
    char z[CTL_AUDIT_TS_LEN + 1];

    if (len < n + 2)
        return 0;
    memcpy(z, line, n);
    z[n] = 'Z';
    z[n + 1] = '\0';
    if (!inv_audit_ts_valid(z, CTL_AUDIT_TS_LEN))
        return 0;
    if (line[n] == 'Z')
        end = n + 1;
    else if (len >= n + 7 && zone_offset(line + n, &off))
        end = n + 6;
    else
        return 0;
    if (end >= len || line[end] != ' ')
        return 0;
    t = ts_seconds(z) - off;
    if (gmtime_r(&t, &tm) == NULL ||
        strftime(out, CTL_AUDIT_TS_LEN + 1, "%Y-%m-%dT%H:%M:%S", &tm) != 19)
        return 0;
    snprintf(out + 19, CTL_AUDIT_TS_LEN + 1 - 19, ".%.9sZ", z + 20);
    return end + 1;
}

int
inv_audit_since(const char *ts, char *out, size_t size, struct err *e)
{
    time_t t;
    int n;

    if (ts == NULL || !inv_audit_ts_valid(ts, strlen(ts)))
        return err_set(e, ERR_INVALID, "not a Docker log timestamp: %.40s",
                       ts != NULL ? ts : "(none)");
    t = ts_seconds(ts);
    n = snprintf(out, size, "%lld.%.9s", (long long)t, ts + 20);
    if (n < 0 || (size_t)n >= size)
        return err_set(e, ERR_LIMIT, "no room for the since of %s", ts);
    return 0;
}

void
inv_audit_framer_init(struct inv_audit_framer *f)
{
    f->len = 0;
    f->over = false;
    f->buf[0] = '\0';
}

void
inv_audit_framer_feed(struct inv_audit_framer *f, const char *p, size_t n,
                      inv_audit_line_fn *cb, void *arg)
{
    while (n > 0) {
        const char *nl = memchr(p, '\n', n);
        size_t take = nl != NULL ? (size_t)(nl - p) : n;
        size_t room = CTL_AUDIT_FRAME_MAX - f->len;

        memcpy(f->buf + f->len, p, take < room ? take : room);
        f->len += take < room ? take : room;
        f->over = f->over || take > room;
        f->buf[f->len] = '\0';
        if (nl == NULL)
            return;
        cb(f->buf, f->len, f->over, arg);
        inv_audit_framer_init(f);
        p += take + 1;
        n -= take + 1;
    }
}

/* Strict UTF-8 (RFC 3629): no overlong form, no surrogate, nothing past
 * U+10FFFF, no sequence cut short. */
static bool
utf8_strict(const unsigned char *s, size_t n)
{
    size_t i = 0;

    while (i < n) {
        unsigned c = s[i], need, min, cp;

        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf)
            need = 1, min = 0x80, cp = c & 0x1f;
        else if (c >= 0xe0 && c <= 0xef)
            need = 2, min = 0x800, cp = c & 0x0f;
        else if (c >= 0xf0 && c <= 0xf4)
            need = 3, min = 0x10000, cp = c & 0x07;
        else
            return false;
        if (n - i - 1 < need)
            return false;
        for (unsigned k = 1; k <= need; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += need + 1;
    }
    return true;
}

/* No control byte: a compact JSON line has none outside its strings,
 * and JSON allows none raw inside one (cJSON would take them). */
static bool
no_controls(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20)
            return false;
    return true;
}

/* One JSON object and nothing after it, in strict UTF-8. */
static bool
strict_object(const char *line, size_t len)
{
    const char *end = NULL;
    cJSON *j;
    bool ok;

    if (len == 0 || line[0] != '{' || line[len - 1] != '}' ||
        !no_controls((const unsigned char *)line, len) ||
        !utf8_strict((const unsigned char *)line, len))
        return false;
    j = cJSON_ParseWithLengthOpts(line, len, &end, false);
    ok = j != NULL && cJSON_IsObject(j) && end == line + len;
    cJSON_Delete(j);
    return ok;
}

enum inv_audit_verdict
inv_audit_judge(const char *line, size_t len, const char *marker)
{
    if (strstr(line, marker) == NULL)
        return CTL_AUDIT_OTHER;
    return strict_object(line, len) ? CTL_AUDIT_KEEP : CTL_AUDIT_BAD;
}

/* The line with every occurrence of secret replaced; *n counts them. */
static int
append_redacted(struct buf *out, const char *line, const char *secret,
                unsigned *n, struct err *e)
{
    size_t klen = secret != NULL ? strlen(secret) : 0;
    const char *at;

    while (klen > 0 && (at = strstr(line, secret)) != NULL) {
        if (buf_append(out, line, (size_t)(at - line), e) == -1 ||
            buf_puts(out, "<redacted>", e) == -1)
            return -1;
        line = at + klen;
        (*n)++;
    }
    return buf_puts(out, line, e);
}

int
inv_audit_render(struct buf *out, const char *source, const char *line,
                 const char *secret, struct err *e)
{
    size_t was = out->len;
    unsigned redacted = 0;

    if (buf_printf(out, e, "{\"source\":\"%s\",", source) == -1 ||
        append_redacted(out, line + 1, secret, &redacted, e) == -1)
        goto undo;
    /* a secret that spanned the line's syntax leaves no JSON: not kept
     * (a line left as it was is the strict one the judge kept) */
    if (redacted > 0 && !strict_object(out->data + was, out->len - was)) {
        err_set(e, ERR_SYNTAX, "the line is no JSON object once redacted");
        goto undo;
    }
    if (buf_puts(out, "\n", e) == -1)
        goto undo;
    return 0;
undo:
    out->len = was;
    if (out->data != NULL)
        out->data[was] = '\0';
    return -1;
}
