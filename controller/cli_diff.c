/* cli_diff.c - agentctl diff: the canonical YAML of each stored resource
 * against the input's, as a unified diff (an LCS over lines, 3 lines of
 * context). Exit 0 same, 1 different, 2 error. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_MAX_CELLS (8u * 1024 * 1024) /* LCS table cap */
#define DIFF_CONTEXT   3

struct lines {
    char **v;
    size_t n;
};

static const char diff_usage[] =
    "usage: agentctl diff -f PATH\n\n"
    "Show how the input differs from the stored specs (canonical YAML,\n"
    "unified format). Exit 0 when nothing differs, 1 when something\n"
    "does, 2 on errors (including invalid input).\n";

/* Split text in place at newlines. */
static int
split(char *text, struct lines *l)
{
    size_t cap = 1;

    for (const char *p = text; *p; p++)
        cap += *p == '\n';
    l->v = calloc(cap, sizeof(*l->v));
    l->n = 0;
    if (l->v == NULL)
        return -1;
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');

        l->v[l->n++] = p;
        if (nl == NULL)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    return 0;
}

/* Edit script: ops[k] is ' ', '-' or '+', with the line it prints. */
struct edit {
    char op;
    const char *line;
    size_t a, b; /* line numbers (1-based) in old and new after this op */
};

static size_t
edit_script(const struct lines *x, const struct lines *y, struct edit *ops)
{
    size_t n = x->n, m = y->n, k = 0, i = 0, j = 0;
    unsigned *t = NULL;

    if ((n + 1) * (m + 1) <= DIFF_MAX_CELLS)
        t = calloc((n + 1) * (m + 1), sizeof(*t));
    /* t[i][j] = LCS length of x[i..] and y[j..]; without the table (too
     * big) every line counts as changed. */
    for (size_t a = n + 1; t != NULL && a-- > 0;)
        for (size_t b = m + 1; b-- > 0;) {
            unsigned *c = &t[a * (m + 1) + b];

            if (a == n || b == m)
                *c = 0;
            else if (strcmp(x->v[a], y->v[b]) == 0)
                *c = t[(a + 1) * (m + 1) + b + 1] + 1;
            else {
                unsigned d = t[(a + 1) * (m + 1) + b];
                unsigned r = t[a * (m + 1) + b + 1];
                *c = d > r ? d : r;
            }
        }
    while (i < n || j < m) {
        struct edit *o = &ops[k++];

        if (t && i < n && j < m && strcmp(x->v[i], y->v[j]) == 0) {
            o->op = ' ';
            o->line = x->v[i];
            i++;
            j++;
        } else if (i < n &&
                   (j == m || t == NULL ||
                    t[(i + 1) * (m + 1) + j] >= t[i * (m + 1) + j + 1])) {
            o->op = '-';
            o->line = x->v[i];
            i++;
        } else {
            o->op = '+';
            o->line = y->v[j];
            j++;
        }
        o->a = i;
        o->b = j;
    }
    free(t);
    return k;
}

static void
print_hunks(const struct edit *ops, size_t k)
{
    size_t i = 0;

    while (i < k) {
        size_t start, end, last;

        while (i < k && ops[i].op == ' ')
            i++;
        if (i == k)
            break;
        start = i > DIFF_CONTEXT ? i - DIFF_CONTEXT : 0;
        last = i;
        for (end = i; end < k; end++) {
            if (ops[end].op != ' ')
                last = end;
            else if (end - last > 2 * DIFF_CONTEXT)
                break;
        }
        end = last + DIFF_CONTEXT + 1 < k ? last + DIFF_CONTEXT + 1 : k;
        {
            size_t a0 = start ? ops[start - 1].a : 0;
            size_t b0 = start ? ops[start - 1].b : 0;
            size_t na = ops[end - 1].a - a0, nb = ops[end - 1].b - b0;

            printf("@@ -%zu,%zu +%zu,%zu @@\n", na ? a0 + 1 : a0, na,
                   nb ? b0 + 1 : b0, nb);
        }
        for (size_t p = start; p < end; p++)
            printf("%c%s\n", ops[p].op, ops[p].line);
        i = end;
    }
}

/* Print the diff of two texts (both consumed); -1 when out of memory. */
static int
diff_texts(const char *name, char *old, char *new)
{
    struct lines x = { 0 }, y = { 0 };
    struct edit *ops = NULL;
    int rc = -1;

    if (split(old, &x) == 0 && split(new, &y) == 0)
        ops = calloc(x.n + y.n + 1, sizeof(*ops));
    if (ops != NULL) {
        printf("--- live/%s\n+++ input/%s\n", name, name);
        print_hunks(ops, edit_script(&x, &y, ops));
        rc = 0;
    }
    free(ops);
    free(x.v);
    free(y.v);
    return rc;
}

/* 0 same, 1 differs (diff printed), -1 error. */
static int
diff_one(struct cli *c, const struct spec_invocation *inv)
{
    struct store_spec sp;
    struct err e = { 0 };
    char *old, *new;
    int rc;

    if (store_get(c->store, inv->name, &sp, &e) == -1) {
        if (e.code != ERR_NOTFOUND) {
            fprintf(stderr, "error: %s\n", e.msg);
            return -1;
        }
        memset(&sp, 0, sizeof(sp));
    }
    if (sp.inv != NULL && cJSON_Compare(sp.inv->resource, inv->resource, 1)) {
        store_spec_cleanup(&sp);
        return 0;
    }
    if (sp.inv != NULL)
        old = cli_spec_yaml(sp.inv);
    else /* absent, or a file that does not validate: its bytes */
        old = strdup(sp.data ? sp.data : "");
    new = cli_spec_yaml(inv);
    rc = old && new ? diff_texts(inv->name, old, new) : -1;
    free(old);
    free(new);
    store_spec_cleanup(&sp);
    return rc == 0 ? 1 : -1;
}

int
cli_diff(struct cli *c, int argc, char **argv)
{
    struct cli_input in = { 0 };
    char **paths;
    size_t np = 0;
    int rc = CLI_OK;

    if (cli_wants_help(argc, argv, diff_usage))
        return CLI_OK;
    paths = calloc((size_t)argc, sizeof(*paths));
    if (paths == NULL)
        return CLI_USAGE;
    for (int i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "-f") == 0 ||
             strcmp(argv[i], "--filename") == 0) &&
            i + 1 < argc)
            paths[np++] = argv[++i];
        else {
            free(paths);
            return cli_usage_error("diff", "unexpected argument \"%s\"",
                                   argv[i]);
        }
    }
    if (np == 0) {
        free(paths);
        return cli_usage_error("diff", "no input: pass -f PATH");
    }
    if (cli_input_load(paths, np, &in) == -1 || cli_input_report(&in) > 0)
        rc = CLI_USAGE;
    for (size_t i = 0; rc != CLI_USAGE && i < in.n; i++)
        for (size_t j = 0; rc != CLI_USAGE && j < in.files[i].n; j++) {
            int d = diff_one(c, in.files[i].items[j]);

            if (d == -1)
                rc = CLI_USAGE;
            else if (d == 1)
                rc = CLI_FAIL;
        }
    cli_input_cleanup(&in);
    free(paths);
    return rc;
}
