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

size_t
log_json_escape(char *out, size_t size, const char *s)
{
    size_t n = 0;

    if (size == 0)
        return 0;
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        char tmp[8];
        size_t k;

        if (c == '"' || c == '\\')
            k = (size_t)snprintf(tmp, sizeof(tmp), "\\%c", c);
        else if (c == '\n')
            k = (size_t)snprintf(tmp, sizeof(tmp), "\\n");
        else if (c < 0x20 || c == 0x7f)
            k = (size_t)snprintf(tmp, sizeof(tmp), "\\u%04x", c);
        else {
            tmp[0] = (char)c;
            k = 1;
        }
        if (n + k >= size)
            break;
        memcpy(out + n, tmp, k);
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
