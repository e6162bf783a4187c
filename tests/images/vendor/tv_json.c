/* tv_json.c - JSON tree parser and escaping writer for the TLS test
 * vendor (tv_json.h). Strict enough for what the CLIs send: objects,
 * arrays, strings with every escape (\uXXXX and surrogate pairs to
 * UTF-8), numbers kept only as "a number", true/false/null.
 */
#include "tv_json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TVJ_MAX_DEPTH 64

struct cursor {
    const char *p, *end;
};

static void *
xalloc(size_t n)
{
    void *p = calloc(1, n);

    if (!p) {
        perror("tls-vendor: calloc");
        exit(1);
    }
    return p;
}

static void
skip_ws(struct cursor *c)
{
    while (c->p < c->end &&
           (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int
hex4(const char *p, unsigned *out)
{
    unsigned v = 0;

    for (int i = 0; i < 4; i++) {
        char h = p[i];

        v <<= 4;
        if (h >= '0' && h <= '9')
            v |= (unsigned)(h - '0');
        else if (h >= 'a' && h <= 'f')
            v |= (unsigned)(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F')
            v |= (unsigned)(h - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static void
put_utf8(struct tvb *b, unsigned cp)
{
    char u[4];
    size_t n;

    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        u[0] = (char)(0xf0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    tvb_add(b, u, n);
}

/* A string literal at c->p (on the opening quote); NULL when malformed. */
static char *
parse_string(struct cursor *c)
{
    struct tvb b = {0};

    c->p++;
    while (c->p < c->end && *c->p != '"') {
        if (*c->p != '\\') {
            tvb_add(&b, c->p++, 1);
            continue;
        }
        if (c->end - c->p < 2)
            goto bad;
        char e = c->p[1];
        c->p += 2;
        switch (e) {
        case '"': tvb_add(&b, "\"", 1); break;
        case '\\': tvb_add(&b, "\\", 1); break;
        case '/': tvb_add(&b, "/", 1); break;
        case 'b': tvb_add(&b, "\b", 1); break;
        case 'f': tvb_add(&b, "\f", 1); break;
        case 'n': tvb_add(&b, "\n", 1); break;
        case 'r': tvb_add(&b, "\r", 1); break;
        case 't': tvb_add(&b, "\t", 1); break;
        case 'u': {
            unsigned cp, lo;

            if (c->end - c->p < 4 || hex4(c->p, &cp) < 0)
                goto bad;
            c->p += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && c->end - c->p >= 6 &&
                c->p[0] == '\\' && c->p[1] == 'u' &&
                hex4(c->p + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                c->p += 6;
            }
            put_utf8(&b, cp);
            break;
        }
        default:
            goto bad;
        }
    }
    if (c->p >= c->end)
        goto bad;
    c->p++;
    tvb_add(&b, "", 1);
    return b.p;
bad:
    tvb_free(&b);
    return NULL;
}

static struct tvj *parse_value(struct cursor *c, int depth);

/* The members or elements of an object/array after its opening bracket. */
static int
parse_children(struct cursor *c, struct tvj *j, char close, int depth)
{
    struct tvj **tail = &j->child;

    skip_ws(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        struct tvj *v;

        skip_ws(c);
        if (close == '}') {
            if (c->p >= c->end || *c->p != '"' || !(key = parse_string(c)))
                return -1;
            skip_ws(c);
            if (c->p >= c->end || *c->p != ':') {
                free(key);
                return -1;
            }
            c->p++;
        }
        if (!(v = parse_value(c, depth + 1))) {
            free(key);
            return -1;
        }
        v->key = key;
        *tail = v;
        tail = &v->next;
        skip_ws(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == close) {
            c->p++;
            return 0;
        }
        return -1;
    }
}

static int
literal(struct cursor *c, const char *word)
{
    size_t n = strlen(word);

    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return 0;
    c->p += n;
    return 1;
}

static struct tvj *
parse_value(struct cursor *c, int depth)
{
    struct tvj *j;

    if (depth > TVJ_MAX_DEPTH)
        return NULL;
    skip_ws(c);
    if (c->p >= c->end)
        return NULL;
    j = xalloc(sizeof(*j));
    switch (*c->p) {
    case '{':
    case '[':
        j->type = *c->p == '{' ? TVJ_OBJ : TVJ_ARR;
        c->p++;
        if (parse_children(c, j, j->type == TVJ_OBJ ? '}' : ']', depth) < 0)
            goto bad;
        return j;
    case '"':
        j->type = TVJ_STR;
        if (!(j->str = parse_string(c)))
            goto bad;
        return j;
    default:
        break;
    }
    if (literal(c, "true") || literal(c, "false")) {
        j->type = TVJ_BOOL;
        j->truth = c->p[-1] == 'e' && c->p[-2] == 'u';
        return j;
    }
    if (literal(c, "null"))
        return j;
    if (*c->p == '-' || (*c->p >= '0' && *c->p <= '9')) {
        j->type = TVJ_NUM;
        while (c->p < c->end && strchr("+-.eE0123456789", *c->p))
            c->p++;
        return j;
    }
bad:
    tvj_free(j);
    return NULL;
}

struct tvj *
tvj_parse(const char *text, size_t n)
{
    struct cursor c = {text, text + n};
    struct tvj *j = parse_value(&c, 0);

    skip_ws(&c);
    if (j && c.p != c.end) {
        tvj_free(j);
        return NULL;
    }
    return j;
}

void
tvj_free(struct tvj *j)
{
    while (j) {
        struct tvj *next = j->next;

        tvj_free(j->child);
        free(j->key);
        free(j->str);
        free(j);
        j = next;
    }
}

const struct tvj *
tvj_get(const struct tvj *j, const char *key)
{
    if (!j || j->type != TVJ_OBJ)
        return NULL;
    for (const struct tvj *m = j->child; m; m = m->next)
        if (strcmp(m->key, key) == 0)
            return m;
    return NULL;
}

const char *
tvj_str(const struct tvj *j, const char *key)
{
    const struct tvj *m = tvj_get(j, key);

    return m && m->type == TVJ_STR ? m->str : NULL;
}

void
tvb_add(struct tvb *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;

        while (cap < b->len + n + 1)
            cap *= 2;
        if (!(b->p = realloc(b->p, cap))) {
            perror("tls-vendor: realloc");
            exit(1);
        }
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void
tvb_puts(struct tvb *b, const char *s)
{
    tvb_add(b, s, strlen(s));
}

void
tvb_printf(struct tvb *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof(small)) {
        tvb_add(b, small, (size_t)n);
        return;
    }
    char *big = xalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    tvb_add(b, big, (size_t)n);
    free(big);
}

void
tvb_json_str(struct tvb *b, const char *s)
{
    tvb_add(b, "\"", 1);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;

        if (ch == '"' || ch == '\\') {
            char esc[2] = {'\\', (char)ch};
            tvb_add(b, esc, 2);
        } else if (ch == '\n') {
            tvb_add(b, "\\n", 2);
        } else if (ch < 0x20 || ch == 0x7f) {
            tvb_printf(b, "\\u%04x", ch);
        } else {
            tvb_add(b, s, 1);
        }
    }
    tvb_add(b, "\"", 1);
}

void
tvb_free(struct tvb *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}
