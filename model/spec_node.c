/* spec_node.c - the position-carrying YAML tree: building blocks, scalar
 * typing, and the error list every stage of spec checking appends to. */
#include "spec_node.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int spec_errors_vadd(struct spec_errors *es, const char *file,
                            unsigned line, unsigned col, const char *field,
                            const char *fmt, va_list ap) ERR_PRINTF(6, 0);

static int
spec_errors_vadd(struct spec_errors *es, const char *file, unsigned line,
                 unsigned col, const char *field, const char *fmt, va_list ap)
{
    struct err *e;

    if (es == NULL)
        return -1;
    if (es->n == SPEC_MAX_ERRORS) {
        es->dropped++;
        return -1;
    }
    e = &es->items[es->n++];
    err_set_at(e, ERR_INVALID, file, line, col, field, "%s", "");
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    return -1;
}

int
spec_errors_add_at(struct spec_errors *es, const char *file, unsigned line,
                   unsigned col, const char *field, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    spec_errors_vadd(es, file, line, col, field, fmt, ap);
    va_end(ap);
    return -1;
}

int
spec_errors_add(struct spec_errors *es, const char *file,
                const struct spec_node *at, const char *field, const char *fmt,
                ...)
{
    va_list ap;

    va_start(ap, fmt);
    spec_errors_vadd(es, file, at ? at->line : 0, at ? at->col : 0, field, fmt,
                     ap);
    va_end(ap);
    return -1;
}

static bool
spec_matches(const char *s, const char *const *words)
{
    for (; *words != NULL; words++)
        if (strcmp(s, *words) == 0)
            return true;
    return false;
}

