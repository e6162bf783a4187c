/* cli_get.c - agentctl get: the kubectl-like table, and whole resources
 * (spec + metadata the store keeps + status) as JSON or YAML. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char get_usage[] =
    "usage: agentctl get [NAME] [-o wide|json|yaml]\n\n"
    "List invocations (NAME PHASE ATTEMPT STOP AGE), or show one. Files\n"
    "that do not validate show with PHASE Invalid.\n\n"
    "  -o, --output FORMAT  wide (adds VENDOR IMAGE CONTROLLER), json or "
    "yaml\n";

int
cli_not_found(const char *name)
{
    fprintf(stderr,
            "Error from server (NotFound): agentinvocations.agentctl.dev "
            "\"%s\" not found\n",
            name);
    return CLI_FAIL;
}

int
cli_print_doc(const cJSON *doc, const char *format)
{
    char *text;

    if (strcmp(format, "json") == 0)
        text = cli_json_emit(doc);
    else
        text = cli_yaml_emit(doc);
    if (text == NULL)
        return CLI_FAIL;
    fputs(text, stdout);
    free(text);
    return CLI_OK;
}

void
cli_age(const char *rfc3339, char *out, size_t size)
{
    struct tm tm = { 0 };
    const char *end;
    long long d;

    end = rfc3339 ? strptime(rfc3339, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
    if (end == NULL || *end != '\0') {
        snprintf(out, size, "<unknown>");
        return;
    }
    d = (long long)(time(NULL) - timegm(&tm));
    if (d < 0)
        d = 0;
    if (d < 120)
        snprintf(out, size, "%llds", d);
    else if (d < 120 * 60)
        snprintf(out, size, "%lldm", d / 60);
    else if (d < 48 * 3600)
        snprintf(out, size, "%lldh", d / 3600);
    else
        snprintf(out, size, "%lldd", d / 86400);
}

static cJSON *
status_of(struct cli *c, const char *name)
{
    cJSON *st = NULL;

    if (store_json_get(c->store, STORE_DOC_STATUS, name, &st, NULL) == -1)
        return NULL;
    return st;
}

char *
cli_status_phase(struct cli *c, const char *name)
{
    cJSON *st = status_of(c, name);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(st, "phase");
    char *out = cJSON_IsString(p) ? strdup(p->valuestring) : NULL;

    cJSON_Delete(st);
    return out;
}

/* uid/generation/creationTimestamp: assigned on first sight (a name the
 * controller and apply have not seen yet gets them now). */
static int
meta_of(struct cli *c, const struct store_spec *sp, struct store_meta *m)
{
    if (!store_name_ok(sp->name))
        return -1;
    if (sp->inv != NULL)
        return store_meta_observe(c->store, sp->name, sp->inv->spec_hash, m,
                                  NULL);
    return store_meta_get(c->store, sp->name, m, NULL);
}

cJSON *
cli_resource_full(struct cli *c, const struct store_spec *sp)
{
    cJSON *r = cJSON_Duplicate(sp->inv->resource, 1), *meta, *st;
    struct store_meta m;

    if (r == NULL)
        return NULL;
    meta = cJSON_GetObjectItemCaseSensitive(r, "metadata");
    if (meta_of(c, sp, &m) == 0) {
        cJSON_AddStringToObject(meta, "uid", m.uid);
        cJSON_AddNumberToObject(meta, "generation", (double)m.generation);
        cJSON_AddStringToObject(meta, "creationTimestamp",
                                m.creation_timestamp);
    }
    st = status_of(c, sp->name);
    cJSON_AddItemToObject(r, "status", st ? st : cJSON_CreateObject());
    return r;
}

static const char *
str_or(const cJSON *obj, const char *key, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : dflt;
}

#define GET_COLS 8

/* One table row: NAME PHASE ATTEMPT STOP AGE [VENDOR IMAGE CONTROLLER]. */
static void
row_of(struct cli *c, const struct store_spec *sp, char **cells)
{
    cJSON *st = status_of(c, sp->name);
    struct store_meta m;
    char age[32];
    const char *attempt = sp->inv ? sp->inv->attempt : "<none>";

    if (meta_of(c, sp, &m) == 0)
        cli_age(m.creation_timestamp, age, sizeof(age));
    else
        snprintf(age, sizeof(age), "<unknown>");
    cells[0] = strdup(sp->name);
    cells[1] = strdup(sp->inv ? str_or(st, "phase", "Pending") : "Invalid");
    cells[2] = strdup(str_or(st, "attempt", attempt));
    cells[3] = strdup(str_or(st, "stopReason", "<none>"));
    cells[4] = strdup(age);
    cells[5] = strdup(sp->inv ? sp->inv->vendor : "<none>");
    cells[6] = strdup(sp->inv ? sp->inv->image : "<none>");
    cells[7] = strdup(str_or(st, "controller", "<none>"));
    cJSON_Delete(st);
}

