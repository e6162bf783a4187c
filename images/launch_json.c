/* launch_json.c - a strict JSON reader into a small tree, and a writer for
 * JSON strings that turns any bytes into valid UTF-8 (launch_json.h). */
#include "launch_json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct reader {
    const char *p, *end;
    unsigned depth;
    const char *why; /* the first error */
};

static struct launch_json *read_value(struct reader *r);

static int
fail(struct reader *r, const char *why)
{
    if (!r->why)
        r->why = why;
    return -1;
}

static void
skip_ws(struct reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' ||
                             *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

size_t
launch_utf8_len(const unsigned char *s, size_t n)
{
    uint32_t cp;
    size_t len;

    if (n == 0)
        return 0;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2, cp = s[0] & 0x1f;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3, cp = s[0] & 0x0f;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4, cp = s[0] & 0x07;
    else
        return 0; /* continuation byte, C0/C1 overlong leads, F5..FF */
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

static void
put_utf8(char *out, size_t *n, uint32_t cp)
{
    if (cp < 0x80) {
        out[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*n)++] = (char)(0xc0 | cp >> 6);
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xe0 | cp >> 12);
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        out[(*n)++] = (char)(0xf0 | cp >> 18);
        out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    }
}

/* Four hex digits at r->p into *v. */
static int
read_hex4(struct reader *r, uint32_t *v)
{
    *v = 0;
    if (r->end - r->p < 4)
        return fail(r, "truncated \\u escape");
    for (int i = 0; i < 4; i++) {
        char c = *r->p++;
        unsigned d;

        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return fail(r, "bad hex digit in \\u escape");
        *v = *v << 4 | d;
    }
    return 0;
}

/* The string at r->p (its opening quote) unescaped into a new buffer. The
 * unescaped text is never longer than the escaped one, so one allocation
 * of the raw length is enough. */
static int
read_string(struct reader *r, char **out, size_t *out_len)
{
    const char *start = ++r->p, *q;
    char *s;
    size_t n = 0;

    /* find the closing quote first to size the buffer */
    for (q = start; q < r->end && *q != '"'; q++)
        if (*q == '\\' && q + 1 < r->end)
            q++;
    if (q >= r->end)
        return fail(r, "unterminated string");
    s = malloc((size_t)(q - start) + 1);
    if (!s)
        return fail(r, "out of memory");
    while (*r->p != '"') {
        unsigned char c = (unsigned char)*r->p;
        uint32_t cp, lo;
        size_t len;

        if (c < 0x20) {
            fail(r, "control character in string");
            goto bad;
        }
        if (c != '\\') {
            len = launch_utf8_len((const unsigned char *)r->p,
                                  (size_t)(r->end - r->p));
            if (len == 0) {
                fail(r, "invalid UTF-8 in string");
                goto bad;
            }
            memcpy(s + n, r->p, len);
            n += len;
            r->p += len;
            continue;
        }
        r->p++;
        switch (*r->p++) {
        case '"': s[n++] = '"'; break;
        case '\\': s[n++] = '\\'; break;
        case '/': s[n++] = '/'; break;
        case 'b': s[n++] = '\b'; break;
        case 'f': s[n++] = '\f'; break;
        case 'n': s[n++] = '\n'; break;
        case 'r': s[n++] = '\r'; break;
        case 't': s[n++] = '\t'; break;
        case 'u':
            if (read_hex4(r, &cp) == -1)
                goto bad;
            if (cp >= 0xdc00 && cp <= 0xdfff) {
                fail(r, "lone low surrogate in \\u escape");
                goto bad;
            }
            if (cp >= 0xd800 && cp <= 0xdbff) {
                if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u') {
                    fail(r, "lone high surrogate in \\u escape");
                    goto bad;
                }
                r->p += 2;
                if (read_hex4(r, &lo) == -1)
                    goto bad;
                if (lo < 0xdc00 || lo > 0xdfff) {
                    fail(r, "high surrogate without a low one");
                    goto bad;
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            put_utf8(s, &n, cp);
            break;
        default:
            fail(r, "unknown escape in string");
            goto bad;
        }
    }
    r->p++;
    s[n] = '\0';
    *out = s;
    *out_len = n;
    return 0;
bad:
    free(s);
    return -1;
}

static int
read_number(struct reader *r)
{
    if (r->p < r->end && *r->p == '-')
        r->p++;
    if (r->p < r->end && *r->p == '0') {
        r->p++;
    } else if (r->p < r->end && *r->p >= '1' && *r->p <= '9') {
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
            r->p++;
    } else {
        return fail(r, "bad number");
    }
    if (r->p < r->end && *r->p == '.') {
        r->p++;
        if (r->p >= r->end || *r->p < '0' || *r->p > '9')
            return fail(r, "bad number: no digit after '.'");
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
            r->p++;
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
            r->p++;
        if (r->p >= r->end || *r->p < '0' || *r->p > '9')
            return fail(r, "bad number: no digit in exponent");
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
            r->p++;
    }
    return 0;
}

static int
read_word(struct reader *r, const char *w)
{
    size_t n = strlen(w);

    if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0)
        return fail(r, "unexpected character");
    r->p += n;
    return 0;
}

