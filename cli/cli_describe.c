/* cli_describe.c - agentctl describe: one invocation as kubectl-describe
 * text (metadata, spec, status, owned resources, conditions, events).
 * It renders whatever the status holds; the controller fills it. */
#include "cli.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TBL_COLS 5
#define TBL_ROWS 512

/* A small table printed with two-space indent and aligned columns. */
struct table {
    const char *head[TBL_COLS];
    size_t ncol, nrow;
    char *cell[TBL_ROWS][TBL_COLS];
};

static void
table_add(struct table *t, const char *const *vals)
{
    if (t->nrow == TBL_ROWS)
        return;
    for (size_t k = 0; k < t->ncol; k++)
        t->cell[t->nrow][k] = strdup(vals[k] ? vals[k] : "");
    t->nrow++;
}

/* A repeat of an event already in the table (same type, reason and
 * message, written again with a higher count) replaces its row, as
 * kubectl shows one row per event with "(xN over AGE)". */
static void
event_add(struct table *t, const char *const *vals, bool repeat)
{
    for (size_t r = 0; repeat && r < t->nrow; r++)
        if (strcmp(t->cell[r][0], vals[0]) == 0 &&
            strcmp(t->cell[r][1], vals[1]) == 0 &&
            strcmp(t->cell[r][3], vals[3]) == 0) {
            free(t->cell[r][2]);
            t->cell[r][2] = strdup(vals[2]);
            return;
        }
    table_add(t, vals);
}

static void
table_print(struct table *t)
{
    size_t w[TBL_COLS];

    for (size_t k = 0; k < t->ncol; k++) {
        w[k] = strlen(t->head[k]);
        for (size_t r = 0; r < t->nrow; r++)
            if (t->cell[r][k] && strlen(t->cell[r][k]) > w[k])
                w[k] = strlen(t->cell[r][k]);
    }
    for (size_t r = 0; r <= t->nrow; r++) {
        printf("  ");
        for (size_t k = 0; k < t->ncol; k++) {
            const char *s = r == 0 ? t->head[k] : t->cell[r - 1][k];
            bool last = k + 1 == t->ncol;

            printf("%-*s%s", last ? 0 : (int)w[k], s ? s : "",
                   last ? "\n" : "  ");
        }
        if (r == 0) { /* kubectl's dashed rule under the heading */
            printf("  ");
            for (size_t k = 0; k < t->ncol; k++) {
                size_t n = strlen(t->head[k]);
                bool last = k + 1 == t->ncol;

                for (size_t i = 0; i < n; i++)
                    putchar('-');
                printf("%*s", last ? 0 : (int)(w[k] - n + 2), "");
            }
            putchar('\n');
        }
    }
    for (size_t r = 0; r < t->nrow; r++)
        for (size_t k = 0; k < t->ncol; k++)
            free(t->cell[r][k]);
}

/* Text of a scalar at key (strings, raw integers, numbers, bools). */
static const char *
val(const cJSON *obj, const char *key, char *tmp, size_t size)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    if (cJSON_IsString(v) || cJSON_IsRaw(v))
        return v->valuestring;
    if (cJSON_IsNumber(v)) {
        snprintf(tmp, size, "%.0f", v->valuedouble);
        return tmp;
    }
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v) ? "true" : "false";
    return NULL;
}

static void
field(int indent, const char *label, const char *value)
{
    printf("%*s%-*s%s\n", indent, "", 24 - indent, label,
           value ? value : "<none>");
}

static void
print_argv(int indent, const char *label, const struct spec_argv *a)
{
    printf("%*s%-*s", indent, "", 24 - indent, label);
    for (size_t i = 0; i < a->n; i++)
        printf(i ? " %s" : "%s", a->argv[i]);
    printf("\n");
}

