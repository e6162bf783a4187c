/* cli_get.c - agentctl get: the kubectl-like table (also wide, with
 * labels, without headers), names, and whole resources (spec + metadata
 * the store keeps + status) as JSON, YAML or through a JSONPath template.
 * -w is cli_get_watch.c, custom columns cli_columns.c, `get pool`
 * cli_get_pool.c (a first argument naming a type: cli_resource.c). */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"

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

cJSON *
cli_status(struct cli *c, const char *name)
{
    cJSON *st = NULL;

    if (store_json_get(c->store, STORE_DOC_STATUS, name, &st, NULL) == -1)
        return NULL;
    return st;
}

void
cli_record_of(const cJSON *st, struct ctl_record *r)
{
    *r = (struct ctl_record){ 0 };
    if (st != NULL)
        (void)ctl_record_from_json(r, st, NULL); /* no object: not present */
}

char *
cli_status_phase(struct cli *c, const char *name)
{
    cJSON *st = cli_status(c, name);
    struct ctl_record r;
    const char *p;
    char *out;

    cli_record_of(st, &r);
    p = ctl_record_phase_text(&r);
    out = p != NULL ? strdup(p) : NULL;
    ctl_record_cleanup(&r);
    cJSON_Delete(st);
    return out;
}

/* A field of the record, or what the column shows for none (or ""). */
static const char *
or_none(const char *v, const char *none)
{
    return v != NULL && v[0] != '\0' ? v : none;
}

/* uid/generation/creationTimestamp: assigned on first sight (a name the
 * controller and apply have not seen yet gets them now). A user who may
 * not write the state directory gets what is recorded, if anything. */
static int
meta_of(struct cli *c, const struct store_spec *sp, struct store_meta *m)
{
    if (!store_name_ok(sp->name))
        return -1;
    if (sp->inv != NULL && sp->key != NULL && /* not a deleted one (-w) */
        store_meta_observe(c->store, sp->name,
                                              sp->inv->spec_hash, m,
                                              NULL) == 0)
        return 0;
    return store_meta_get(c->store, sp->name, m, NULL);
}

bool
cli_terminating(struct cli *c, const char *name)
{
    struct store_spec sp;

    if (store_terminating_get(c->store, name, &sp, NULL) == -1)
        return false;
    store_spec_cleanup(&sp);
    return true;
}

const char *
cli_phase_shown(const struct store_spec *sp, const char *status_phase)
{
    if (sp->terminating)
        return "Terminating";
    return sp->inv != NULL ? status_phase : "Invalid";
}

/* A Terminating one deleted before its capture has no spec left to show:
 * its name alone. */
static cJSON *
resource_of(const struct store_spec *sp)
{
    cJSON *r;

    if (sp->inv != NULL)
        return spec_resource(sp->inv);
    if ((r = cJSON_CreateObject()) == NULL)
        return NULL;
    cJSON_AddStringToObject(r, "apiVersion", "agentctl.dev/v1alpha1");
    cJSON_AddStringToObject(r, "kind", "AgentInvocation");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "metadata"), "name",
                            sp->name);
    return r;
}

cJSON *
cli_resource_full(struct cli *c, const struct store_spec *sp)
{
    cJSON *r = resource_of(sp), *meta, *st;
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
    st = cli_status(c, sp->name);
    cJSON_AddItemToObject(r, "status", st ? st : cJSON_CreateObject());
    return r;
}

#define GET_COLS                                                               \
    10 /* NAME PHASE ATTEMPT STOP AGE VENDOR IMAGE CONTROLLER                  \
        RESULT LABELS */

static const char *const get_head[GET_COLS] = {
    "NAME", "PHASE", "ATTEMPT", "STOP", "AGE", "VENDOR", "IMAGE", "CONTROLLER",
    "RESULT", "LABELS",
};

/* "k=v,k2=v2" of an invocation's labels, or "<none>". */
static char *
labels_cell(const struct store_spec *sp)
{
    struct buf b;
    char *out;

    if (sp->inv == NULL || sp->inv->labels.n == 0)
        return strdup("<none>");
    buf_init(&b, 1 << 20);
    for (size_t i = 0; i < sp->inv->labels.n; i++) {
        if (i > 0)
            buf_puts(&b, ",", NULL);
        buf_puts(&b, sp->inv->labels.items[i].key, NULL);
        buf_puts(&b, "=", NULL);
        buf_puts(&b, sp->inv->labels.items[i].value, NULL);
    }
    out = b.data ? b.data : strdup("");
    b.data = NULL;
    buf_cleanup(&b);
    return out;
}

