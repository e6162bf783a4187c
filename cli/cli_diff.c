/* cli_diff.c - agentctl diff: the canonical YAML of each stored resource
 * against the input's, as a unified diff (an LCS over lines, 3 lines of
 * context), or with -o json one object per input document saying what
 * apply would do and carrying that diff. Exit 0 same, 1 different, 2
 * error. */
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
print_hunks(FILE *out, const struct edit *ops, size_t k)
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

            fprintf(out, "@@ -%zu,%zu +%zu,%zu @@\n", na ? a0 + 1 : a0, na,
                    nb ? b0 + 1 : b0, nb);
        }
        for (size_t p = start; p < end; p++)
            fprintf(out, "%c%s\n", ops[p].op, ops[p].line);
        i = end;
    }
}

/* Print the diff of two texts (both consumed); -1 when out of memory. */
static int
diff_texts(FILE *out, const char *name, char *old, char *new)
{
    struct lines x = { 0 }, y = { 0 };
    struct edit *ops = NULL;
    int rc = -1;

    if (split(old, &x) == 0 && split(new, &y) == 0)
        ops = calloc(x.n + y.n + 1, sizeof(*ops));
    if (ops != NULL) {
        fprintf(out, "--- live/%s\n+++ input/%s\n", name, name);
        print_hunks(out, ops, edit_script(&x, &y, ops));
        rc = 0;
    }
    free(ops);
    free(x.v);
    free(y.v);
    return rc;
}

/* The item of diff -o json for one document; diff is the unified diff
 * (NULL when the stored resource is the same). */
static int
add_json_item(cJSON *items, const char *name, const char *action,
              const char *diff)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL || !cJSON_AddItemToArray(items, o)) {
        cJSON_Delete(o);
        return -1;
    }
    if (!cJSON_AddStringToObject(o, "name", name) ||
        !cJSON_AddStringToObject(o, "action", action) ||
        !(diff ? cJSON_AddStringToObject(o, "diff", diff)
               : cJSON_AddNullToObject(o, "diff")))
        return -1;
    return 0;
}

/* The diff of old and new (both consumed) as text or, with items, as
 * a JSON item; -1 on error. Bounded: both sides are canonical specs of at
 * most SPEC_MAX_FILE_BYTES, so the text is too. */
static int
emit_diff(cJSON *items, const char *name, const char *action, char *old,
          char *new)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem;
    int rc;

    if (items == NULL)
        return diff_texts(stdout, name, old, new);
    mem = open_memstream(&text, &len);
    if (mem == NULL)
        return -1;
    rc = diff_texts(mem, name, old, new);
    if (fclose(mem) != 0)
        rc = -1;
    if (rc == 0)
        rc = add_json_item(items, name, action, text);
    free(text);
    return rc;
}

/* 0 same, 1 differs (diff printed or added to items), -1 error. */
static int
diff_one(struct cli *c, const struct spec_invocation *inv, cJSON *items)
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
    if (sp.inv != NULL && spec_same_resource(sp.inv, inv)) {
        store_spec_cleanup(&sp);
        return items ? add_json_item(items, inv->name, "none", NULL) : 0;
    }
    if (sp.inv != NULL)
        old = cli_spec_yaml(sp.inv);
    else /* absent, or a file that does not validate: its bytes */
        old = strdup(sp.data ? sp.data : "");
    new = cli_spec_yaml(inv);
    rc = old && new ? emit_diff(items, inv->name,
                                sp.data != NULL ? "update" : "create", old, new)
                    : -1;
    free(old);
    free(new);
    store_spec_cleanup(&sp);
    return rc == 0 ? 1 : -1;
}

/* diff -o json: {changed, items} on stdout. */
static int
print_diff_json(cJSON *items, bool changed)
{
    cJSON *o = cJSON_CreateObject();
    int rc = CLI_USAGE;

    if (o != NULL && cJSON_AddBoolToObject(o, "changed", changed) &&
        cJSON_AddItemReferenceToObject(o, "items", items))
        rc = cli_print_doc(o, "json") == CLI_OK ? CLI_OK : CLI_USAGE;
    cJSON_Delete(o);
    return rc;
}

int
cli_diff(struct cli *c, const struct cli_args *a)
{
    struct cli_input in = { 0 };
    bool json = false;
    cJSON *items = NULL;
    int rc;

    if (cli_json_output(a, &json) != CLI_OK)
        return CLI_USAGE;
    rc = cli_input_from_args(a, false, &in) == CLI_OK ? CLI_OK : CLI_USAGE;
    if (rc == CLI_OK && json && (items = cJSON_CreateArray()) == NULL)
        rc = CLI_USAGE;
    else if (rc == CLI_OK && cli_input_report(&in, NULL) > 0)
        rc = CLI_USAGE;
    for (size_t i = 0; rc != CLI_USAGE && i < in.n; i++)
        for (size_t j = 0; rc != CLI_USAGE && j < in.files[i].n; j++) {
            int d = diff_one(c, in.files[i].items[j], items);

            if (d == -1)
                rc = CLI_USAGE;
            else if (d == 1)
                rc = CLI_FAIL;
        }
    if (json && rc != CLI_USAGE &&
        print_diff_json(items, rc == CLI_FAIL) != CLI_OK)
        rc = CLI_USAGE;
    cJSON_Delete(items);
    cli_input_cleanup(&in);
    return rc;
}
