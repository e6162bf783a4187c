/* cli_apply.c - agentctl apply: validate every input first, then write
 * each invocation as <specs>/<name>.yaml (atomically, under the store
 * lock so two applies never interleave), and with --prune remove what an
 * earlier apply wrote and this input no longer has.
 *
 * What apply wrote is recorded as applied/<name>.json = {sha256, file}:
 * prune only removes a file whose bytes still hash to that record, so a
 * file dropped in by hand or edited since is never removed. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum apply_action {
    APPLY_CREATE,
    APPLY_CONFIGURE,
    APPLY_UNCHANGED,
};

static const char *const action_word[] = { "created", "configured",
                                           "unchanged" };

struct apply_item {
    const struct spec_invocation *inv; /* borrowed from the input */
    enum apply_action action;
    char rev[STORE_REV_MAX]; /* expected revision for the write */
    bool being_deleted;      /* a create of a Terminating name: refused */
};

struct apply_opts {
    bool prune, dry_run;
    const char *output;         /* NULL, "name", "json", "yaml" */
    struct cli_selector *prune_sel; /* -l: prune only what matches */
};

/* Flags: -o, --dry-run=client, and --prune with -l or --all (kubectl
 * refuses a prune that would consider everything without --all). */
static int
parse_apply(const struct cli_args *a, struct apply_opts *o)
{
    const char *dry = cli_args_get(a, "dry-run", NULL);

    o->prune = cli_args_has(a, "prune");
    o->output = cli_args_get(a, "output", NULL);
    if (dry != NULL && dry[0] != '\0' && strcmp(dry, "client") != 0 &&
        strcmp(dry, "none") != 0)
        return cli_usage_error(a->cmd, "--dry-run must be client or none");
    /* bare --dry-run is kubectl's old spelling of --dry-run=client */
    o->dry_run = dry != NULL && strcmp(dry, "none") != 0;
    if (a->npos > 0)
        return cli_usage_error(a->cmd, "unexpected argument \"%s\"",
                               a->pos[0]);
    if (o->output != NULL && strcmp(o->output, "name") != 0 &&
        strcmp(o->output, "json") != 0 && strcmp(o->output, "yaml") != 0)
        return cli_usage_error(a->cmd, "--output must be name, json or yaml");
    if (o->prune && !cli_args_has(a, "all") && !cli_args_has(a, "selector"))
        return cli_usage_error(a->cmd,
                               "all resources selected for prune without "
                               "explicitly passing --all. To prune all "
                               "resources, pass the --all flag. If you did "
                               "not mean to prune all resources, specify a "
                               "label selector");
    if (!o->prune && (cli_args_has(a, "all") || cli_args_has(a, "selector")))
        return cli_usage_error(a->cmd, "--all and -l select what --prune "
                                       "removes; pass --prune");
    return cli_selector_from_args(a, &o->prune_sel);
}

static const char *
base_of(const char *path)
{
    const char *p = strrchr(path, '/');

    return p ? p + 1 : path;
}

/* <name>.yaml or <name>.yml in a directory, or the etcd key
 * <prefix>/specs/<name> (a file without .yaml is never a spec file). */
static bool
own_file(const char *key, const char *name)
{
    char a[80], b[80];

    snprintf(a, sizeof(a), "%s.yaml", name);
    snprintf(b, sizeof(b), "%s.yml", name);
    return strcmp(base_of(key), a) == 0 || strcmp(base_of(key), b) == 0 ||
           strcmp(base_of(key), name) == 0;
}

/* The live store, looked up by name and by file: two sorted views, so
 * planning 10,000 documents against 10,000 live ones is not 10^8
 * comparisons. */
struct live_index {
    const struct store_spec **by_name, **by_base;
    size_t n;
};

static int
by_name_cmp(const void *a, const void *b)
{
    const struct store_spec *x = *(const struct store_spec *const *)a;
    const struct store_spec *y = *(const struct store_spec *const *)b;
    int c = strcmp(x->name, y->name);

    return c != 0 ? c : strcmp(x->key, y->key);
}

static int
by_base_cmp(const void *a, const void *b)
{
    const struct store_spec *x = *(const struct store_spec *const *)a;
    const struct store_spec *y = *(const struct store_spec *const *)b;
    int c = strcmp(base_of(x->key), base_of(y->key));

    return c != 0 ? c : strcmp(x->name, y->name);
}