static void
print_spec(const struct spec_invocation *inv)
{
    cJSON *resource = spec_resource(inv);
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(resource, "spec");
    const cJSON *ws = cJSON_GetObjectItemCaseSensitive(spec, "workspace");
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(spec, "scratch");
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(spec, "resources");
    char line[512], t1[32], t2[32], t3[32];

    printf("Spec:\n");
    field(2, "Vendor:", inv->vendor);
    field(2, "Phase:", spec_phase_name(inv->phase));
    field(2, "Image:", inv->image);
    if (inv->command.n > 0)
        print_argv(2, "Command:", &inv->command);
    else
        field(2, "Prompt:", inv->prompt);
    if (inv->runner.n > 0)
        print_argv(2, "Runner:", &inv->runner);
    field(2, "Credential:", inv->credential);
    if (ws != NULL) {
        snprintf(line, sizeof(line), "%s (size %s, inodes %s)",
                 val(ws, "source", t1, 32), val(ws, "size", t2, 32),
                 val(ws, "inodes", t3, 32));
        field(2, "Workspace:", line);
    } else
        field(2, "Workspace:", NULL);
    snprintf(line, sizeof(line), "size %s, inodes %s", val(sc, "size", t1, 32),
             val(sc, "inodes", t2, 32));
    field(2, "Scratch:", line);
    snprintf(line, sizeof(line), "memory %s, cpus %s, pids %s",
             val(rs, "memory", t1, 32), val(rs, "cpus", t2, 32),
             val(rs, "pids", t3, 32));
    field(2, "Resources:", line);
    snprintf(line, sizeof(line), "%us", (unsigned)inv->deadline_seconds);
    field(2, "Deadline:", line);
    field(2, "Attempt:", inv->attempt);
    field(2, "Cancel:", inv->cancel ? "true" : "false");
    cJSON_Delete(resource);
}

/* status.result.changes, on one line (agentctl changes has the rest). */
/* status.egress: the audit lines kept so far and those dropped
 * (agentctl logs --egress). */
static void
print_egress(const cJSON *eg)
{
    char a[32], b[32], c[32], line[160];
    int n;

    if (eg == NULL)
        return;
    n = snprintf(line, sizeof(line), "%s lines, %s dropped",
                 val(eg, "lines", a, sizeof(a)) ? a : "0",
                 val(eg, "dropped", b, sizeof(b)) ? b : "0");
    /* lines a log rotated out before they were read: not countable */
    if (n > 0 && (size_t)n < sizeof(line) && val(eg, "gaps", c, sizeof(c)))
        snprintf(line + n, sizeof(line) - (size_t)n,
                 ", %s reads found lines rotated out first", c);
    field(2, "Egress Audit:", line);
}

static void
print_changes(const cJSON *ch)
{
    static const char *const keys[] = { "added", "modified", "deleted",
                                        "modeChanged", "refused" };
    char line[400], tmp[32];
    const char *unavailable = val(ch, "unavailable", tmp, sizeof(tmp));
    size_t n = 0;

    if (ch == NULL)
        return;
    if (unavailable != NULL) {
        field(2, "Changes:", unavailable);
        return;
    }
    line[0] = '\0';
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %s",
                              i ? ", " : "",
                              val(ch, keys[i], tmp, sizeof(tmp))
                                  ? val(ch, keys[i], tmp, sizeof(tmp))
                                  : "0",
                              keys[i]);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ch, "partial")))
        snprintf(line + n, sizeof(line) - n, " (partial)");
    field(2, "Changes:", line);
}

/* The tool policy's summary ("tools: ...; runner: ...; ...; kernel:
 * Landlock (exec: ...; write: ...), seccomp"), one layer per line:
 * Tools, Runner, Edits, Mcp, ..., Kernel. A ';' or a parenthesis inside
 * parentheses or inside the runner's single quotes (its shell-quoted
 * line, where \' is a quote outside them) belongs to its item. */
static void
print_tool_policy(const char *summary)
{
    char label[32], item[512];
    const char *p = summary;

    printf("  Tool Policy:\n");
    while (*p != '\0') {
        const char *end = p, *colon;
        int depth = 0;
        size_t n;

        for (bool quoted = false;
             *end != '\0' && (quoted || depth > 0 || *end != ';'); end++) {
            if (!quoted && end[0] == '\\' && end[1] == '\'')
                end++;
            else if (*end == '\'')
                quoted = !quoted;
            else if (!quoted)
                depth += *end == '(' ? 1 : *end == ')' && depth > 0 ? -1 : 0;
        }
        n = (size_t)(end - p) < sizeof(item) ? (size_t)(end - p)
                                               : sizeof(item) - 1;
        memcpy(item, p, n);
        item[n] = '\0';
        colon = strstr(item, ": ");
        if (colon != NULL && (size_t)(colon - item) + 2 < sizeof(label)) {
            snprintf(label, sizeof(label), "%.*s:", (int)(colon - item),
                     item);
            label[0] = (char)toupper((unsigned char)label[0]);
            field(4, label, colon + 2);
        } else {
            field(4, "", item);
        }
        p = *end == ';' ? end + 1 : end;
        while (*p == ' ')
            p++;
    }
}

/* status.usage in one line: what the gateway counted for the attempt
 * (docs/status.md "usage"). */
