/* err.c - filling and printing struct err. */
#include "err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void err_vset(struct err *e, enum err_code c, const char *fmt,
                     va_list ap) ERR_PRINTF(3, 0);

static void
err_vset(struct err *e, enum err_code c, const char *fmt, va_list ap)
{
    memset(e, 0, sizeof(*e));
    e->code = c;
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
}

int
err_set(struct err *e, enum err_code c, const char *fmt, ...)
{
    va_list ap;

    if (e == NULL)
        return -1;
    va_start(ap, fmt);
    err_vset(e, c, fmt, ap);
    va_end(ap);
    return -1;
}

int
err_sys(struct err *e, const char *fmt, ...)
{
    int saved = errno;
    va_list ap;
    size_t n;

    if (e == NULL)
        return -1;
    va_start(ap, fmt);
    err_vset(e, ERR_IO, fmt, ap);
    va_end(ap);
    e->sys_errno = saved;
    n = strlen(e->msg);
    snprintf(e->msg + n, sizeof(e->msg) - n, ": %s", strerror(saved));
    errno = saved;
    return -1;
}

int
err_set_at(struct err *e, enum err_code c, const char *file, unsigned line,
           unsigned col, const char *field, const char *fmt, ...)
{
    va_list ap;

    if (e == NULL)
        return -1;
    va_start(ap, fmt);
    err_vset(e, c, fmt, ap);
    va_end(ap);
    snprintf(e->file, sizeof(e->file), "%s", file ? file : "");
    snprintf(e->field, sizeof(e->field), "%s", field ? field : "");
    e->line = line;
    e->col = col;
    return -1;
}

void
err_prefix(struct err *e, const char *fmt, ...)
{
    char old[sizeof(e->msg)];
    size_t n, keep;
    va_list ap;

    if (e == NULL)
        return;
    memcpy(old, e->msg, sizeof(old));
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    /* The message is truncated, never overrun, when both do not fit. */
    n = strlen(e->msg);
    keep = strnlen(old, sizeof(old) - 1);
    if (keep > sizeof(e->msg) - 1 - n)
        keep = sizeof(e->msg) - 1 - n;
    memcpy(e->msg + n, old, keep);
    e->msg[n + keep] = '\0';
}

const char *
err_format(const struct err *e, char *buf, size_t size)
{
    size_t n = 0;
    int w;

    if (size == 0)
        return buf;
    buf[0] = '\0';
    if (e->file[0] != '\0') {
        if (e->line > 0 && e->col > 0)
            w = snprintf(buf, size, "%s:%u:%u: ", e->file, e->line, e->col);
        else if (e->line > 0)
            w = snprintf(buf, size, "%s:%u: ", e->file, e->line);
        else
            w = snprintf(buf, size, "%s: ", e->file);
        n = (w < 0 || (size_t)w >= size) ? size - 1 : (size_t)w;
    }
    if (e->field[0] != '\0' && n < size) {
        w = snprintf(buf + n, size - n, "%s: ", e->field);
        n = (w < 0 || (size_t)w >= size - n) ? size - 1 : n + (size_t)w;
    }
    if (n < size)
        snprintf(buf + n, size - n, "%s", e->msg);
    return buf;
}

const char *
err_code_name(enum err_code c)
{
    static const char *const names[] = {
        [ERR_OK] = "ok",           [ERR_NOMEM] = "no-memory",
        [ERR_IO] = "io",           [ERR_SYNTAX] = "syntax",
        [ERR_INVALID] = "invalid", [ERR_NOTFOUND] = "not-found",
        [ERR_CONFLICT] = "conflict", [ERR_LIMIT] = "limit",
        [ERR_REMOTE] = "remote",   [ERR_TIMEOUT] = "timeout",
        [ERR_UNAVAIL] = "unavailable", [ERR_DENIED] = "denied",
    };

    if ((size_t)c >= sizeof(names) / sizeof(names[0]) || names[c] == NULL)
        return "unknown";
    return names[c];
}
