/* gw_json.c - a strict, bounded JSON reader (see gw_json.h). */
#include "gw_json.h"

#include <string.h>

static int
fail(struct gw_json *j, const char *why)
{
    if (j->why == NULL)
        j->why = why;
    return -1;
}

void
gw_json_init(struct gw_json *j, const char *p, size_t n)
{
    memset(j, 0, sizeof(*j));
    j->p = p;
    j->end = p + n;
}

static void
blank(struct gw_json *j)
{
    while (j->p < j->end &&
           (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

char
gw_json_peek(struct gw_json *j)
{
    char c;

    if (j->why != NULL)
        return 0;
    blank(j);
    if (j->p == j->end)
        return 0;
    c = *j->p;
    if (c == '-' || (c >= '0' && c <= '9'))
        return '0';
    return c;
}

/* ---- strings ----------------------------------------------------------- */

/* Length of the UTF-8 sequence at p (1-4), or 0 when it is not a valid,
 * shortest-form sequence of a scalar value. */
static size_t
utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n;
    unsigned cp, min;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

static int
hex4(const char *p, unsigned *out)
{
    unsigned v = 0;

    for (int i = 0; i < 4; i++) {
        char c = p[i];

        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* Append the code point as UTF-8 while it fits. */
static void
put_cp(char *out, size_t size, size_t *o, bool *cut, unsigned cp)
{
    char b[4];
    size_t n;

    if (cp < 0x80)
        b[0] = (char)cp, n = 1;
    else if (cp < 0x800)
        b[0] = (char)(0xc0 | (cp >> 6)), b[1] = (char)(0x80 | (cp & 0x3f)),
        n = 2;
    else if (cp < 0x10000)
        b[0] = (char)(0xe0 | (cp >> 12)),
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
        b[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
    else
        b[0] = (char)(0xf0 | (cp >> 18)),
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3f)),
        b[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
    if (out == NULL)
        return;
    if (*o + n >= size) {
        *cut = true;
        return;
    }
    memcpy(out + *o, b, n);
    *o += n;
}

/* One \u escape (and its low surrogate): the code point, or -1. */
static int
escape_u(struct gw_json *j, unsigned *cp)
{
    unsigned lo;

    if (j->end - j->p < 6 || hex4(j->p + 2, cp) == -1)
        return fail(j, "bad \\u escape");
    j->p += 6;
    if (*cp >= 0xdc00 && *cp <= 0xdfff)
        return fail(j, "a lone low surrogate");
    if (*cp < 0xd800 || *cp > 0xdbff)
        return 0;
    if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' ||
        hex4(j->p + 2, &lo) == -1 || lo < 0xdc00 || lo > 0xdfff)
        return fail(j, "a lone high surrogate");
    j->p += 6;
    *cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
    return 0;
}

/* A string at j->p ('"'), unescaped into out when out is not NULL. */
static int
string(struct gw_json *j, char *out, size_t size, bool *cut)
{
    static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
    size_t o = 0;
    bool dummy;

    if (cut == NULL)
        cut = &dummy;
    *cut = false;
    j->p++; /* the quote */
    while (j->p < j->end && *j->p != '"') {
        unsigned char c = (unsigned char)*j->p;
        unsigned cp;

        if (c < 0x20)
            return fail(j, "a control character in a string");
        if (c == '\\') {
            const char *k;

            if (j->end - j->p < 2)
                return fail(j, "a string cut short");
            if (j->p[1] == 'u') {
                if (escape_u(j, &cp) == -1)
                    return -1;
                put_cp(out, size, &o, cut, cp);
                continue;
            }
            k = memchr(esc_in, j->p[1], sizeof(esc_in) - 1);
            if (k == NULL || j->p[1] == '\0')
                return fail(j, "a bad escape");
            put_cp(out, size, &o, cut, (unsigned char)esc_out[k - esc_in]);
            j->p += 2;
            continue;
        }
        {
            size_t n = utf8_len((const unsigned char *)j->p,
                                (const unsigned char *)j->end);

            if (n == 0)
                return fail(j, "invalid UTF-8 in a string");
            if (out != NULL && o + n < size) {
                memcpy(out + o, j->p, n);
                o += n;
            } else if (out != NULL) {
                *cut = true;
            }
            j->p += n;
        }
    }
    if (j->p == j->end)
        return fail(j, "a string cut short");
    j->p++;
    if (out != NULL && size > 0)
        out[o < size ? o : size - 1] = '\0';
    return 0;
}

int
gw_json_string(struct gw_json *j, char *out, size_t size, bool *cut)
{
    if (gw_json_peek(j) != '"')
        return fail(j, "expected a string");
    return string(j, out, size, cut);
}

/* ---- numbers and literals --------------------------------------------- */

static int
digits(struct gw_json *j)
{
    const char *s = j->p;

    while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
        j->p++;
    return j->p > s ? 0 : fail(j, "a bad number");
}

static int
number(struct gw_json *j)
{
    if (*j->p == '-')
        j->p++;
    if (j->p < j->end && *j->p == '0') {
        j->p++;
    } else if (digits(j) == -1) {
        return -1;
    }
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (digits(j) == -1)
            return -1;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
            j->p++;
        if (digits(j) == -1)
            return -1;
    }
    return 0;
}

static int
literal(struct gw_json *j, const char *word)
{
    size_t n = strlen(word);

    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
        return fail(j, "a bad literal");
    j->p += n;
    return 0;
}

/* ---- containers -------------------------------------------------------- */

static int
open_container(struct gw_json *j, char c)
{
    if (gw_json_peek(j) != c)
        return fail(j, c == '{' ? "expected an object" : "expected an array");
    if (j->depth >= GW_JSON_DEPTH)
        return fail(j, "nested too deep");
    j->p++;
    j->first[j->depth++] = true;
    return 0;
}

int
gw_json_object_begin(struct gw_json *j)
{
    return open_container(j, '{');
}

int
gw_json_array_begin(struct gw_json *j)
{
    return open_container(j, '[');
}

/* Before the next item of the open container (closing c): 1 at an item,
 * 0 at the end (consumed), -1 on error. */
static int
next_item(struct gw_json *j, char close)
{
    bool *first;

    if (j->why != NULL || j->depth == 0)
        return fail(j, "no container is open");
    first = &j->first[j->depth - 1];
    blank(j);
    if (j->p == j->end)
        return fail(j, "a container cut short");
    if (*j->p == close) {
        j->p++;
        j->depth--;
        return 0;
    }
    if (!*first) {
        if (*j->p != ',')
            return fail(j, "expected a comma");
        j->p++;
        blank(j);
        if (j->p < j->end && *j->p == close)
            return fail(j, "a trailing comma");
    }
    *first = false;
    return 1;
}

int
gw_json_member(struct gw_json *j, char *key, size_t size, bool *cut)
{
    int r = next_item(j, '}');

    if (r != 1)
        return r;
    if (gw_json_string(j, key, size, cut) == -1)
        return -1;
    blank(j);
    if (j->p == j->end || *j->p != ':')
        return fail(j, "expected a colon");
    j->p++;
    return 1;
}

int
gw_json_element(struct gw_json *j)
{
    return next_item(j, ']');
}

int
gw_json_skip(struct gw_json *j)
{
    char key[1];
    int r;

    switch (gw_json_peek(j)) {
    case '"':
        return string(j, NULL, 0, NULL);
    case '0':
        return number(j);
    case 't':
        return literal(j, "true");
    case 'f':
        return literal(j, "false");
    case 'n':
        return literal(j, "null");
    case '{':
        if (gw_json_object_begin(j) == -1)
            return -1;
        while ((r = gw_json_member(j, key, 0, NULL)) == 1)
            if (gw_json_skip(j) == -1)
                return -1;
        return r;
    case '[':
        if (gw_json_array_begin(j) == -1)
            return -1;
        while ((r = gw_json_element(j)) == 1)
            if (gw_json_skip(j) == -1)
                return -1;
        return r;
    default:
        return fail(j, j->p == j->end ? "a value is missing" : "not JSON");
    }
}

int
gw_json_finish(struct gw_json *j)
{
    if (j->why != NULL)
        return -1;
    blank(j);
    return j->p == j->end ? 0 : fail(j, "more after the value");
}
