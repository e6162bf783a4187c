/* cli_jsonpath.c - the kubectl JSONPath templates of `get -o jsonpath=`
 * and `-o custom-columns=`: literal text with {...} expressions, each a
 * path (.a.b, [0], [*], .*, ['k'], [?(@.a=="x")] relative to the current
 * node; the filter is cli_jpfilter.c's), a quoted
 * string ({"\n"}), or {range PATH}...{end} repeating its body for each
 * node. Several results of one expression print space-separated; strings
 * raw, other values as compact JSON (kubectl's rules). */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

#define JP_MAX_NODES 4096

struct jp_set {
    const cJSON *v[JP_MAX_NODES];
    size_t n;
};

/* One rendering's state, per call (nothing is kept between calls). */
struct jp_ctx {
    struct jp_set sets[2]; /* eval_path's: large, so not on the stack */
    char *why;             /* why the template failed, for the user */
    size_t why_size;
};

static void
set_add(struct jp_set *s, const cJSON *v)
{
    if (v != NULL && s->n < JP_MAX_NODES)
        s->v[s->n++] = v;
}

static void
step_children(const struct jp_set *in, struct jp_set *out)
{
    for (size_t i = 0; i < in->n; i++) {
        const cJSON *c;

        cJSON_ArrayForEach(c, in->v[i]) set_add(out, c);
    }
}

static void
step_key(const struct jp_set *in, const char *key, size_t len,
         struct jp_set *out)
{
    for (size_t i = 0; i < in->n; i++) {
        const cJSON *c;

        if (!cJSON_IsObject(in->v[i]))
            continue;
        cJSON_ArrayForEach(c, in->v[i]) if (strlen(c->string) == len &&
                                            memcmp(c->string, key, len) == 0)
            set_add(out, c);
    }
}

static void
step_index(const struct jp_set *in, long idx, struct jp_set *out)
{
    for (size_t i = 0; i < in->n; i++) {
        int n = cJSON_GetArraySize(in->v[i]);

        if (!cJSON_IsArray(in->v[i]))
            continue;
        set_add(out, cJSON_GetArrayItem(in->v[i], (int)(idx < 0 ? n + idx : idx)));
    }
}

/* Say why the template failed, in the caller's buffer (if any). */
static int
failed(struct jp_ctx *x, const char *what, const char *at, size_t len)
{
    if (x->why == NULL || x->why_size == 0)
        return -1;
    snprintf(x->why, x->why_size, "%s%s%.*s%s", what, at ? " \"" : "",
             at ? (int)(len > 60 ? 60 : len) : 0, at ? at : "",
             at ? "\"" : "");
    return -1;
}

/* [?(TEST)] at s (after the '['): the elements of each array in cur that
 * pass the test (cli_jpfilter.c); *p moves past the ']'. */
static int
filter(struct jp_ctx *x, const char **p, const struct jp_set *cur,
       struct jp_set *next)
{
    const char *s = *p, *close = strstr(s, ")]");
    bool match;

    if (s[1] != '(' || close == NULL)
        return failed(x, "unclosed filter", s, strlen(s));
    /* checked once on no node, so a malformed test is found also where
     * nothing is there to filter (cli_jsonpath_check's empty object) */
    if (cli_jp_filter(NULL, s + 2, (size_t)(close - s - 2), &match) == -1)
        return failed(x, "malformed filter", s, (size_t)(close - s + 1));
    for (size_t i = 0; i < cur->n; i++) {
        const cJSON *c;

        if (!cJSON_IsArray(cur->v[i]))
            continue;
        cJSON_ArrayForEach(c, cur->v[i])
        {
            if (cli_jp_filter(c, s + 2, (size_t)(close - s - 2), &match) == 0 &&
                match)
                set_add(next, c);
        }
    }
    *p = close + 2;
    return 0;
}

/* One [...] step at *p (after the '['). */
static int
bracket(struct jp_ctx *x, const char **p, const struct jp_set *cur,
        struct jp_set *next)
{
    const char *s = *p, *end;
    char *num_end;
    long idx;

    if (*s == '?')
        return filter(x, p, cur, next);
    if ((end = strchr(s, ']')) == NULL)
        return failed(x, "unclosed [", s, strlen(s));
    if (end - s == 1 && *s == '*')
        step_children(cur, next);
    else if ((*s == '\'' || *s == '"') && end - s >= 2 && end[-1] == *s)
        step_key(cur, s + 1, (size_t)(end - s - 2), next);
    else {
        idx = strtol(s, &num_end, 10);
        if (num_end != end)
            return failed(x, "not an index, a quoted key, * or a filter:", s,
                          (size_t)(end - s));
        step_index(cur, idx, next);
    }
    *p = end + 1;
    return 0;
}

/* Evaluate the path expr[0..len) from root into out; -1 when malformed. */
static int
eval_path(struct jp_ctx *x, const char *expr, size_t len, const cJSON *root,
          struct jp_set *out)
{
    struct jp_set *cur = &x->sets[0], *next = &x->sets[1];
    const char *p = expr, *end = expr + len;