/* The elements or members of the container at r->p into v->child. */
static int
read_container(struct reader *r, struct launch_json *v, char close)
{
    struct launch_json **tail = &v->child;

    if (++r->depth > LAUNCH_JSON_DEPTH)
        return fail(r, "nested too deep");
    r->p++;
    skip_ws(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        r->depth--;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        size_t key_len = 0;
        struct launch_json *item;

        skip_ws(r);
        if (close == '}') {
            if (r->p >= r->end || *r->p != '"')
                return fail(r, "member name expected");
            if (read_string(r, &key, &key_len) == -1)
                return -1;
            skip_ws(r);
            if (r->p >= r->end || *r->p != ':') {
                free(key);
                return fail(r, "':' expected");
            }
            r->p++;
        }
        item = read_value(r);
        if (!item) {
            free(key);
            return -1;
        }
        item->key = key;
        item->key_len = key_len;
        *tail = item;
        tail = &item->next;
        skip_ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            r->depth--;
            return 0;
        }
        return fail(r, close == '}' ? "',' or '}' expected"
                                    : "',' or ']' expected");
    }
}

static struct launch_json *
read_value(struct reader *r)
{
    struct launch_json *v;
    int rc;

    skip_ws(r);
    if (r->p >= r->end) {
        fail(r, "value expected");
        return NULL;
    }
    v = calloc(1, sizeof(*v));
    if (!v) {
        fail(r, "out of memory");
        return NULL;
    }
    v->raw = r->p;
    switch (*r->p) {
    case '{':
        v->type = LAUNCH_JSON_OBJECT;
        rc = read_container(r, v, '}');
        break;
    case '[':
        v->type = LAUNCH_JSON_ARRAY;
        rc = read_container(r, v, ']');
        break;
    case '"':
        v->type = LAUNCH_JSON_STRING;
        rc = read_string(r, &v->str, &v->str_len);
        break;
    case 't':
        v->type = LAUNCH_JSON_TRUE;
        rc = read_word(r, "true");
        break;
    case 'f':
        v->type = LAUNCH_JSON_FALSE;
        rc = read_word(r, "false");
        break;
    case 'n':
        v->type = LAUNCH_JSON_NULL;
        rc = read_word(r, "null");
        break;
    default:
        v->type = LAUNCH_JSON_NUMBER;
        rc = read_number(r);
        break;
    }
    if (rc == -1) {
        launch_json_free(v);
        return NULL;
    }
    v->raw_len = (size_t)(r->p - v->raw);
    return v;
}

struct launch_json *
launch_json_parse(const char *text, size_t len, const char **why)
{
    struct reader r = { .p = text, .end = text + len };
    struct launch_json *v = read_value(&r);

    if (v) {
        skip_ws(&r);
        if (r.p != r.end) {
            fail(&r, "text after the value");
            launch_json_free(v);
            v = NULL;
        }
    }
    if (!v && why)
        *why = r.why;
    return v;
}

void
launch_json_free(struct launch_json *v)
{
    while (v) {
        struct launch_json *next = v->next;

        launch_json_free(v->child); /* depth is bounded by the reader */
        free(v->str);
        free(v->key);
        free(v);
        v = next;
    }
}

const struct launch_json *
launch_json_get(const struct launch_json *obj, const char *key)
{
    size_t n = strlen(key);

    if (!obj || obj->type != LAUNCH_JSON_OBJECT)
        return NULL;
    for (const struct launch_json *m = obj->child; m; m = m->next)
        if (m->key_len == n && memcmp(m->key, key, n) == 0)
            return m;
    return NULL;
}

bool
launch_json_is_string(const struct launch_json *v, const char *s)
{
    return v && v->type == LAUNCH_JSON_STRING && strlen(s) == v->str_len &&
           memcmp(v->str, s, v->str_len) == 0;
}

void
launch_buf_init(struct launch_buf *b, size_t max)
{
    memset(b, 0, sizeof(*b));
    b->max = max;
}

void
launch_buf_cleanup(struct launch_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof(*b));
}

void
launch_buf_add(struct launch_buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (n > b->max - b->len) {
        b->failed = true;
        return;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        char *p;

        while (cap < b->len + n + 1)
            cap *= 2;
        p = realloc(b->p, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void
launch_buf_adds(struct launch_buf *b, const char *s)
{
    launch_buf_add(b, s, strlen(s));
}

void
launch_json_put_string(struct launch_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;

    launch_buf_add(b, "\"", 1);
    while (i < n) {
        size_t run = i, len;

        /* copy plain runs in one append */
        while (run < n && u[run] >= 0x20 && u[run] < 0x80 && u[run] != '"' &&
               u[run] != '\\')
            run++;
        launch_buf_add(b, s + i, run - i);
        i = run;
        if (i == n)
            break;
        if (u[i] == '"' || u[i] == '\\') {
            char esc[2] = { '\\', (char)u[i] };

            launch_buf_add(b, esc, 2);
            i++;
        } else if (u[i] == '\n') {
            launch_buf_add(b, "\\n", 2);
            i++;
        } else if (u[i] == '\t') {
            launch_buf_add(b, "\\t", 2);
            i++;
        } else if (u[i] == '\r') {
            launch_buf_add(b, "\\r", 2);
            i++;
        } else if (u[i] < 0x20) {
            char esc[6] = { '\\', 'u', '0', '0', hex[u[i] >> 4],
                            hex[u[i] & 0xf] };

            launch_buf_add(b, esc, 6);
            i++;
        } else if ((len = launch_utf8_len(u + i, n - i)) != 0) {
            launch_buf_add(b, s + i, len);
            i += len;
        } else {
            launch_buf_add(b, "\xef\xbf\xbd", 3); /* U+FFFD */
            i++;
        }
    }
    launch_buf_add(b, "\"", 1);
}