static void
print_table(struct cli *c, const struct store_spec *v, size_t n, bool wide)
{
    static const char *const head[GET_COLS] = {
        "NAME", "PHASE",  "ATTEMPT", "STOP",
        "AGE",  "VENDOR", "IMAGE",   "CONTROLLER",
    };
    size_t ncol = wide ? GET_COLS : 5, w[GET_COLS];
    char **cells = calloc(n * GET_COLS + 1, sizeof(char *));

    if (cells == NULL)
        return;
    for (size_t k = 0; k < GET_COLS; k++)
        w[k] = strlen(head[k]);
    for (size_t i = 0; i < n; i++) {
        row_of(c, &v[i], &cells[i * GET_COLS]);
        for (size_t k = 0; k < GET_COLS; k++) {
            const char *s = cells[i * GET_COLS + k];
            if (s != NULL && strlen(s) > w[k])
                w[k] = strlen(s);
        }
    }
    for (size_t k = 0; k < ncol; k++)
        printf("%-*s%s", k + 1 < ncol ? (int)w[k] : 0, head[k],
               k + 1 < ncol ? "   " : "\n");
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < ncol; k++) {
            const char *s = cells[i * GET_COLS + k];
            printf("%-*s%s", k + 1 < ncol ? (int)w[k] : 0, s ? s : "",
                   k + 1 < ncol ? "   " : "\n");
        }
    for (size_t i = 0; i < n * GET_COLS; i++)
        free(cells[i]);
    free(cells);
}

static void
print_invalid(const struct store_spec *sp)
{
    char line[600];

    fprintf(stderr, "error: %s does not validate:\n", sp->key);
    for (size_t i = 0; sp->errors && i < sp->errors->n; i++)
        fprintf(stderr, "%s\n",
                err_format(&sp->errors->items[i], line, sizeof(line)));
}

/* -o json|yaml: one resource, or a List of every valid one. */
static int
print_docs(struct cli *c, const struct store_list *l, const char *name,
           const char *format)
{
    cJSON *list, *items;
    int rc = CLI_OK;

    if (name != NULL) {
        cJSON *r;

        if (l->items[0].inv == NULL) {
            print_invalid(&l->items[0]);
            return CLI_FAIL;
        }
        r = cli_resource_full(c, &l->items[0]);
        rc = r ? cli_print_doc(r, format) : CLI_FAIL;
        cJSON_Delete(r);
        return rc;
    }
    list = cJSON_CreateObject();
    cJSON_AddStringToObject(list, "apiVersion", "v1");
    items = cJSON_AddArrayToObject(list, "items");
    cJSON_AddStringToObject(list, "kind", "List");
    for (size_t i = 0; i < l->n; i++)
        if (l->items[i].inv != NULL)
            cJSON_AddItemToArray(items, cli_resource_full(c, &l->items[i]));
    rc = cli_print_doc(list, format);
    cJSON_Delete(list);
    return rc;
}

/* Keep only the entries called name (there may be two: a conflict). */
static size_t
filter(struct store_list *l, const char *name)
{
    size_t k = 0;

    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->items[i].name, name) == 0) {
            struct store_spec t = l->items[k];

            l->items[k++] = l->items[i];
            l->items[i] = t;
        }
    }
    for (size_t i = k; i < l->n; i++)
        store_spec_cleanup(&l->items[i]);
    l->n = k;
    return k;
}

int
cli_get(struct cli *c, int argc, char **argv)
{
    const char *name = NULL, *out = NULL;
    struct store_list l;
    struct err e = { 0 };
    int rc;

    if (cli_wants_help(argc, argv, get_usage))
        return CLI_OK;
    for (int i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) &&
            i + 1 < argc)
            out = argv[++i];
        else if (strncmp(argv[i], "--output=", 9) == 0)
            out = argv[i] + 9;
        else if (strncmp(argv[i], "-o", 2) == 0 && argv[i][2] != '\0')
            out = argv[i] + (argv[i][2] == '=' ? 3 : 2);
        else if (argv[i][0] != '-' && name == NULL)
            name = argv[i];
        else
            return cli_usage_error("get", "unexpected argument \"%s\"",
                                   argv[i]);
    }
    if (out != NULL && strcmp(out, "wide") != 0 && strcmp(out, "json") != 0 &&
        strcmp(out, "yaml") != 0)
        return cli_usage_error("get", "-o must be wide, json or yaml");
    if (store_list(c->store, &l, &e) == -1) {
        fprintf(stderr, "error: %s\n", e.msg);
        return CLI_FAIL;
    }
    if (name != NULL && filter(&l, name) == 0)
        rc = cli_not_found(name);
    else if (out != NULL && strcmp(out, "wide") != 0)
        rc = print_docs(c, &l, name, out);
    else if (l.n == 0) {
        fprintf(stderr, "No resources found\n");
        rc = CLI_OK;
    } else {
        print_table(c, l.items, l.n, out != NULL);
        rc = CLI_OK;
    }
    store_list_cleanup(&l);
    return rc;
}
