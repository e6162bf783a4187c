/* cli_selector.c - kubectl label selectors (-l): parse once, match each
 * invocation's metadata.labels. The grammar is the API server's:
 * requirements joined by ',' (and), each `k=v`, `k==v`, `k!=v`, `k`,
 * `!k`, `k in (a,b)` or `k notin (a,b)`. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum sel_op { SEL_EQ, SEL_NE, SEL_EXISTS, SEL_ABSENT, SEL_IN, SEL_NOTIN };

struct sel_req {
    enum sel_op op;
    char *key;
    char **values;
    size_t nvalues;
};

struct cli_selector {
    struct sel_req *reqs;
    size_t n;
};

static char *
trimmed(const char *s, size_t n)
{
    while (n > 0 && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return strndup(s, n);
}

static bool
word_ok(const char *w, bool empty_ok)
{
    if (*w == '\0')
        return empty_ok;
    for (const char *p = w; *p; p++)
        if (strchr(" \t,=!()", *p) != NULL)
            return false;
    return true;
}

/* "(a, b)" -> values; -1 when it is not a parenthesised list. */
static int
parse_set(const char *s, struct sel_req *r)
{
    const char *p = s, *end = strrchr(s, ')');

    while (*p == ' ')
        p++;
    if (*p != '(' || end == NULL || end[1] != '\0')
        return -1;
    for (p++; p <= end;) {
        const char *q = p;
        char **v;

        while (q < end && *q != ',')
            q++;
        v = realloc(r->values, (r->nvalues + 1) * sizeof(*v));
        if (v == NULL)
            return -1;
        r->values = v;
        if ((v[r->nvalues] = trimmed(p, (size_t)(q - p))) == NULL)
            return -1;
        if (!word_ok(v[r->nvalues++], true))
            return -1;
        p = q + 1;
    }
    return 0;
}

static int
parse_req(const char *s, struct sel_req *r)
{
    const char *op;

    while (*s == ' ')
        s++;
    if (*s == '!') {
        r->op = SEL_ABSENT;
        r->key = trimmed(s + 1, strlen(s + 1));
        return r->key && word_ok(r->key, false) ? 0 : -1;
    }
    if ((op = strstr(s, " notin ")) != NULL || (op = strstr(s, " in ")) != NULL) {
        bool notin = strncmp(op, " notin ", 7) == 0;

        r->op = notin ? SEL_NOTIN : SEL_IN;
        r->key = trimmed(s, (size_t)(op - s));
        return r->key && word_ok(r->key, false) &&
                       parse_set(op + (notin ? 7 : 4), r) == 0
                   ? 0
                   : -1;
    }
    if ((op = strchr(s, '=')) == NULL) {
        r->op = SEL_EXISTS;
        r->key = trimmed(s, strlen(s));
        return r->key && word_ok(r->key, false) ? 0 : -1;
    }
    r->op = op > s && op[-1] == '!' ? SEL_NE : SEL_EQ;
    r->key = trimmed(s, (size_t)(op - s - (r->op == SEL_NE)));
    op += op[1] == '=' && r->op == SEL_EQ ? 2 : 1;
    r->values = calloc(1, sizeof(char *));
    if (r->key == NULL || r->values == NULL)
        return -1;
    r->values[0] = trimmed(op, strlen(op));
    r->nvalues = 1;
    return r->values[0] && word_ok(r->key, false) && word_ok(r->values[0], true)
               ? 0
               : -1;
}

/* Split at the commas outside parentheses. */
static int
split_reqs(const char *text, struct cli_selector *s)
{
    const char *p = text;

    while (*p != '\0') {
        const char *q = p;
        int depth = 0;
        char *one;
        struct sel_req *r;

        while (*q != '\0' && (*q != ',' || depth > 0))
            depth += (*q == '(') - (*q == ')'), q++;
        r = realloc(s->reqs, (s->n + 1) * sizeof(*r));
        if (r == NULL)
            return -1;
        s->reqs = r;
        memset(&r[s->n], 0, sizeof(*r));
        one = strndup(p, (size_t)(q - p));
        if (one == NULL || parse_req(one, &r[s->n++]) == -1) {
            free(one);
            return -1;
        }
        free(one);
        p = *q == ',' ? q + 1 : q;
    }
    return s->n > 0 ? 0 : -1;
}

struct cli_selector *
cli_selector_parse(const char *text)
{
    struct cli_selector *s = calloc(1, sizeof(*s));

    if (s != NULL && split_reqs(text, s) == 0)
        return s;
    cli_selector_free(s);
    return NULL;
}

void
cli_selector_free(struct cli_selector *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++) {
        for (size_t k = 0; k < s->reqs[i].nvalues; k++)
            free(s->reqs[i].values[k]);
        free(s->reqs[i].values);
        free(s->reqs[i].key);
    }
    free(s->reqs);
    free(s);
}

static const char *
label(const struct spec_kvlist *l, const char *key)
{
    for (size_t i = 0; l != NULL && i < l->n; i++)
        if (strcmp(l->items[i].key, key) == 0)
            return l->items[i].value;
    return NULL;
}

static bool
in_values(const struct sel_req *r, const char *v)
{
    for (size_t i = 0; v != NULL && i < r->nvalues; i++)
        if (strcmp(r->values[i], v) == 0)
            return true;
    return false;
}

bool
cli_selector_match(const struct cli_selector *s, const struct spec_kvlist *l)
{
    for (size_t i = 0; s != NULL && i < s->n; i++) {
        const struct sel_req *r = &s->reqs[i];
        const char *v = label(l, r->key);
        bool ok;

        switch (r->op) {
        case SEL_EQ:
        case SEL_IN:
            ok = in_values(r, v);
            break;
        case SEL_NE:
        case SEL_NOTIN:
            ok = !in_values(r, v); /* kubectl: an absent key matches */
            break;
        case SEL_EXISTS:
            ok = v != NULL;
            break;
        default:
            ok = v == NULL;
        }
        if (!ok)
            return false;
    }
    return true;
}

int
cli_selector_from_args(const struct cli_args *a, struct cli_selector **out)
{
    const char *text = cli_args_get(a, "selector", NULL);

    *out = NULL;
    if (text == NULL)
        return CLI_OK;
    if ((*out = cli_selector_parse(text)) == NULL)
        return cli_usage_error(a->cmd, "unable to parse selector \"%s\"",
                               text);
    return CLI_OK;
}
