/* log.c - one JSON object per line on stderr. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define LOG_LINE_MAX 2048

static enum log_level log_min_level = LOG_INFO;

static const char *const log_level_names[] = { "debug", "info", "warn",
                                               "error" };

void
log_set_level(enum log_level lvl)
{
    log_min_level = lvl;
}

void
log_time_now(char *out, size_t size)
{
    struct timespec ts;
    struct tm tm;
    char ms[8];
    size_t n;

    if (size == 0)
        return;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    n = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ms, sizeof(ms), ".%03dZ", (int)(ts.tv_nsec / 1000000) % 1000);
    if (n + strlen(ms) < size)
        memcpy(out + n, ms, strlen(ms) + 1);
}

/* Bytes of the well-formed UTF-8 sequence at s (RFC 3629: shortest form,
 * no surrogates, at most U+10FFFF), or 0 when s does not start one. */
static size_t
utf8_len(const unsigned char *s)
{
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4;
    else
        return 0; /* a continuation byte, 0xc0, 0xc1 or 0xf5-0xff */
    if (s[0] == 0xe0)
        lo = 0xa0; /* overlong */
    else if (s[0] == 0xed)
        hi = 0x9f; /* UTF-16 surrogates */
    else if (s[0] == 0xf0)
        lo = 0x90; /* overlong */
    else if (s[0] == 0xf4)
        hi = 0x8f; /* past U+10FFFF */
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

size_t
log_json_escape(char *out, size_t size, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = 0;

    if (size == 0)
        return 0;
    while (p != NULL && *p != '\0') {
        char tmp[8];
        size_t k = utf8_len(p);
        const char *src = tmp;

        if (k == 0) {
            memcpy(tmp, "\\ufffd", 6);
            k = 6;
            p++;
        } else if (*p == '"' || *p == '\\') {
            tmp[0] = '\\';
            tmp[1] = (char)*p++;
            k = 2;
        } else if (*p == '\n') {
            memcpy(tmp, "\\n", 2);
            k = 2;
            p++;
        } else if (*p < 0x20 || *p == 0x7f) {
            snprintf(tmp, sizeof(tmp), "\\u%04x", *p++);
            k = 6;
        } else {
            src = (const char *)p;
            p += k;
        }
        if (n + k >= size)
            break;
        memcpy(out + n, src, k);
        n += k;
    }
    out[n] = '\0';
    return n;
}

/* Start a line: {"time":..,"level":..,"msg":"<msg>" (no closing brace). */
static size_t
log_begin(char *line, size_t size, enum log_level lvl, const char *msg)
{
    char when[40];
    size_t n;

    log_time_now(when, sizeof(when));
    n = (size_t)snprintf(line, size, "{\"time\":\"%s\",\"level\":\"%s\",\"msg\":\"",
                         when, log_level_names[lvl]);
    n += log_json_escape(line + n, size - n, msg);
    n += (size_t)snprintf(line + n, size - n, "\"");
    return n < size ? n : size - 1;
}

static void
log_end(char *line, size_t n, size_t size)
{
    if (n + 3 > size)
        n = size - 3;
    line[n++] = '}';
    line[n++] = '\n';
    line[n] = '\0';
    fputs(line, stderr);
    fflush(stderr);
}

static void log_vmsg(enum log_level lvl, int with_errno, const char *fmt,
                     va_list ap) ERR_PRINTF(3, 0);

static void
log_vmsg(enum log_level lvl, int with_errno, const char *fmt, va_list ap)
{
    char msg[LOG_LINE_MAX / 2], line[LOG_LINE_MAX];
    int saved = errno;
    size_t n;

    if (lvl < log_min_level)
        return;
    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (with_errno) {
        n = strlen(msg);
        snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(saved));
    }
    n = log_begin(line, sizeof(line), lvl, msg);
    log_end(line, n, sizeof(line));
    errno = saved;
}

void
log_msg(enum log_level lvl, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_vmsg(lvl, 0, fmt, ap);
    va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_vmsg(LOG_WARN, 1, fmt, ap);
    va_end(ap);
}

void
log_kv(enum log_level lvl, const char *msg, ...)
{
    char line[LOG_LINE_MAX];
    const char *k, *v;
    va_list ap;
    size_t n;

    if (lvl < log_min_level)
        return;
    n = log_begin(line, sizeof(line), lvl, msg);
    va_start(ap, msg);
    while ((k = va_arg(ap, const char *)) != NULL) {
        v = va_arg(ap, const char *);
        if (n + 8 >= sizeof(line))
            break;
        n += (size_t)snprintf(line + n, sizeof(line) - n, ",\"");
        n += log_json_escape(line + n, sizeof(line) - n, k);
        n += (size_t)snprintf(line + n, sizeof(line) - n, "\":\"");
        n += log_json_escape(line + n, sizeof(line) - n, v ? v : "");
        n += (size_t)snprintf(line + n, sizeof(line) - n, "\"");
        if (n >= sizeof(line))
            n = sizeof(line) - 1;
    }
    va_end(ap);
    log_end(line, n, sizeof(line));
}
