/* store_terminating.c - deleted invocations whose cleanup is pending
 * (store.h: store_terminating_list, store_terminating_get), on any store:
 * a status document with no spec of its name. The controller keeps the
 * status until it removed every Docker object the status records, then
 * deletes it and the metadata (controller/pass/pass_inv.c pass_deleted); the
 * directory store keeps it as <state>/status/<name>.json, etcd as
 * <prefix>/status/<name>. */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#include "spec.h"

static int
by_name(const void *a, const void *b)
{
    const struct store_spec *x = a, *y = b;

    return strcmp(x->name, y->name);
}

/* The spec the attempt was captured from, as the status keeps it; NULL
 * when there is none (deleted before capture) or it does not load. */
static struct spec_invocation *
captured_spec(const char *name, const cJSON *status)
{
    const cJSON *cap = cJSON_GetObjectItemCaseSensitive(status, "captured");
    struct spec_invocation *inv = NULL;
    struct spec_file f;
    char *text;

    if (!cJSON_IsObject(cap) || (text = cJSON_PrintUnformatted(cap)) == NULL)
        return NULL;
    /* JSON is YAML: the captured resource loads as a spec file would */
    if (spec_load_buffer(name, text, strlen(text), &f) == 0 && f.n == 1)
        inv = spec_file_take(&f, 0);
    spec_file_cleanup(&f);
    cJSON_free(text);
    return inv;
}

/* name's status, read as a terminating entry; -1 without one. */
static int
entry_of(struct store *s, const char *name, struct store_spec *out,
         struct err *e)
{
    cJSON *st = NULL;

    memset(out, 0, sizeof(*out));
    if (store_json_get(s, STORE_DOC_STATUS, name, &st, e) == -1)
        return -1;
    out->name = strdup(name);
    if (out->name == NULL) {
        cJSON_Delete(st);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    out->terminating = true;
    out->inv = captured_spec(name, st);
    cJSON_Delete(st);
    return 0;
}

static bool
has_spec(const struct store_list *l, const char *name)
{
    struct store_spec key = { .name = (char *)name };

    return bsearch(&key, l->items, l->n, sizeof(*l->items), by_name) != NULL;
}

int
store_terminating_list(struct store *s, struct store_list *l, struct err *e)
{
    char **names = NULL;
    size_t n = 0, k = 0;
    struct store_spec *grown;

    if (store_doc_names(s, STORE_DOC_STATUS, &names, &n, e) == -1)
        return -1;
    grown = n ? realloc(l->items, (l->n + n) * sizeof(*l->items)) : l->items;
    if (grown == NULL) {
        store_names_free(names, n);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    l->items = grown;
    for (size_t i = 0; i < n; i++)
        /* a status read as its spec is deleted is left out: its cleanup
         * ended meanwhile */
        if (store_name_ok(names[i]) && !has_spec(l, names[i]) &&
            entry_of(s, names[i], &l->items[l->n + k], NULL) == 0)
            k++;
    l->n += k;
    qsort(l->items, l->n, sizeof(*l->items), by_name);
    store_names_free(names, n);
    return 0;
}

int
store_terminating_get(struct store *s, const char *name,
                      struct store_spec *out, struct err *e)
{
    struct store_spec sp;
    struct err got = { 0 };

    if (store_get(s, name, &sp, &got) == 0) {
        store_spec_cleanup(&sp);
        return err_set(e, ERR_NOTFOUND, "agentinvocation \"%s\" has a spec",
                       name);
    }
    if (got.code != ERR_NOTFOUND) {
        if (e != NULL)
            *e = got;
        return -1;
    }
    if (entry_of(s, name, out, NULL) == -1)
        return err_set(e, ERR_NOTFOUND, "agentinvocation \"%s\" not found",
                       name);
    return 0;
}
