/* cli_get_sort.c - get --sort-by=JSONPATH and --field-selector, as
 * kubectl's: the order of the listed invocations by one field of the
 * resource, and a filter on metadata.name and status.phase. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fields --field-selector knows, as kubectl names them. */
enum field { FIELD_NAME, FIELD_PHASE };

static const char *const field_names[] = { "metadata.name", "status.phase" };

struct fieldsel_req {
    enum field field;
    bool neg;    /* != */
    char *value; /* "" matches an empty value */
};

struct cli_fieldsel {
    struct fieldsel_req *v;
    size_t n;
};

void
cli_fieldsel_free(struct cli_fieldsel *s)
{
    for (size_t i = 0; s != NULL && i < s->n; i++)
        free(s->v[i].value);
    if (s != NULL)
        free(s->v);
    free(s);
}

/* One "field=value", "field==value" or "field!=value" into r. */
static int
parse_req(const char *text, size_t len, struct fieldsel_req *r)
{
    const char *op = memchr(text, '=', len);
    size_t flen, skip = 1;

    if (op == NULL || op == text)
        return cli_usage_error("get", "invalid field selector \"%.*s\": "
                                      "expected FIELD=VALUE, FIELD==VALUE "
                                      "or FIELD!=VALUE",
                               (int)len, text);
    flen = (size_t)(op - text);
    r->neg = op[-1] == '!';
    if (r->neg)
        flen--;
    else if ((size_t)(op - text) + 1 < len && op[1] == '=')
        skip = 2;
    for (size_t k = 0; k < 2; k++)
        if (strlen(field_names[k]) == flen &&
            strncmp(text, field_names[k], flen) == 0) {
            r->field = (enum field)k;
            r->value = strndup(op + skip, len - (size_t)(op - text) - skip);
            return r->value ? CLI_OK : CLI_FAIL;
        }
    return cli_usage_error("get", "field label not supported: %.*s "
                                  "(supported: metadata.name, status.phase)",
                           (int)flen, text);
}

int
cli_fieldsel_from_args(const struct cli_args *a, struct cli_fieldsel **out)
{
    const char *text = cli_args_get(a, "field-selector", NULL), *p;
    struct cli_fieldsel *s;
    int rc = CLI_OK;

    *out = NULL;
    if (text == NULL || text[0] == '\0')
        return CLI_OK;
    if ((s = calloc(1, sizeof(*s))) == NULL ||
        (s->v = calloc(strlen(text) / 2 + 1, sizeof(*s->v))) == NULL) {
        free(s);
        return CLI_FAIL;
    }
    for (p = text; rc == CLI_OK; p++) {
        size_t len = strcspn(p, ",");

        rc = parse_req(p, len, &s->v[s->n]);
        if (rc == CLI_OK)
            s->n++;
        p += len;
        if (*p == '\0')
            break;
    }
    if (rc != CLI_OK) {
        cli_fieldsel_free(s);
        return rc;
    }
    *out = s;
    return CLI_OK;
}

/* The PHASE column's value: the status's, Pending before one, Invalid. */
static bool
matches(struct cli *c, const struct cli_fieldsel *s,
        const struct store_spec *sp)
{
    char *phase = NULL;
    bool ok = true;

    for (size_t i = 0; ok && i < s->n; i++) {
        const char *have = sp->name;

        if (s->v[i].field == FIELD_PHASE) {
            if (phase == NULL && sp->inv != NULL)
                phase = cli_status_phase(c, sp->name);
            have = cli_phase_shown(sp, phase ? phase : "Pending");
        }
        ok = (strcmp(have, s->v[i].value) == 0) != s->v[i].neg;
    }
    free(phase);
    return ok;
}

void
cli_fieldsel_filter(struct cli *c, const struct cli_fieldsel *s,
                    struct store_list *l)
{
    size_t k = 0;

    if (s == NULL)
        return;
    for (size_t i = 0; i < l->n; i++) {
        if (matches(c, s, &l->items[i])) {
            struct store_spec t = l->items[k];

            l->items[k++] = l->items[i];
            l->items[i] = t;
        }
    }
    for (size_t i = k; i < l->n; i++)
        store_spec_cleanup(&l->items[i]);
    l->n = k;
}