static int
live_index_build(struct live_index *ix, const struct store_list *live)
{
    ix->n = live->n;
    ix->by_name = calloc(live->n + 1, sizeof(*ix->by_name));
    ix->by_base = calloc(live->n + 1, sizeof(*ix->by_base));
    if (ix->by_name == NULL || ix->by_base == NULL) {
        free(ix->by_name);
        free(ix->by_base);
        return -1;
    }
    for (size_t i = 0; i < live->n; i++)
        ix->by_name[i] = ix->by_base[i] = &live->items[i];
    qsort(ix->by_name, ix->n, sizeof(*ix->by_name), by_name_cmp);
    qsort(ix->by_base, ix->n, sizeof(*ix->by_base), by_base_cmp);
    return 0;
}

static void
live_index_free(struct live_index *ix)
{
    free(ix->by_name);
    free(ix->by_base);
}

/* The first of v[0..n) whose key(v[i]) is not below want (v sorted). */
static size_t
lower_bound(const struct store_spec **v, size_t n, const char *want,
            bool base)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *k = base ? base_of(v[mid]->key) : v[mid]->name;

        if (strcmp(k, want) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Decide what happens to inv; -1 (message printed) when apply must not
 * touch it because it lives in a file apply does not own. */
static int
plan_item(const struct live_index *ix, const struct spec_invocation *inv,
          struct apply_item *it)
{
    const struct store_spec *hit = NULL;
    char mine[80];

    snprintf(mine, sizeof(mine), "%s.yaml", inv->name);
    it->inv = inv;
    it->action = APPLY_CREATE;
    it->rev[0] = '\0';
    for (size_t i = lower_bound(ix->by_base, ix->n, mine, true);
         i < ix->n && strcmp(base_of(ix->by_base[i]->key), mine) == 0; i++) {
        const struct store_spec *sp = ix->by_base[i];

        if (strcmp(sp->name, inv->name) == 0)
            continue;
        fprintf(stderr,
                "%s:%u:1: metadata.name: %s already holds another "
                "invocation (\"%s\")\n",
                inv->file, inv->line, sp->key, sp->name);
        return -1;
    }
    for (size_t i = lower_bound(ix->by_name, ix->n, inv->name, false);
         i < ix->n && strcmp(ix->by_name[i]->name, inv->name) == 0; i++) {
        const struct store_spec *sp = ix->by_name[i];

        if (hit != NULL || sp->docs > 1 || !own_file(sp->key, inv->name)) {
            fprintf(stderr,
                    "%s:%u:1: metadata.name: \"%s\" is already defined in "
                    "%s; apply only writes <name>.yaml files, so move or "
                    "delete that definition first\n",
                    inv->file, inv->line, inv->name, sp->key);
            return -1;
        }
        hit = sp;
    }
    if (hit == NULL)
        return 0;
    snprintf(it->rev, sizeof(it->rev), "%s", hit->rev);
    it->action =
        hit->inv != NULL && spec_same_resource(hit->inv, inv)
            ? APPLY_UNCHANGED
            : APPLY_CONFIGURE;
    return 0;
}

static int
record_applied(struct cli *c, const char *name, const char *yaml, struct err *e)
{
    char sha[65], file[80];
    cJSON *j = cJSON_CreateObject();
    int rc = -1;

    spec_sha256_hex(yaml, strlen(yaml), sha);
    snprintf(file, sizeof(file), "%s.yaml", name);
    if (j != NULL && cJSON_AddStringToObject(j, "sha256", sha) &&
        cJSON_AddStringToObject(j, "file", file))
        rc = store_json_put(c->store, STORE_DOC_APPLIED, name, j, e);
    cJSON_Delete(j);
    return rc;
}

static int
write_item(struct cli *c, const struct apply_item *it, struct err *e)
{
    struct store_meta m;
    char *yaml;
    int rc = -1;

    /* kubectl: a name whose deletion is under way cannot be created
     * again until it is gone (its cleanup still goes by the old uid) */
    if (it->being_deleted)
        return err_set(e, ERR_CONFLICT, "object is being deleted: "
                       "agentinvocations.agentctl.dev \"%s\" already exists "
                       "(agentctl wait --for=delete, then apply)",
                       it->inv->name);
    if (it->action != APPLY_UNCHANGED) {
        yaml = cli_spec_yaml(it->inv);
        if (yaml == NULL)
            return err_set(e, ERR_NOMEM, "out of memory");
        if (store_put(c->store, it->inv->name, yaml, strlen(yaml), it->rev,
                      NULL, e) == 0)
            rc = record_applied(c, it->inv->name, yaml, e);
        free(yaml);
        if (rc == -1)
            return -1;
    }
    /* uid and generation exist from the first apply on */
    return store_meta_observe(c->store, it->inv->name, it->inv->spec_hash, &m,
                              e);
}

static bool
in_input(const struct apply_item *items, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(items[i].inv->name, name) == 0)
            return true;
    return false;
}