/* One table row, every column (the caller picks which to print). */
static void
row_of(struct cli *c, const struct store_spec *sp, char **cells)
{
    cJSON *st = cli_status(c, sp->name);
    struct ctl_record r;
    struct store_meta m;
    char age[32];

    cli_record_of(st, &r);
    if (meta_of(c, sp, &m) == 0)
        cli_age(m.creation_timestamp, age, sizeof(age));
    else
        snprintf(age, sizeof(age), "<unknown>");
    cells[0] = strdup(sp->name);
    cells[1] = strdup(
        cli_phase_shown(sp, or_none(ctl_record_phase_text(&r), "Pending")));
    /* the CRD's printer column, .status.attempt: the attempt the
     * controller captured (docs/status.md), not spec.attempt, which
     * asks for one that may not have started */
    cells[2] = strdup(or_none(r.attempt, "<none>"));
    cells[3] = strdup(or_none(ctl_record_stop_text(&r), "<none>"));
    cells[4] = strdup(age);
    cells[5] = strdup(sp->inv ? sp->inv->vendor : "<none>");
    cells[6] = strdup(sp->inv ? sp->inv->image : "<none>");
    cells[7] = strdup(or_none(r.controller, "<none>"));
    cells[8] = cli_result_cell(r.result);
    cells[9] = labels_cell(sp);
    ctl_record_cleanup(&r);
    cJSON_Delete(st);
}

static bool
column_shown(const struct cli_get *g, size_t k)
{
    if (k == 9)
        return g->show_labels;
    return k < 5 || g->out == GET_OUT_WIDE;
}

static void
print_row(const struct cli_get *g, char *const *cells)
{
    size_t last = 0;

    for (size_t k = 0; k < GET_COLS; k++)
        if (column_shown(g, k))
            last = k;
    for (size_t k = 0; k < GET_COLS; k++)
        if (column_shown(g, k))
            printf("%-*s%s", k < last ? (int)g->width[k] : 0,
                   cells[k] ? cells[k] : "", k < last ? "   " : "\n");
}

void
cli_get_table_row(struct cli *c, struct cli_get *g, const struct store_spec *sp)
{
    char *cells[GET_COLS];

    if (g->width[0] == 0) /* the first list was empty: header widths */
        for (size_t k = 0; k < GET_COLS; k++)
            g->width[k] = strlen(get_head[k]);
    row_of(c, sp, cells);
    print_row(g, cells);
    for (size_t k = 0; k < GET_COLS; k++)
        free(cells[k]);
    fflush(stdout);
}