/* --sort-by's path: ".a.b[0].c", "{.a.b}" or "a.b" (kubectl's relaxed
 * form). The value at it in doc, NULL when there is none; -1 when path
 * is not such a path. */
static int
walk(const char *path, const cJSON *doc, const cJSON **out)
{
    size_t len = strlen(path);
    const char *p = path, *end = path + len;

    if (len >= 2 && path[0] == '{' && path[len - 1] == '}')
        p++, end--;
    if (p < end && *p == '.')
        p++;
    if (p == end)
        return -1;
    while (p < end) {
        size_t n = strcspn(p, ".[");

        if (p + n > end)
            n = (size_t)(end - p);
        if (n > 0) {
            char key[256];

            if (n >= sizeof(key) || memchr(p, '}', n) || memchr(p, '*', n) ||
                memchr(p, '?', n) || memchr(p, '@', n))
                return -1;
            memcpy(key, p, n);
            key[n] = '\0';
            doc = cJSON_IsObject(doc)
                      ? cJSON_GetObjectItemCaseSensitive(doc, key)
                      : NULL;
            p += n;
        } else if (*p == '[') {
            char *stop;
            long i = strtol(p + 1, &stop, 10);

            if (stop == p + 1 || *stop != ']' || i < 0)
                return -1;
            doc = cJSON_IsArray(doc) ? cJSON_GetArrayItem(doc, (int)i) : NULL;
            p = stop + 1;
        } else
            return -1; /* ".." or a trailing "." */
        if (p < end && *p == '.') {
            if (++p == end)
                return -1;
        } else if (p < end && *p != '[')
            return -1;
    }
    *out = doc;
    return 0;
}

int
cli_sort_check(const char *path)
{
    const cJSON *v;

    if (walk(path, NULL, &v) == -1)
        return cli_usage_error("get", "couldn't parse --sort-by \"%s\": "
                                      "expected a field path "
                                      "(.metadata.name, .status.phase, "
                                      ".spec.command[0])",
                               path);
    return CLI_OK;
}

struct sort_key {
    size_t idx;
    cJSON *doc;
    const cJSON *v; /* NULL: the item has no such field */
};

/* kubectl's order: without the field first, then numbers by value,
 * strings lexically, false before true; ties keep the listing's order. */
static int
rank(const cJSON *v)
{
    if (v == NULL || cJSON_IsNull(v))
        return 0;
    if (cJSON_IsNumber(v))
        return 1;
    if (cJSON_IsString(v))
        return 2;
    if (cJSON_IsBool(v))
        return 3;
    return 4;
}

static int
key_cmp(const void *pa, const void *pb)
{
    const struct sort_key *a = pa, *b = pb;
    int ra = rank(a->v), rb = rank(b->v), c = 0;

    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (ra == 1 && a->v->valuedouble != b->v->valuedouble)
        c = a->v->valuedouble < b->v->valuedouble ? -1 : 1;
    else if (ra == 2)
        c = strcmp(a->v->valuestring, b->v->valuestring);
    else if (ra == 3)
        c = cJSON_IsTrue(a->v) - cJSON_IsTrue(b->v);
    if (c != 0)
        return c;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

int
cli_sort_by(struct cli *c, const char *path, struct store_list *l)
{
    struct sort_key *k = calloc(l->n + 1, sizeof(*k));
    struct store_spec *v = calloc(l->n + 1, sizeof(*v));

    if (k == NULL || v == NULL) {
        free(k);
        free(v);
        return CLI_FAIL;
    }
    for (size_t i = 0; i < l->n; i++) {
        k[i].idx = i;
        k[i].doc = l->items[i].inv ? cli_resource_full(c, &l->items[i])
                                   : NULL;
        if (k[i].doc == NULL || walk(path, k[i].doc, &k[i].v) == -1)
            k[i].v = NULL;
    }
    qsort(k, l->n, sizeof(*k), key_cmp);
    for (size_t i = 0; i < l->n; i++) {
        v[i] = l->items[k[i].idx];
        cJSON_Delete(k[i].doc);
    }
    memcpy(l->items, v, l->n * sizeof(*v));
    free(v);
    free(k);
    return CLI_OK;
}