/* Remove one spec apply wrote, if its bytes are still apply's. */
static void
prune_one(struct cli *c, const char *name, const struct apply_opts *o, int *rc)
{
    struct store_spec sp;
    cJSON *rec = NULL;
    const cJSON *sha;
    struct err e = { 0 };
    char now[65];
    /* with -o json|yaml stdout is one document a program parses */
    FILE *say =
        o->output != NULL && strcmp(o->output, "name") != 0 ? stderr : stdout;

    if (store_json_get(c->store, STORE_DOC_APPLIED, name, &rec, &e) == -1)
        goto out;
    sha = cJSON_GetObjectItemCaseSensitive(rec, "sha256");
    if (store_get(c->store, name, &sp, &e) == -1) {
        if (e.code == ERR_NOTFOUND && !o->dry_run) /* gone already */
            store_doc_del(c->store, STORE_DOC_APPLIED, name, NULL);
        goto out;
    }
    /* the bytes' hash, not the revision: an etcd revision is no hash */
    spec_sha256_hex(sp.data, sp.len, now);
    if (o->prune_sel != NULL &&
        (sp.inv == NULL || !cli_selector_match(o->prune_sel, &sp.inv->labels))) {
        /* not selected by -l: leave it */
    } else if (!cJSON_IsString(sha) || strcmp(now, sha->valuestring) != 0 ||
        sp.docs > 1) {
        fprintf(stderr,
                "warning: not pruning \"%s\": %s changed since apply wrote "
                "it\n",
                name, sp.key);
    } else if (o->dry_run) {
        fprintf(say, CLI_KIND "/%s pruned (dry run)\n", name);
    } else if (store_del(c->store, name, sp.rev, &e) == 0) {
        store_doc_del(c->store, STORE_DOC_APPLIED, name, NULL);
        fprintf(say, CLI_KIND "/%s pruned\n", name);
    } else {
        fprintf(stderr, "error: prune \"%s\": %s\n", name, e.msg);
        *rc = CLI_FAIL;
    }
    store_spec_cleanup(&sp);
out:
    cJSON_Delete(rec);
}

static int
prune(struct cli *c, const struct apply_item *items, size_t n,
      const struct apply_opts *o)
{
    char **names;
    size_t k;
    int rc = CLI_OK;
    struct err e = { 0 };

    if (store_doc_names(c->store, STORE_DOC_APPLIED, &names, &k, &e) == -1) {
        fprintf(stderr, "error: %s\n", e.msg);
        return CLI_FAIL;
    }
    for (size_t i = 0; i < k; i++)
        if (!in_input(items, n, names[i]))
            prune_one(c, names[i], o, &rc);
    store_names_free(names, k);
    return rc;
}

static void
print_item(struct cli *c, const struct apply_item *it,
           const struct apply_opts *o, cJSON *list)
{
    struct store_spec tmp = { .name = it->inv->name };

    if (o->output == NULL)
        printf(CLI_KIND "/%s %s%s\n", it->inv->name, action_word[it->action],
               o->dry_run ? " (dry run)" : "");
    else if (strcmp(o->output, "name") == 0)
        printf(CLI_KIND "/%s\n", it->inv->name);
    else {
        tmp.inv = (struct spec_invocation *)it->inv;
        cJSON_AddItemToArray(list, cli_resource_full(c, &tmp));
    }
}

/* The Terminating entries store_terminating_list added to live, moved
 * out of it into gone (both stay in name order): one read of the status
 * names for the whole apply, not one per item (a bulk apply's group
 * write stays whole). */
static void
split_terminating(struct cli *c, struct store_list *live,
                  struct store_list *gone)
{
    size_t k = 0, had = live->n;

    memset(gone, 0, sizeof(*gone));
    if (store_terminating_list(c->store, live, NULL) == -1 || live->n == had)
        return; /* none (or unknown: the creates go ahead, as before) */
    gone->items = calloc(live->n - had, sizeof(*gone->items));
    for (size_t i = 0; i < live->n; i++) {
        struct store_spec *sp = &live->items[i];

        if (!sp->terminating)
            live->items[k++] = *sp;
        else if (gone->items != NULL)
            gone->items[gone->n++] = *sp;
        else
            store_spec_cleanup(sp); /* out of memory: unknown, as above */
    }
    live->n = k;
}

static int
spec_name_cmp(const void *a, const void *b)
{
    return strcmp(((const struct store_spec *)a)->name,
                  ((const struct store_spec *)b)->name);
}

static bool
in_list(const struct store_list *l, const char *name)
{
    struct store_spec key = { .name = (char *)name };

    return l->n > 0 && bsearch(&key, l->items, l->n, sizeof(*l->items),
                               spec_name_cmp) != NULL;
}