static bool
spec_is_int_text(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    if (*s == '\0')
        return false;
    for (; *s != '\0'; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

static const char *
skip_digits(const char *s, size_t *n)
{
    *n = 0;
    while (*s >= '0' && *s <= '9') {
        s++;
        (*n)++;
    }
    return s;
}

/* YAML 1.2 core schema float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)
 * ([eE][-+]?[0-9]+)?, or .inf / .nan spellings. Hand-written: this runs
 * for every plain scalar that starts like a number. */
static bool
spec_is_float_text(const char *s)
{
    static const char *const special[] = { ".inf",  "-.inf", "+.inf", ".Inf",
                                           "-.Inf", ".INF",  ".nan",  ".NaN",
                                           ".NAN",  NULL };
    size_t whole, frac = 0, exp;

    if (spec_matches(s, special))
        return true;
    if (*s == '-' || *s == '+')
        s++;
    s = skip_digits(s, &whole);
    if (*s == '.')
        s = skip_digits(s + 1, &frac);
    if (whole == 0 && frac == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '-' || *s == '+')
            s++;
        s = skip_digits(s, &exp);
        if (exp == 0)
            return false;
    }
    return *s == '\0';
}

/* The YAML 1.2 core schema's boolean spellings: the resolver below and
 * spec_node_bool() read the same two lists, so a value that validates as
 * a boolean can never read as the other one. */
static const char *const spec_true_words[] = { "true", "True", "TRUE", NULL };
static const char *const spec_false_words[] = { "false", "False", "FALSE",
                                                NULL };

int
spec_node_bool(const struct spec_node *n, bool *out)
{
    if (n == NULL || n->kind != SPEC_NODE_SCALAR ||
        n->type != SPEC_SCALAR_BOOL)
        return -1;
    if (spec_matches(n->value, spec_true_words))
        *out = true;
    else if (spec_matches(n->value, spec_false_words))
        *out = false;
    else
        return -1;
    return 0;
}

bool
spec_node_is_true(const struct spec_node *n)
{
    bool v = false;

    return spec_node_bool(n, &v) == 0 && v;
}

static enum spec_scalar_type
spec_scalar_resolve(const char *s, bool quoted)
{
    static const char *const nulls[] = {
        "", "~", "null", "Null", "NULL", NULL
    };

    if (quoted)
        return SPEC_SCALAR_STRING;
    if (spec_matches(s, nulls))
        return SPEC_SCALAR_NULL;
    if (spec_matches(s, spec_true_words) || spec_matches(s, spec_false_words))
        return SPEC_SCALAR_BOOL;
    if (spec_is_int_text(s))
        return SPEC_SCALAR_INT;
    if ((s[0] >= '0' && s[0] <= '9') || s[0] == '.' || s[0] == '-' ||
        s[0] == '+') {
        if (spec_is_float_text(s))
            return SPEC_SCALAR_FLOAT;
    }
    return SPEC_SCALAR_STRING;
}

/* A scalar and its text are one allocation: a spec is mostly scalars, and
 * halving the allocations showed in the parse benchmark. */
static struct spec_node *
scalar_alloc(const char *text, size_t len)
{
    struct spec_node *n = calloc(1, sizeof(*n) + len + 1);

    if (n == NULL)
        return NULL;
    n->kind = SPEC_NODE_SCALAR;
    n->len = len;
    n->value = (char *)(n + 1);
    memcpy(n->value, text, len + 1);
    return n;
}

struct spec_node *
spec_node_new_scalar(const char *text, bool quoted, unsigned line, unsigned col)
{
    struct spec_node *n = scalar_alloc(text, strlen(text));

    if (n == NULL)
        return NULL;
    n->line = line;
    n->col = col;
    n->type = spec_scalar_resolve(text, quoted);
    return n;
}

void
spec_node_free(struct spec_node *n)
{
    size_t i;

    if (n == NULL)
        return;
    for (i = 0; i < n->n; i++) {
        if (n->kind == SPEC_NODE_SEQ)
            spec_node_free(n->items[i]);
        else if (n->kind == SPEC_NODE_MAP) {
            spec_node_free(n->pairs[i].key);
            spec_node_free(n->pairs[i].value);
        }
    }
    if (n->kind == SPEC_NODE_SEQ)
        free(n->items);
    else if (n->kind == SPEC_NODE_MAP)
        free(n->pairs);
    free(n); /* a scalar's text lives in the same block */
}

struct spec_node *
spec_node_copy(const struct spec_node *n)
{
    struct spec_node *c;
    size_t i;

    if (n->kind == SPEC_NODE_SCALAR) {
        c = scalar_alloc(n->value, n->len);
        if (c != NULL) {
            c->line = n->line;
            c->col = n->col;
            c->type = n->type;
        }
        return c;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    *c = *n;
    c->items = NULL; /* and pairs: one union */
    c->n = c->cap = 0;
    if (n->kind == SPEC_NODE_SEQ) {
        c->items = calloc(n->n ? n->n : 1, sizeof(*c->items));
        if (c->items == NULL)
            goto fail;
        c->cap = n->n ? n->n : 1;
        for (; c->n < n->n; c->n++)
            if ((c->items[c->n] = spec_node_copy(n->items[c->n])) == NULL)
                goto fail;
        return c;
    }
    for (i = 0; i < n->n; i++) {
        struct spec_node *k = spec_node_copy(n->pairs[i].key);
        struct spec_node *v = k ? spec_node_copy(n->pairs[i].value) : NULL;

        if (v == NULL || spec_node_map_add(c, k, v) == -1) {
            spec_node_free(k);
            goto fail;
        }
    }
    return c;
fail:
    spec_node_free(c);
    return NULL;
}

struct spec_pair *
spec_node_pair(const struct spec_node *m, const char *key)
{
    size_t i;

    if (m == NULL || m->kind != SPEC_NODE_MAP)
        return NULL;
    for (i = 0; i < m->n; i++)
        if (strcmp(m->pairs[i].key->value, key) == 0)
            return &m->pairs[i];
    return NULL;
}

struct spec_node *
spec_node_get(const struct spec_node *m, const char *key)
{
    struct spec_pair *p = spec_node_pair(m, key);

    return p ? p->value : NULL;
}

int
spec_node_map_add(struct spec_node *m, struct spec_node *key,
                  struct spec_node *value)
{
    struct spec_pair *p;

    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 8;

        p = realloc(m->pairs, cap * sizeof(*p));
        if (p == NULL) {
            spec_node_free(key);
            spec_node_free(value);
            return -1;
        }
        m->pairs = p;
        m->cap = cap;
    }
    m->pairs[m->n].key = key;
    m->pairs[m->n].value = value;
    m->n++;
    return 0;
}

const char *
spec_node_type_name(const struct spec_node *n)
{
    if (n->kind == SPEC_NODE_MAP)
        return "object";
    if (n->kind == SPEC_NODE_SEQ)
        return "array";
    switch (n->type) {
    case SPEC_SCALAR_INT:
        return "integer";
    case SPEC_SCALAR_FLOAT:
        return "number";
    case SPEC_SCALAR_BOOL:
        return "boolean";
    case SPEC_SCALAR_NULL:
        return "null";
    case SPEC_SCALAR_STRING:
        break;
    }
    return "string";
}

size_t
spec_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];

    if (la >= 63 || lb >= 63)
        return 99;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

            cur[j] =
                sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, sizeof(prev));
    }
    return prev[lb];
}

bool
spec_env_name_ok(const char *k)
{
    if (!((*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z') || *k == '_'))
        return false;
    for (k++; *k != '\0'; k++)
        if (!((*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z') ||
              (*k >= '0' && *k <= '9') || *k == '_'))
            return false;
    return true;
}
