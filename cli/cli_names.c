/* cli_names.c - the invocations a command line names: its arguments, the
 * documents of its -f inputs, or the stored ones a label selector (or
 * --all) picks. Shared by delete, get and describe. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
add(struct cli_names *l, const char *name)
{
    char **v;

    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], name) == 0)
            return 0; /* kubectl acts on a name once */
    v = realloc(l->v, (l->n + 1) * sizeof(*v));
    if (v == NULL)
        return -1;
    l->v = v;
    if ((l->v[l->n] = strdup(name)) == NULL)
        return -1;
    l->n++;
    return 0;
}

int
cli_names_add_args(struct cli_names *l, const struct cli_args *a)
{
    for (size_t i = 0; i < a->npos; i++)
        if (add(l, a->pos[i]) == -1)
            return CLI_FAIL;
    return CLI_OK;
}

int
cli_names_from_input(struct cli_names *l, const struct cli_args *a)
{
    struct cli_input in;
    int rc = cli_input_from_args(a, false, &in);

    if (rc == CLI_OK && cli_input_report(&in, NULL) > 0)
        rc = CLI_FAIL;
    for (size_t i = 0; rc == CLI_OK && i < in.n; i++)
        for (size_t k = 0; rc == CLI_OK && k < in.files[i].n; k++)
            if (add(l, in.files[i].items[k]->name) == -1)
                rc = CLI_FAIL;
    cli_input_cleanup(&in);
    return rc;
}

int
cli_names_select(struct cli *c, const struct cli_args *a, struct cli_names *l)
{
    struct cli_selector *sel;
    struct store_list sl;
    struct err e = { 0 };
    int rc;

    if ((rc = cli_selector_from_args(a, &sel)) != CLI_OK)
        return rc;
    if (store_list(c->store, &sl, &e) == -1) {
        fprintf(stderr, "error: %s\n", e.msg);
        cli_selector_free(sel);
        return CLI_FAIL;
    }
    for (size_t i = 0; rc == CLI_OK && i < sl.n; i++) {
        const struct spec_invocation *inv = sl.items[i].inv;

        /* an invalid file has no labels: only --all reaches it */
        if (sel != NULL && (inv == NULL || !cli_selector_match(sel, &inv->labels)))
            continue;
        if (add(l, sl.items[i].name) == -1)
            rc = CLI_FAIL;
    }
    store_list_cleanup(&sl);
    cli_selector_free(sel);
    return rc;
}

void
cli_names_cleanup(struct cli_names *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof(*l));
}
