/* spec_dup.c - a deep copy of a checked invocation, so a cache that
 * parsed a file once can hand out copies without parsing it again
 * (store/store_dir_index.c). */
#include "spec.h"

#include <stdlib.h>
#include <string.h>

/* strdup that keeps NULL as NULL; *ok turns false when memory ran out. */
static char *
dup_str(const char *s, bool *ok)
{
    char *p;

    if (s == NULL)
        return NULL;
    p = strdup(s);
    if (p == NULL)
        *ok = false;
    return p;
}

static void
dup_kvlist(const struct spec_kvlist *from, struct spec_kvlist *to, bool *ok)
{
    to->n = 0;
    to->items = NULL;
    if (from->n == 0)
        return;
    to->items = calloc(from->n, sizeof(*to->items));
    if (to->items == NULL) {
        *ok = false;
        return;
    }
    for (; to->n < from->n; to->n++) {
        to->items[to->n].key = dup_str(from->items[to->n].key, ok);
        to->items[to->n].value = dup_str(from->items[to->n].value, ok);
    }
}

/* Same shape as the loader's: n strings and a NULL after them. */
static void
dup_argv(const struct spec_argv *from, struct spec_argv *to, bool *ok)
{
    to->n = 0;
    to->argv = NULL;
    if (from->argv == NULL)
        return;
    to->argv = calloc(from->n + 1, sizeof(char *));
    if (to->argv == NULL) {
        *ok = false;
        return;
    }
    for (; to->n < from->n; to->n++)
        to->argv[to->n] = dup_str(from->argv[to->n], ok);
}

struct spec_invocation *
spec_invocation_dup(const struct spec_invocation *inv)
{
    struct spec_invocation *c = malloc(sizeof(*c));
    bool ok = true;

    if (c == NULL)
        return NULL;
    *c = *inv; /* the scalars; every pointer is replaced below */
    c->name = dup_str(inv->name, &ok);
    dup_kvlist(&inv->labels, &c->labels, &ok);
    dup_kvlist(&inv->annotations, &c->annotations, &ok);
    c->vendor = dup_str(inv->vendor, &ok);
    c->image = dup_str(inv->image, &ok);
    dup_argv(&inv->command, &c->command, &ok);
    c->prompt = dup_str(inv->prompt, &ok);
    dup_argv(&inv->runner, &c->runner, &ok);
    dup_kvlist(&inv->env, &c->env, &ok);
    c->credential = dup_str(inv->credential, &ok);
    c->workspace_source = dup_str(inv->workspace_source, &ok);
    c->attempt = dup_str(inv->attempt, &ok);
    c->resource = NULL;
    if (inv->resource != NULL &&
        (c->resource = cJSON_Duplicate(inv->resource, 1)) == NULL)
        ok = false;
    c->file = dup_str(inv->file, &ok);
    if (!ok) {
        spec_invocation_free(c);
        return NULL;
    }
    return c;
}
