/* cli_get_pool.c - agentctl get pool: the warm pool's boxes of every
 * controller, from the pool documents (pool/<controller-id>, written by
 * each controller: docs/warm-pool.md "Observability"), as a table (NAME
 * VENDOR STATE SUBNET AGE, CONTROLLER with -o wide) or the documents
 * themselves as a List (-o json|yaml|jsonpath). A document that cannot
 * be read is reported on stderr and left out; the others are printed and
 * the exit code says that one was not. Rows: cli_pool.c. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL_COLS 6 /* NAME VENDOR STATE SUBNET AGE CONTROLLER */

static const char *const pool_head[POOL_COLS] = {
    "NAME", "VENDOR", "STATE", "SUBNET", "AGE", "CONTROLLER",
};

static void
print_row(const char *const *cells, const size_t *width, size_t shown)
{
    for (size_t k = 0; k < shown; k++)
        printf("%-*s%s", k + 1 < shown ? (int)width[k] : 0, cells[k],
               k + 1 < shown ? "   " : "\n");
}

static void
print_table(const struct cli_get *g, const struct cli_pool_rows *rows)
{
    size_t shown = g->out == GET_OUT_WIDE ? POOL_COLS : POOL_COLS - 1;
    size_t width[POOL_COLS];
    char(*age)[32] = calloc(rows->n + 1, sizeof(*age));

    if (age == NULL)
        return;
    for (size_t k = 0; k < POOL_COLS; k++)
        width[k] = strlen(pool_head[k]);
    for (size_t i = 0; i < rows->n; i++) {
        const struct cli_pool_box *b = &rows->v[i];
        const char *cells[POOL_COLS] = { b->name,   b->vendor, b->state,
                                         b->subnet, age[i],    b->controller };

        cli_age(b->created_at, age[i], sizeof(age[i]));
        for (size_t k = 0; k < POOL_COLS; k++)
            if (strlen(cells[k]) > width[k])
                width[k] = strlen(cells[k]);
    }
    if (!g->no_headers)
        print_row(pool_head, width, shown);
    for (size_t i = 0; i < rows->n; i++) {
        const struct cli_pool_box *b = &rows->v[i];
        const char *cells[POOL_COLS] = { b->name,   b->vendor, b->state,
                                         b->subnet, age[i],    b->controller };

        print_row(cells, width, shown);
    }
    free(age);
}

/* What get's flags ask that a pool cannot give: the usage error, or
 * CLI_OK. */
static int
check_args(const struct cli_args *a, const struct cli_get *g)
{
    if (a->npos > 0)
        return cli_usage_error(a->cmd,
                               "pool takes no names (an invocation called "
                               "\"%s\": agentctl get agentinvocation %s)",
                               a->pos[0], a->pos[0]);
    if (cli_args_has(a, "selector") || cli_args_has(a, "show-labels"))
        return cli_usage_error(a->cmd, "pool boxes have no labels: -l and "
                                       "--show-labels do not apply");
    if (cli_args_has(a, "watch"))
        return cli_usage_error(a->cmd, "-w is not supported for pool");
    if (cli_args_has(a, "sort-by") || cli_args_has(a, "field-selector"))
        return cli_usage_error(a->cmd, "pool rows are sorted by name: "
                                       "--sort-by and --field-selector do "
                                       "not apply");
    if (g->out == GET_OUT_NAME || g->out == GET_OUT_COLUMNS)
        return cli_usage_error(a->cmd,
                               "pool prints as wide, json, yaml or "
                               "jsonpath=..., not as -o %s",
                               cli_args_get(a, "output", ""));
    return CLI_OK;
}

/* Every pool document: each one read is added to items and its boxes to
 * rows (borrowing from the document and from names); one that cannot be
 * read is reported and makes the result CLI_FAIL. */
static int
read_pools(struct cli *c, char **names, size_t n, cJSON *items,
           struct cli_pool_rows *rows)
{
    int rc = CLI_OK;

    for (size_t i = 0; i < n; i++) {
        struct err e = { 0 };
        cJSON *doc = NULL;

        if (store_json_get(c->store, STORE_DOC_POOL, names[i], &doc, &e) ==
            -1) {
            if (e.code == ERR_NOTFOUND)
                continue; /* removed since the listing */
            fprintf(stderr, "error: pool document \"%s\": %s\n", names[i],
                    e.code == ERR_SYNTAX ? "not a JSON object" : e.msg);
            rc = CLI_FAIL;
            continue;
        }
        if (cli_pool_add(rows, doc, names[i], &e) == -1) {
            fprintf(stderr, "error: pool document \"%s\": %s\n", names[i],
                    e.msg);
            cJSON_Delete(doc);
            rc = CLI_FAIL;
            continue;
        }
        cJSON_AddItemToArray(items, doc);
    }
    return rc;
}

int
cli_get_pool(struct cli *c, const struct cli_args *a, struct cli_get *g)
{
    struct cli_pool_rows rows = { 0 };
    struct err e = { 0 };
    char **names = NULL, *text;
    size_t n = 0;
    cJSON *list, *items;
    int rc;

    if ((rc = check_args(a, g)) != CLI_OK)
        return rc;
    if (store_doc_names(c->store, STORE_DOC_POOL, &names, &n, &e) == -1) {
        fprintf(stderr, "error: %s\n", e.msg);
        return CLI_FAIL;
    }
    /* the List -o json shows, as get's of invocations */
    list = cJSON_CreateObject();
    if (list == NULL ||
        cJSON_AddStringToObject(list, "apiVersion", "v1") == NULL ||
        (items = cJSON_AddArrayToObject(list, "items")) == NULL ||
        cJSON_AddStringToObject(list, "kind", "List") == NULL) {
        fprintf(stderr, "error: out of memory\n");
        rc = CLI_FAIL;
        goto out;
    }
    rc = read_pools(c, names, n, items, &rows);
    cli_pool_sort(&rows);
    switch (g->out) {
    case GET_OUT_TABLE:
    case GET_OUT_WIDE:
        if (rows.n == 0)
            fprintf(stderr, "No resources found\n");
        else
            print_table(g, &rows);
        break;
    case GET_OUT_JSONPATH:
        if ((text = cli_jsonpath(g->tmpl, list)) == NULL) {
            rc = CLI_FAIL;
            break;
        }
        fputs(text, stdout);
        free(text);
        break;
    default:
        if (cli_print_doc(list, g->out == GET_OUT_JSON ? "json" : "yaml") !=
            CLI_OK)
            rc = CLI_FAIL;
    }
out:
    cli_pool_rows_cleanup(&rows);
    cJSON_Delete(list);
    store_names_free(names, n);
    return rc;
}
