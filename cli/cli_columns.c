/* cli_columns.c - get -o custom-columns=HEAD:PATH,...: kubectl's custom
 * columns, each PATH a JSONPath (with or without braces) applied to every
 * resource, "<none>" where it finds nothing. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
cli_columns_parse(const char *spec, struct cli_columns *cols)
{
    const char *p = spec;
    char why[160];

    memset(cols, 0, sizeof(*cols));
    while (*p != '\0') {
        const char *end = strchr(p, ','), *colon;
        size_t len = end ? (size_t)(end - p) : strlen(p);
        struct cli_column *v;

        colon = memchr(p, ':', len);
        if (colon == NULL || colon == p || colon + 1 == p + len)
            goto bad;
        v = realloc(cols->v, (cols->n + 1) * sizeof(*v));
        if (v == NULL)
            goto bad;
        cols->v = v;
        v = &cols->v[cols->n++];
        v->head = strndup(p, (size_t)(colon - p));
        colon++;
        if (*colon == '{')
            v->path = strndup(colon, len - (size_t)(colon - p));
        else if (asprintf(&v->path, "{%.*s}", (int)(len - (size_t)(colon - p)),
                          colon) == -1)
            v->path = NULL;
        if (v->head == NULL || v->path == NULL ||
            cli_jsonpath_check(v->path, why, sizeof(why)) != NULL)
            goto bad;
        p = end ? end + 1 : p + len;
    }
    if (cols->n > 0)
        return 0;
bad:
    cli_columns_cleanup(cols);
    return -1;
}

void
cli_columns_print(const struct cli_columns *cols, const cJSON *const *docs,
                  size_t n, bool no_headers)
{
    char **cells = calloc((n + 1) * cols->n + 1, sizeof(char *));
    size_t *w = calloc(cols->n + 1, sizeof(size_t));

    if (cells == NULL || w == NULL)
        goto out;
    for (size_t k = 0; k < cols->n; k++)
        cells[k] = strdup(cols->v[k].head);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < cols->n; k++) {
            char *s = docs[i] ? cli_jsonpath(cols->v[k].path, docs[i]) : NULL;

            if (s == NULL || s[0] == '\0') {
                free(s);
                s = strdup("<none>");
            }
            cells[(i + 1) * cols->n + k] = s;
        }
    for (size_t i = 0; i <= n; i++)
        for (size_t k = 0; k < cols->n; k++) {
            const char *s = cells[i * cols->n + k];
            if (s != NULL && strlen(s) > w[k])
                w[k] = strlen(s);
        }
    for (size_t i = no_headers ? 1 : 0; i <= n; i++)
        for (size_t k = 0; k < cols->n; k++) {
            const char *s = cells[i * cols->n + k];
            bool last = k + 1 == cols->n;

            printf("%-*s%s", last ? 0 : (int)w[k], s ? s : "",
                   last ? "\n" : "   ");
        }
out:
    for (size_t i = 0; cells != NULL && i < (n + 1) * cols->n; i++)
        free(cells[i]);
    free(cells);
    free(w);
}

void
cli_columns_cleanup(struct cli_columns *cols)
{
    for (size_t i = 0; i < cols->n; i++) {
        free(cols->v[i].head);
        free(cols->v[i].path);
    }
    free(cols->v);
    memset(cols, 0, sizeof(*cols));
}