static void
print_table(struct cli *c, struct cli_get *g, const struct store_spec *v,
            size_t n)
{
    char **cells = calloc(n * GET_COLS + 1, sizeof(char *));

    if (cells == NULL)
        return;
    for (size_t k = 0; k < GET_COLS; k++)
        g->width[k] = strlen(get_head[k]);
    for (size_t i = 0; i < n; i++) {
        row_of(c, &v[i], &cells[i * GET_COLS]);
        for (size_t k = 0; k < GET_COLS; k++) {
            const char *s = cells[i * GET_COLS + k];
            if (s != NULL && strlen(s) > g->width[k])
                g->width[k] = strlen(s);
        }
    }
    if (!g->no_headers)
        print_row(g, (char *const *)get_head);
    for (size_t i = 0; i < n; i++)
        print_row(g, &cells[i * GET_COLS]);
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

/* The document -o json|yaml|jsonpath shows: the one resource asked for
 * by name, or a List of every valid one. NULL when the one is invalid. */
static cJSON *
docs_of(struct cli *c, const struct store_spec *v, size_t n, bool one)
{
    cJSON *list, *items;

    if (one) {
        if (v[0].inv == NULL && !v[0].terminating) {
            print_invalid(&v[0]);
            return NULL;
        }
        return cli_resource_full(c, &v[0]);
    }
    list = cJSON_CreateObject();
    cJSON_AddStringToObject(list, "apiVersion", "v1");
    items = cJSON_AddArrayToObject(list, "items");
    cJSON_AddStringToObject(list, "kind", "List");
    for (size_t i = 0; i < n; i++)
        if (v[i].inv != NULL || v[i].terminating)
            cJSON_AddItemToArray(items, cli_resource_full(c, &v[i]));
    return list;
}

/* custom-columns=HEAD:PATH,...: one column per pair, each PATH applied
 * to every resource; <none> where it finds nothing. */
static int
print_columns(struct cli *c, const struct cli_get *g, const struct store_spec *v,
              size_t n)
{
    struct cli_columns cols;
    int rc = cli_columns_parse(g->tmpl, &cols);

    if (rc != 0)
        return cli_usage_error("get", "custom-columns: expected "
                                      "HEADER:.path[,HEADER:.path...]");
    cJSON **docs = calloc(n + 1, sizeof(*docs));

    for (size_t i = 0; docs != NULL && i < n; i++)
        docs[i] = v[i].inv ? cli_resource_full(c, &v[i]) : NULL;
    cli_columns_print(&cols, (const cJSON *const *)docs, n, g->no_headers);
    for (size_t i = 0; docs != NULL && i < n; i++)
        cJSON_Delete(docs[i]);
    free(docs);
    cli_columns_cleanup(&cols);
    return CLI_OK;
}

int
cli_get_print(struct cli *c, struct cli_get *g, const struct store_spec *v,
              size_t n, bool one)
{
    cJSON *doc;
    char *text;
    int rc = CLI_OK;

    switch (g->out) {
    case GET_OUT_TABLE:
    case GET_OUT_WIDE:
        if (n == 0)
            fprintf(stderr, "No resources found\n");
        else
            print_table(c, g, v, n);
        return CLI_OK;
    case GET_OUT_NAME:
        for (size_t i = 0; i < n; i++)
            printf(CLI_KIND "/%s\n", v[i].name);
        return CLI_OK;
    case GET_OUT_COLUMNS:
        return print_columns(c, g, v, n);
    default:
        break;
    }
    if ((doc = docs_of(c, v, n, one)) == NULL)
        return CLI_FAIL;
    if (g->out != GET_OUT_JSONPATH)
        rc = cli_print_doc(doc, g->out == GET_OUT_JSON ? "json" : "yaml");
    else if ((text = cli_jsonpath(g->tmpl, doc)) != NULL) {
        fputs(text, stdout);
        free(text);
    } else
        rc = CLI_FAIL;
    cJSON_Delete(doc);
    return rc;
}

static int
parse_output(const char *o, struct cli_get *g)
{
    static const struct {
        const char *word;
        enum cli_get_out out;
    } plain[] = {
        { "wide", GET_OUT_WIDE }, { "name", GET_OUT_NAME },
        { "json", GET_OUT_JSON }, { "yaml", GET_OUT_YAML },
    };

    char why[160];

    g->out = GET_OUT_TABLE;
    if (o == NULL)
        return 0;
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        if (strcmp(o, plain[i].word) == 0)
            return g->out = plain[i].out, 0;
    /* an empty template, as an empty custom-columns=, is refused (kubectl:
     * "template format specified but no template given") */
    if (strncmp(o, "jsonpath=", 9) == 0 && o[9] != '\0' &&
        cli_jsonpath_check(o + 9, why, sizeof(why)) == NULL) {
        g->tmpl = o + 9;
        return g->out = GET_OUT_JSONPATH, 0;
    }
    if (strncmp(o, "custom-columns=", 15) == 0 && o[15] != '\0') {
        g->tmpl = o + 15;
        return g->out = GET_OUT_COLUMNS, 0;
    }
    return -1;
}

/* Move the entries called name to the front part [*k..]; how many. */
static size_t
take_name(struct store_list *l, size_t *k, const char *name)
{
    size_t found = 0;

    for (size_t i = *k; i < l->n; i++)
        if (strcmp(l->items[i].name, name) == 0) {
            struct store_spec t = l->items[*k];

            l->items[(*k)++] = l->items[i];
            l->items[i] = t;
            found++;
        }
    return found;
}

/* Keep the entries named (in the order named: kubectl's), or those the
 * selector matches; report each name not found. */
static int
select_items(const struct cli_args *a, const struct cli_selector *sel,
             bool report, struct store_list *l)
{
    size_t k = 0;
    int rc = CLI_OK;

    for (size_t i = 0; i < a->npos; i++)
        if (take_name(l, &k, a->pos[i]) == 0)
            rc = report ? cli_not_found(a->pos[i]) : CLI_FAIL;
    for (size_t i = 0; a->npos == 0 && i < l->n; i++) {
        const struct spec_invocation *inv = l->items[i].inv;

        if (sel == NULL || (inv != NULL && cli_selector_match(sel, &inv->labels))) {
            struct store_spec t = l->items[k];

            l->items[k++] = l->items[i];
            l->items[i] = t;
        }
    }
    for (size_t i = k; i < l->n; i++)
        store_spec_cleanup(&l->items[i]);
    l->n = k;
    return rc;
}

int
cli_get_list(struct cli *c, const struct cli_args *a,
             const struct cli_selector *sel, bool report, struct store_list *l)
{
    struct err e = { 0 };

    if (store_list(c->store, l, &e) == -1) {
        fprintf(stderr, "error: %s\n", e.msg);
        return -1;
    }
    /* deleted ones the controller still cleans up: Terminating rows (a
     * store whose statuses cannot be listed shows the specs alone) */
    store_terminating_list(c->store, l, NULL);
    return select_items(a, sel, report, l);
}

int
cli_get_usage(const struct cli_args *a, struct cli_get *g)
{
    const char *o = cli_args_get(a, "output", "");
    char why[160];

    /* kubectl: "error parsing jsonpath {.a, unclosed action" */
    if (strncmp(o, "jsonpath=", 9) == 0 && o[9] != '\0' &&
        cli_jsonpath_check(o + 9, why, sizeof(why)) != NULL)
        return cli_usage_error(a->cmd, "error parsing jsonpath %s: %s", o + 9,
                               why);
    if (parse_output(cli_args_get(a, "output", NULL), g) == -1)
        return cli_usage_error(a->cmd, "unable to match a printer suitable "
                                       "for the output format \"%s\": "
                                       "allowed formats are: wide, name, "
                                       "json, yaml, jsonpath=..., "
                                       "custom-columns=...",
                               cli_args_get(a, "output", ""));
    if (cli_args_has(a, "sort-by"))
        return cli_sort_check(cli_args_get(a, "sort-by", ""));
    return CLI_OK;
}

int
cli_get(struct cli *c, const struct cli_args *whole)
{
    struct cli_get g = { 0 };
    struct cli_args names = *whole; /* the arguments after a type word */
    const struct cli_args *a = &names;
    struct store_list l;
    enum cli_resource res;
    size_t skip;
    int rc, listed;

    if ((rc = cli_get_usage(a, &g)) != CLI_OK)
        return rc;
    g.show_labels = cli_args_has(a, "show-labels");
    g.no_headers = cli_args_has(a, "no-headers");
    res = cli_get_resource(whole->pos, whole->npos, &skip);
    names.pos += skip;
    names.npos -= skip;
    if (res == CLI_RES_POOL)
        return cli_get_pool(c, a, &g);
    if (a->npos > 0 && cli_args_has(a, "selector"))
        return cli_usage_error(a->cmd, "name cannot be provided when a "
                                       "selector is specified");
    if ((rc = cli_fieldsel_from_args(a, &g.fsel)) != CLI_OK)
        return rc;
    if ((rc = cli_selector_from_args(a, &g.sel)) != CLI_OK) {
        cli_fieldsel_free(g.fsel);
        return rc;
    }
    if ((listed = cli_get_list(c, a, g.sel, true, &l)) == -1) {
        cli_selector_free(g.sel);
        cli_fieldsel_free(g.fsel);
        return CLI_FAIL;
    }
    cli_fieldsel_filter(c, g.fsel, &l);
    if (cli_args_has(a, "sort-by"))
        cli_sort_by(c, cli_args_get(a, "sort-by", ""), &l);
    rc = (l.n > 0 || a->npos == 0)
             ? cli_get_print(c, &g, l.items, l.n, a->npos == 1 && l.n == 1)
             : CLI_FAIL;
    if (listed != CLI_OK)
        rc = CLI_FAIL;
    if (cli_args_has(a, "watch"))
        rc = cli_get_watch(c, a, &g, &l);
    store_list_cleanup(&l);
    cli_selector_free(g.sel);
    cli_fieldsel_free(g.fsel);
    return rc;
}
