/* px_allow.c - the allowlist: parse --allow values, match a target. */
#include "px_allow.h"

#include <stdlib.h>
#include <string.h>

void
px_allow_init(struct px_allow *a)
{
    a->items = NULL;
    a->len = 0;
}

void
px_allow_cleanup(struct px_allow *a)
{
    free(a->items);
    px_allow_init(a);
}

static int
px_allow_push(struct px_allow *a, const struct hostport *item,
              struct err *e)
{
    struct hostport *grown;

    if (px_allow_match(a, item))
        return 0;
    if (a->len >= PX_ALLOW_MAX)
        return err_set(e, ERR_LIMIT, "more than %d allowlist entries",
                       PX_ALLOW_MAX);
    grown = realloc(a->items, (a->len + 1) * sizeof(*grown));
    if (grown == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    a->items = grown;
    a->items[a->len++] = *item;
    return 0;
}

int
px_allow_add(struct px_allow *a, const char *list, struct err *e)
{
    const char *p = list;

    for (;;) {
        const char *comma = strchr(p, ',');
        size_t n = comma != NULL ? (size_t)(comma - p) : strlen(p);
        struct hostport item;

        if (hostport_parse(p, n, &item, e) == -1) {
            err_prefix(e, "allow entry \"%.*s\": ", (int)(n > 300 ? 300 : n),
                       p);
            return -1;
        }
        if (px_allow_push(a, &item, e) == -1)
            return -1;
        if (comma == NULL)
            return 0;
        p = comma + 1;
    }
}

bool
px_allow_match(const struct px_allow *a, const struct hostport *target)
{
    for (size_t i = 0; i < a->len; i++)
        if (hostport_equal(&a->items[i], target))
            return true;
    return false;
}