    cur->n = 0;
    set_add(cur, root);
    if (p < end && *p == '@')
        p++;
    while (p < end) {
        next->n = 0;
        if (*p == '.' && p + 1 < end && p[1] == '*') {
            step_children(cur, next);
            p += 2;
        } else if (*p == '.') {
            const char *k = ++p;

            while (p < end && *p != '.' && *p != '[')
                p++;
            if (p == k) /* "." alone: the node itself */
                continue;
            step_key(cur, k, (size_t)(p - k), next);
        } else if (*p == '[') {
            p++;
            if (bracket(x, &p, cur, next) == -1)
                return -1;
            if (p > end)
                return failed(x, "unclosed [", expr, len);
        } else {
            return failed(x, "unrecognized identifier", p, (size_t)(end - p));
        }
        struct jp_set *t = cur;
        cur = next;
        next = t;
    }
    *out = *cur;
    return 0;
}

static void
emit_value(struct buf *b, const cJSON *v)
{
    char *s;

    if (cJSON_IsString(v)) {
        buf_append(b, v->valuestring, strlen(v->valuestring), NULL);
        return;
    }
    if ((s = cJSON_PrintUnformatted(v)) != NULL)
        buf_append(b, s, strlen(s), NULL);
    free(s);
}

/* A quoted literal {"..."} with \n, \t, \" and \\ escapes. */
static void
emit_literal(struct buf *b, const char *s, size_t len)
{
    for (size_t i = 1; i + 1 < len; i++) {
        char ch = s[i];

        if (ch == '\\' && i + 2 < len) {
            ch = s[++i];
            ch = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch;
        }
        buf_append(b, &ch, 1, NULL);
    }
}

static int render(struct jp_ctx *x, const char *t, size_t len,
                  const cJSON *root, struct buf *b);

/* The {end} that closes a {range} body starting at t. */
static const char *
range_end(const char *t, const char *end)
{
    int depth = 1;

    for (const char *p = t; p < end; p++) {
        if (strncmp(p, "{range ", 7) == 0)
            depth++;
        else if (strncmp(p, "{end}", 5) == 0 && --depth == 0)
            return p;
    }
    return NULL;
}

static int
render_range(struct jp_ctx *x, const char *expr, size_t len, const char **t,
             const char *end, const cJSON *root, struct buf *b)
{
    const char *body = *t, *stop = range_end(body, end);
    struct jp_set items;

    if (stop == NULL)
        return failed(x, "{range} without its {end}", NULL, 0);
    if (eval_path(x, expr, len, root, &items) == -1)
        return -1;
    /* eval_path's sets are reused: copy the items out first */
    const cJSON **v = calloc(items.n + 1, sizeof(*v));

    if (v == NULL)
        return -1;
    memcpy(v, items.v, items.n * sizeof(*v));
    for (size_t i = 0, n = items.n; i < n; i++)
        if (render(x, body, (size_t)(stop - body), v[i], b) == -1) {
            free(v);
            return -1;
        }
    free(v);
    *t = stop + 5;
    return 0;
}

static int
render(struct jp_ctx *x, const char *t, size_t len, const cJSON *root,
       struct buf *b)
{
    const char *end = t + len;

    while (t < end) {
        const char *open = memchr(t, '{', (size_t)(end - t)), *close;
        struct jp_set r;

        if (open == NULL)
            return buf_append(b, t, (size_t)(end - t), NULL) == -1 ? -1 : 0;
        buf_append(b, t, (size_t)(open - t), NULL);
        if ((close = memchr(open, '}', (size_t)(end - open))) == NULL)
            return failed(x, "unclosed action", open, (size_t)(end - open));
        const char *e = open + 1;
        size_t elen = (size_t)(close - e);

        t = close + 1;
        if (elen > 0 && (*e == '"' || *e == '\'')) {
            emit_literal(b, e, elen);
        } else if (elen > 6 && strncmp(e, "range ", 6) == 0) {
            if (render_range(x, e + 6, elen - 6, &t, end, root, b) == -1)
                return -1;
        } else if (elen == 3 && strncmp(e, "end", 3) == 0) {
            return failed(x, "{end} without its {range}", NULL, 0);
        } else if (eval_path(x, e, elen, root, &r) == 0) {
            for (size_t i = 0; i < r.n; i++) {
                if (i > 0)
                    buf_append(b, " ", 1, NULL);
                emit_value(b, r.v[i]);
            }
        } else {
            return -1;
        }
    }
    return 0;
}

/* tmpl applied to root; NULL when malformed, why (if not NULL) then
 * saying why. */
static char *
jsonpath_run(const char *tmpl, const cJSON *root, char *why, size_t why_size)
{
    struct jp_ctx *x = calloc(1, sizeof(*x));
    struct buf b;
    char *out = NULL;

    if (x == NULL)
        return NULL;
    x->why = why;
    x->why_size = why_size;
    buf_init(&b, 64 << 20);
    if (render(x, tmpl, strlen(tmpl), root, &b) == 0) {
        out = b.data != NULL ? b.data : strdup(""); /* buf keeps a NUL */
        b.data = NULL;
    }
    buf_cleanup(&b);
    free(x);
    return out;
}

char *
cli_jsonpath(const char *tmpl, const cJSON *root)
{
    return jsonpath_run(tmpl, root, NULL, 0);
}

const char *
cli_jsonpath_check(const char *tmpl, char *why, size_t size)
{
    cJSON *empty = cJSON_CreateObject();
    char *s;

    snprintf(why, size, "%s", "");
    s = jsonpath_run(tmpl, empty, why, size);
    cJSON_Delete(empty);
    if (s != NULL) {
        free(s);
        return NULL;
    }
    if (why[0] == '\0')
        snprintf(why, size, "%s", "malformed template");
    return why;
}
