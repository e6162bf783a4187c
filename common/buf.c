/* buf.c - capped growable buffer. */
#include "buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
buf_init(struct buf *b, size_t max)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max;
}

void
buf_cleanup(struct buf *b)
{
    free(b->data);
    buf_init(b, b->max);
}

void
buf_reset(struct buf *b)
{
    b->len = 0;
    if (b->data != NULL)
        b->data[0] = '\0';
}

static int
buf_reserve(struct buf *b, size_t extra, struct err *e)
{
    size_t need, cap;
    char *p;

    if (extra > b->max || b->len > b->max - extra)
        return err_set(e, ERR_LIMIT, "more than %zu bytes", b->max);
    need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    p = realloc(b->data, cap);
    if (p == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    b->data = p;
    b->cap = cap;
    return 0;
}

int
buf_preallocate(struct buf *b, size_t n, struct err *e)
{
    return buf_reserve(b, n, e);
}

int
buf_append(struct buf *b, const void *p, size_t n, struct err *e)
{
    if (buf_reserve(b, n, e) == -1)
        return -1;
    if (n > 0)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int
buf_puts(struct buf *b, const char *s, struct err *e)
{
    return buf_append(b, s, strlen(s), e);
}

int
buf_printf(struct buf *b, struct err *e, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return err_set(e, ERR_INVALID, "bad format");
    if (buf_reserve(b, (size_t)n, e) == -1)
        return -1;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

char *
buf_take(struct buf *b)
{
    char *p = b->data;

    if (p == NULL)
        p = calloc(1, 1);
    buf_init(b, b->max);
    return p;
}