/* Plan every item against the live store; all-or-nothing. */
static int
plan_all(struct cli *c, const struct cli_input *in, struct apply_item *items,
         size_t *n)
{
    struct store_list live, gone;
    struct live_index ix;
    struct err e = { 0 };
    int bad = 0;

    if (store_list(c->store, &live, &e) == -1) {
        fprintf(stderr, "error: %s\n", e.msg);
        return -1;
    }
    split_terminating(c, &live, &gone);
    if (live_index_build(&ix, &live) == -1) {
        store_list_cleanup(&gone);
        store_list_cleanup(&live);
        fprintf(stderr, "error: out of memory\n");
        return -1;
    }
    *n = 0;
    for (size_t i = 0; i < in->n; i++)
        for (size_t j = 0; j < in->files[i].n; j++) {
            struct apply_item *it = &items[(*n)++];

            if (plan_item(&ix, in->files[i].items[j], it) == -1)
                bad++;
            it->being_deleted = it->action == APPLY_CREATE &&
                                in_list(&gone, it->inv->name);
        }
    live_index_free(&ix);
    store_list_cleanup(&gone);
    store_list_cleanup(&live);
    return bad ? -1 : 0;
}

static int
apply_locked(struct cli *c, const struct cli_input *in,
             const struct apply_opts *o)
{
    struct apply_item *items = calloc(in->docs + 1, sizeof(*items));
    cJSON *list = cJSON_CreateArray();
    struct err e = { 0 };
    size_t n = 0;
    int rc = CLI_OK;

    if (items == NULL || list == NULL || plan_all(c, in, items, &n) == -1) {
        fprintf(stderr, "error: nothing applied\n");
        rc = CLI_FAIL;
        goto out;
    }
    /* every file of the apply made durable at once, each still atomic */
    if (!o->dry_run && store_batch_begin(c->store, &e) == -1) {
        fprintf(stderr, "error: %s\n", e.msg);
        rc = CLI_FAIL;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (!o->dry_run && write_item(c, &items[i], &e) == -1) {
            fprintf(stderr, "error: apply \"%s\": %s\n", items[i].inv->name,
                    e.msg);
            rc = CLI_FAIL;
            continue;
        }
        if (!o->dry_run)
            store_batch_item_end(c->store);
        print_item(c, &items[i], o, list);
    }
    if (!o->dry_run && store_batch_end(c->store, &e) == -1) {
        fprintf(stderr, "error: apply: %s\n", e.msg);
        rc = CLI_FAIL;
    }
    if (o->prune && prune(c, items, n, o) != CLI_OK)
        rc = CLI_FAIL;
    if (o->output != NULL && strcmp(o->output, "name") != 0) {
        if (cJSON_GetArraySize(list) == 1)
            cli_print_doc(cJSON_GetArrayItem(list, 0), o->output);
        else {
            cJSON *l = cJSON_CreateObject();

            cJSON_AddStringToObject(l, "apiVersion", "v1");
            cJSON_AddItemReferenceToObject(l, "items", list);
            cJSON_AddStringToObject(l, "kind", "List");
            cli_print_doc(l, o->output);
            cJSON_Delete(l);
        }
    }
out:
    cJSON_Delete(list);
    free(items);
    return rc;
}

int
cli_apply(struct cli *c, const struct cli_args *a)
{
    struct apply_opts o = { 0 };
    struct cli_input in = { 0 };
    struct err e = { 0 };
    size_t problems;
    int rc;

    rc = parse_apply(a, &o);
    if (rc != CLI_OK)
        goto out;
    if ((rc = cli_input_from_args(a, false, &in)) != CLI_OK)
        goto out;
    problems = cli_input_report(&in, NULL);
    if (problems > 0) {
        fprintf(stderr, "error: nothing applied: %zu error(s) in the input\n",
                problems);
        rc = CLI_FAIL;
        goto out;
    }
    if (in.docs == 0) { /* directories without one spec file */
        size_t n;
        char *const *f = cli_args_list(a, "filename", &n);

        fprintf(stderr, "error: no objects passed to apply: no *.yaml, "
                        "*.yml or *.json file in");
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %s", f[i]);
        fputc('\n', stderr);
        rc = CLI_FAIL;
        goto out;
    }
    if (store_lock(c->store, &e) == -1) {
        fprintf(stderr, "error: %s\n", e.msg);
        rc = CLI_FAIL;
        goto out;
    }
    rc = apply_locked(c, &in, &o);
    store_unlock(c->store);
out:
    cli_input_cleanup(&in);
    cli_selector_free(o.prune_sel);
    return rc;
}
