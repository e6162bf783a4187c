/* cli_misc.c - agentctl delete, cancel and version: the small commands
 * that act on names. The controller does the real work
 * (cleanup, stopping the agent); these only change the spec or read
 * what the controller recorded. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* A deleted name without a status has nothing for the controller to
 * clean up, and the controller would never remove its metadata: its
 * uid and creationTimestamp go now, so the name applied again is a new
 * object (a name with a status keeps them until the controller's
 * cleanup, which goes by that uid, deletes both). */
static void
forget_identity(struct cli *c, const char *name)
{
    char *doc = NULL;
    size_t len;
    struct err e = { 0 };

    if (store_doc_get(c->store, STORE_DOC_STATUS, name, &doc, &len, &e) == 0)
        free(doc);
    else if (e.code == ERR_NOTFOUND)
        store_doc_del(c->store, STORE_DOC_META, name, NULL);
}

static int
delete_one(struct cli *c, const char *name, bool ignore_missing)
{
    struct err e = { 0 };

    if (!store_name_ok(name))
        return ignore_missing ? CLI_OK : cli_not_found(name);
    if (store_del(c->store, name, NULL, &e) == -1) {
        /* deleted already, its cleanup under way: done, as kubectl's
         * delete of an object being deleted is */
        if (e.code == ERR_NOTFOUND && cli_terminating(c, name)) {
            printf(CLI_KIND " \"%s\" deleted\n", name);
            return CLI_OK;
        }
        if (e.code == ERR_NOTFOUND)
            return ignore_missing ? CLI_OK : cli_not_found(name);
        fprintf(stderr, "error: %s\n", e.msg);
        return CLI_FAIL;
    }
    store_doc_del(c->store, STORE_DOC_APPLIED, name, NULL);
    forget_identity(c, name);
    printf(CLI_KIND " \"%s\" deleted\n", name);
    return CLI_OK;
}

/* The names delete acts on: the arguments, the documents of -f, or the
 * stored invocations -l / --all select (kubectl: exactly one way). */
static int
delete_targets(struct cli *c, const struct cli_args *a, struct cli_names *out)
{
    size_t nf;
    int ways;

    cli_args_list(a, "filename", &nf);
    ways = (a->npos > 0) + (nf > 0) + cli_args_has(a, "all") +
           cli_args_has(a, "selector");
    if (ways == 0)
        return cli_usage_error(a->cmd, "expected NAME, -f PATH, -l SELECTOR "
                                       "or --all");
    if (ways > 1)
        return cli_usage_error(a->cmd, "pass only one of NAME, -f, -l and "
                                       "--all");
    if (a->npos > 0)
        return cli_names_add_args(out, a);
    if (nf > 0)
        return cli_names_from_input(out, a);
    return cli_names_select(c, a, out);
}

int
cli_delete(struct cli *c, const struct cli_args *a)
{
    struct cli_names names = { 0 };
    bool ignore = cli_args_has(a, "ignore-not-found") ||
                  cli_args_has(a, "all") || cli_args_has(a, "selector");
    int rc = delete_targets(c, a, &names);

    if (rc == CLI_OK && names.n == 0 && !cli_args_has(a, "filename"))
        fprintf(stderr, "No resources found\n");
    for (size_t i = 0; rc != CLI_USAGE && i < names.n; i++)
        if (delete_one(c, names.v[i], ignore) != CLI_OK)
            rc = CLI_FAIL;
    cli_names_cleanup(&names);
    return rc;
}

/* The applied record follows a rewrite that apply's bytes started, so
 * prune still knows the file as apply's. */
static void
follow_applied(struct cli *c, const struct store_spec *old, const char *yaml)
{
    cJSON *rec = NULL;
    const cJSON *sha;
    char now[65], was[65];

    if (store_json_get(c->store, STORE_DOC_APPLIED, old->name, &rec, NULL) ==
        -1)
        return;
    sha = cJSON_GetObjectItemCaseSensitive(rec, "sha256");
    /* the old bytes' hash, not the revision (an etcd revision is no hash) */
    spec_sha256_hex(old->data, old->len, was);
    if (cJSON_IsString(sha) && strcmp(sha->valuestring, was) == 0) {
        spec_sha256_hex(yaml, strlen(yaml), now);
        cJSON_SetValuestring((cJSON *)sha, now);
        store_json_put(c->store, STORE_DOC_APPLIED, old->name, rec, NULL);
    }
    cJSON_Delete(rec);
}

static int
cancel_locked(struct cli *c, const char *name)
{
    struct store_spec sp;
    struct err e = { 0 };
    cJSON *resource = NULL, *spec;
    char *yaml = NULL;
    int rc = CLI_FAIL;

    if (store_get(c->store, name, &sp, &e) == -1)
        return e.code == ERR_NOTFOUND ? cli_not_found(name) : CLI_FAIL;
    if (sp.inv == NULL) {
        fprintf(stderr, "error: %s does not validate; fix it first\n", sp.key);
        goto out;
    }
    if (sp.inv->cancel) {
        printf(CLI_KIND "/%s unchanged (already cancelled)\n", name);
        rc = CLI_OK;
        goto out;
    }
    resource = spec_resource(sp.inv); /* a copy: the store's is shared */
    spec = cJSON_GetObjectItemCaseSensitive(resource, "spec");
    cJSON_ReplaceItemInObjectCaseSensitive(spec, "cancel", cJSON_CreateTrue());
    yaml = resource ? cli_yaml_emit(resource) : NULL;
    if (yaml == NULL ||
        store_put(c->store, name, yaml, strlen(yaml), sp.rev, NULL, &e)) {
        fprintf(stderr, "error: cancel \"%s\": %s\n", name,
                yaml ? e.msg : "out of memory");
        goto out;
    }
    follow_applied(c, &sp, yaml);
    printf(CLI_KIND "/%s cancelled\n", name);
    rc = CLI_OK;
out:
    free(yaml);
    cJSON_Delete(resource);
    store_spec_cleanup(&sp);
    return rc;
}

int
cli_cancel(struct cli *c, const struct cli_args *a)
{
    struct err e = { 0 };
    int rc = CLI_OK;

    if (a->npos == 0)
        return cli_usage_error(a->cmd, "expected NAME");
    for (size_t i = 0; i < a->npos; i++) {
        const char *name = a->pos[i];

        if (!store_name_ok(name)) {
            rc = cli_not_found(name);
            continue;
        }
        if (store_lock(c->store, &e) == -1) {
            fprintf(stderr, "error: %s\n", e.msg);
            return CLI_FAIL;
        }
        if (cancel_locked(c, name) != CLI_OK)
            rc = CLI_FAIL;
        store_unlock(c->store);
    }
    return rc;
}

int
cli_version(struct cli *c, const struct cli_args *a)
{
    const char *fmt = cli_args_get(a, "output", NULL);
    cJSON *doc;
    int rc;

    (void)c;
    if (a->npos > 0)
        return cli_usage_error(a->cmd, "version takes no arguments");
    if (fmt == NULL) {
        printf("agentctl version %s\n", AGENTCTL_VERSION);
        return CLI_OK;
    }
    if (strcmp(fmt, "json") != 0 && strcmp(fmt, "yaml") != 0)
        return cli_usage_error(a->cmd, "--output must be json or yaml");
    doc = cJSON_CreateObject();
    cJSON_AddStringToObject(cJSON_AddObjectToObject(doc, "clientVersion"),
                            "gitVersion", AGENTCTL_VERSION);
    rc = cli_print_doc(doc, fmt);
    cJSON_Delete(doc);
    return rc;
}
