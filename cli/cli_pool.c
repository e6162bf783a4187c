/* cli_pool.c - the pure part of `agentctl get pool`: a pool document
 * (pool/<controller-id>, written by the controller: docs/warm-pool.md) as
 * table rows, one per box, sorted by name. cli_get_pool.c reads the
 * documents and prints. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char *
str_or(const cJSON *obj, const char *key, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : dflt;
}

int
cli_pool_add(struct cli_pool_rows *rows, const cJSON *doc, const char *id,
             struct err *e)
{
    const cJSON *boxes = cJSON_GetObjectItemCaseSensitive(doc, "boxes");
    const cJSON *b;
    const char *controller = str_or(doc, "controller", id);
    struct cli_pool_box *v;
    size_t n = 0, i = 0;

    if (!cJSON_IsObject(doc))
        return err_set(e, ERR_SYNTAX, "not a JSON object");
    if (boxes == NULL || cJSON_IsNull(boxes))
        return 0; /* no box yet */
    if (!cJSON_IsArray(boxes))
        return err_set(e, ERR_SYNTAX, "boxes is not an array");
    /* every box checked before any is added: all or nothing */
    cJSON_ArrayForEach(b, boxes)
    {
        if (!cJSON_IsObject(b) || str_or(b, "name", NULL) == NULL)
            return err_set(e, ERR_SYNTAX,
                           "boxes[%zu] is not an object with a name", n);
        n++;
    }
    if (n == 0)
        return 0;
    v = realloc(rows->v, (rows->n + n) * sizeof(*v));
    if (v == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    rows->v = v;
    cJSON_ArrayForEach(b, boxes)
    {
        struct cli_pool_box *r = &rows->v[rows->n + i++];

        r->name = str_or(b, "name", NULL);
        r->vendor = str_or(b, "vendor", "<none>");
        r->state = str_or(b, "state", "<none>");
        r->subnet = str_or(b, "subnet", "<none>");
        r->created_at = str_or(b, "createdAt", NULL);
        r->controller = controller;
    }
    rows->n += n;
    return 0;
}

static int
box_cmp(const void *a, const void *b)
{
    const struct cli_pool_box *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    return c != 0 ? c : strcmp(x->controller, y->controller);
}

void
cli_pool_sort(struct cli_pool_rows *rows)
{
    if (rows->n > 1)
        qsort(rows->v, rows->n, sizeof(*rows->v), box_cmp);
}

void
cli_pool_rows_cleanup(struct cli_pool_rows *rows)
{
    free(rows->v);
    memset(rows, 0, sizeof(*rows));
}