static void
print_usage(const cJSON *u)
{
    static const char *const keys[] = { "requests",        "refused",
                                        "inputTokens",     "outputTokens",
                                        "cacheReadTokens", "cacheWriteTokens" };
    char v[6][32], line[256];

    if (!cJSON_IsObject(u))
        return;
    for (size_t i = 0; i < 6; i++)
        if (val(u, keys[i], v[i], sizeof(v[i])) != v[i])
            snprintf(v[i], sizeof(v[i]), "?");
    snprintf(line, sizeof(line),
             "%s requests (%s refused); tokens: %s in, %s out, %s cache "
             "read, %s cache write",
             v[0], v[1], v[2], v[3], v[4], v[5]);
    field(2, "Usage:", line);
}

/* A number of the record as describe prints numbers, or NULL (none). */
static const char *
num(bool has, double v, char *tmp, size_t size)
{
    if (!has)
        return NULL;
    snprintf(tmp, size, "%.0f", v);
    return tmp;
}

static void
print_status(const struct ctl_record *r, const char *dflt_phase)
{
    const char *phase = ctl_record_phase_text(r);
    char tmp[32], line[160];

    printf("Status:\n");
    field(2, "Phase:", phase != NULL ? phase : dflt_phase);
    field(2, "Stop Reason:", ctl_record_stop_text(r));
    field(2, "Exit Code:",
          num(r->has_exit_code, (double)r->exit_code, tmp, sizeof(tmp)));
    field(2, "Started:", r->started_at);
    field(2, "Finished:", r->finished_at);
    field(2, "Image ID:", r->image_id);
    field(2, "Controller:", r->controller);
    field(2, "Observed Generation:",
          num(r->has_generation, r->observed_generation, tmp, sizeof(tmp)));
    /* where the key went (a spec with a credential) */
    if (r->credential_mode != NULL)
        field(2, "Credential:",
              strcmp(r->credential_mode, "env") == 0
                  ? "in the box (credentialMode env: the agent's environment)"
                  : "held by the attempt's gateway, never in the box");
    /* prompt specs: what the vendor CLI may do in this phase, and which
     * layer holds it (docs/phase-policy.md) */
    if (r->tool_policy != NULL)
        print_tool_policy(r->tool_policy);
    print_usage(r->usage);
    if (r->git != NULL) {
        field(2, "Git Digest Before:", ctl_record_git_str(r, "digestBefore"));
        field(2, "Git Digest After:", ctl_record_git_str(r, "digestAfter"));
    }
    if (r->output.set) {
        snprintf(line, sizeof(line), "%.0f bytes%s", r->output.bytes,
                 r->output.truncated ? " (truncated)" : "");
        field(2, "Output:", line);
        field(2, "Output SHA256:", r->output.sha256);
    }
    print_egress(r->egress);
    print_changes(cJSON_GetObjectItemCaseSensitive(r->result, "changes"));
}

static void
print_resources(const cJSON *st)
{
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(st, "resources");
    struct table t = { .head = { "Role", "ID", "Name" }, .ncol = 3 };
    char a[32], b[32];
    const cJSON *r;

    printf("Resources:");
    if (rs == NULL || rs->child == NULL) {
        printf("  <none>\n");
        return;
    }
    printf("\n");
    cJSON_ArrayForEach(r, rs)
    {
        const char *role =
            cJSON_IsObject(rs) ? r->string : val(r, "role", a, sizeof(a));
        const char *row[3] = { role, val(r, "id", a, sizeof(a)),
                               val(r, "name", b, sizeof(b)) };
        table_add(&t, row);
    }
    table_print(&t);
}

static void
print_conditions(const struct ctl_record *r)
{
    struct table t = { .head = { "Type", "Status", "LastTransitionTime",
                                 "Reason", "Message" },
                       .ncol = 5 };

    printf("Conditions:");
    if (r->nconds == 0) {
        printf("  <none>\n");
        return;
    }
    printf("\n");
    for (size_t i = 0; i < r->nconds; i++) {
        const struct ctl_record_cond *c = &r->conds[i];
        const char *row[5] = { c->type, c->status_text, c->time, c->reason,
                               c->message };

        table_add(&t, row);
    }
    table_print(&t);
}

static void
print_events(struct cli *c, const char *name)
{
    struct table t = { .head = { "Type", "Reason", "Age", "Message" },
                       .ncol = 4 };
    char *data = NULL, *line, *save = NULL, age[64], first[32], tmp[32];
    size_t len;

    printf("Events:");
    if (store_event_read(c->store, name, &data, &len, NULL) == -1 || len == 0) {
        printf("  <none>\n");
        free(data);
        return;
    }
    printf("\n");
    for (line = strtok_r(data, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        cJSON *ev = cJSON_Parse(line);
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(ev, "count");
        const char *ft = val(ev, "firstTime", tmp, sizeof(tmp));
        const char *row[4];

        if (ev == NULL)
            continue;
        cli_age(val(ev, "time", tmp, sizeof(tmp)), age, sizeof(age));
        if (cJSON_IsNumber(n) && n->valuedouble > 1) {
            size_t l = strlen(age);

            cli_age(ft ? ft : val(ev, "time", tmp, sizeof(tmp)), first,
                    sizeof(first));
            snprintf(age + l, sizeof(age) - l, " (x%.0f over %s)",
                     n->valuedouble, first);
        }
        row[0] = val(ev, "type", tmp, sizeof(tmp));
        row[1] = val(ev, "reason", first, 0);
        row[2] = age;
        row[3] = val(ev, "message", first, 0);
        event_add(&t, row, cJSON_IsNumber(n) && n->valuedouble > 1);
        cJSON_Delete(ev);
    }
    table_print(&t);
    free(data);
}

static void
print_meta(struct cli *c, const struct store_spec *sp)
{
    struct store_meta m;
    const struct spec_kvlist *l = sp->inv ? &sp->inv->labels : NULL;

    field(0, "Name:", sp->name);
    printf("%-24s", "Labels:");
    if (l == NULL || l->n == 0)
        printf("<none>\n");
    for (size_t i = 0; l != NULL && i < l->n; i++)
        printf("%*s%s=%s\n", i ? 24 : 0, "", l->items[i].key,
               l->items[i].value);
    field(0, "API Version:", "agentctl.dev/v1alpha1");
    field(0, "Kind:", "AgentInvocation");
    field(0, "File:", sp->key);
    if (store_meta_get(c->store, sp->name, &m, NULL) == 0) {
        char gen[32];

        snprintf(gen, sizeof(gen), "%llu", (unsigned long long)m.generation);
        field(0, "UID:", m.uid);
        field(0, "Generation:", gen);
        field(0, "Creation Timestamp:", m.creation_timestamp);
    }
}

static int
describe_one(struct cli *c, const char *name)
{
    struct store_spec sp;
    struct err e = { 0 };
    cJSON *st = NULL;
    struct ctl_record rec;
    char line[600];

    /* a deleted one whose cleanup is pending is still there: Terminating */
    if (store_get(c->store, name, &sp, &e) == -1 &&
        (e.code != ERR_NOTFOUND ||
         store_terminating_get(c->store, name, &sp, &e) == -1))
        return e.code == ERR_NOTFOUND ? cli_not_found(name) : CLI_FAIL;
    print_meta(c, &sp);
    if (sp.terminating)
        field(0, "Terminating:", "deleted; the controller removes its Docker "
                                 "objects, then its status (agentctl wait "
                                 "--for=delete waits for that)");
    if (sp.inv != NULL)
        print_spec(sp.inv);
    else if (!sp.terminating) {
        printf("Errors:\n");
        for (size_t i = 0; sp.errors && i < sp.errors->n; i++)
            printf("  %s\n",
                   err_format(&sp.errors->items[i], line, sizeof(line)));
    }
    if (store_name_ok(sp.name))
        store_json_get(c->store, STORE_DOC_STATUS, sp.name, &st, NULL);
    cli_record_of(st, &rec);
    print_status(&rec, sp.inv ? "Pending" : "Invalid");
    print_resources(st);
    print_conditions(&rec);
    if (store_name_ok(sp.name))
        print_events(c, sp.name);
    ctl_record_cleanup(&rec);
    cJSON_Delete(st);
    store_spec_cleanup(&sp);
    return CLI_OK;
}

int
cli_describe(struct cli *c, const struct cli_args *a)
{
    struct cli_names names = { 0 };
    int rc;

    if (a->npos > 0 && cli_args_has(a, "selector"))
        return cli_usage_error(a->cmd, "name cannot be provided when a "
                                       "selector is specified");
    if (a->npos == 0 && !cli_args_has(a, "selector"))
        return cli_usage_error(a->cmd, "expected NAME or -l SELECTOR");
    rc = a->npos > 0 ? cli_names_add_args(&names, a)
                     : cli_names_select(c, a, &names);
    if (rc == CLI_OK && names.n == 0)
        fprintf(stderr, "No resources found\n");
    for (size_t i = 0; rc != CLI_USAGE && i < names.n; i++) {
        if (i > 0)
            printf("\n\n");
        if (describe_one(c, names.v[i]) != CLI_OK)
            rc = CLI_FAIL;
    }
    cli_names_cleanup(&names);
    return rc;
}
