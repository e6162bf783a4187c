/* rc_desired_warm.c - the waiting agent of a warm box (rc_desired.h,
 * docs/warm-pool.md "The waiting agent"): the ordinary agent body, built
 * by rc_desired_build, split in two. What Docker fixes at create stays in
 * the body; what agent-launch can apply before its exec (argv, env,
 * workdir) moves into the order, with the launcher's policy file's text
 * (one file read once under the nonce). So the body the drift rules judge is
 * still the one the invocation's own build makes, and the waiting
 * container has no second description to fall out of step with. */
#include "rc_desired.h"

#include <stdio.h>
#include <string.h>

#include "rc_adapter.h"

#define RC_ORDER_WAIT_MAX 86400 /* the launcher's bound on --wait-seconds */

static bool
nonce_ok(const char *nonce)
{
    size_t n = nonce != NULL ? strlen(nonce) : 0;

    return n >= RC_ORDER_NONCE_MIN && n <= RC_ORDER_NONCE_MAX &&
           strspn(nonce, "0123456789abcdef") == n;
}

/* The index of "--" in the launcher's Entrypoint, or -1 when the agent
 * does not start in the launcher with a policy. */
static int
launcher_split(const cJSON *entry)
{
    const cJSON *w0 = cJSON_GetArrayItem(entry, 0);
    const cJSON *w1 = cJSON_GetArrayItem(entry, 1);
    const cJSON *w2 = cJSON_GetArrayItem(entry, 2);
    const cJSON *w3 = cJSON_GetArrayItem(entry, 3);

    if (!cJSON_IsString(w0) || strcmp(w0->valuestring, RC_LAUNCH_BIN) != 0 ||
        !cJSON_IsString(w1) || strcmp(w1->valuestring, "--policy") != 0 ||
        !cJSON_IsString(w2) || !cJSON_IsString(w3) || strcmp(w3->valuestring, "--") != 0 ||
        cJSON_GetArraySize(entry) < 5)
        return -1;
    return 3;
}

/* The launcher's policy file among the adapter's config files. */
static const char *
policy_text(const struct rc_desired *d)
{
    for (size_t i = 0; d->adapter != NULL && i < d->adapter->n_files; i++)
        if (strcmp(d->adapter->files[i].path, RC_LAUNCH_POLICY) == 0)
            return d->adapter->files[i].content;
    return NULL;
}

/* The order: what the ordinary body ran, and the policy it read. */
static cJSON *
order_of(const cJSON *body, const char *nonce, int dashes, const char *policy)
{
    const cJSON *entry = cJSON_GetObjectItemCaseSensitive(body, "Entrypoint");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(body, "Env");
    const cJSON *dir = cJSON_GetObjectItemCaseSensitive(body, "WorkingDir");
    cJSON *o = cJSON_CreateObject(), *argv = cJSON_CreateArray();
    int n = cJSON_GetArraySize(entry);

    for (int i = dashes + 1; argv != NULL && i < n; i++)
        if (!cJSON_AddItemToArray(
                argv, cJSON_Duplicate(cJSON_GetArrayItem(entry, i), 0)))
            break;
    if (o == NULL || argv == NULL || cJSON_GetArraySize(argv) != n - dashes - 1 ||
        !cJSON_AddNumberToObject(o, "version", 1) ||
        !cJSON_AddStringToObject(o, "nonce", nonce) ||
        !cJSON_AddItemToObject(o, "argv", argv) ||
        !cJSON_AddItemToObject(o, "env", env != NULL
                                             ? cJSON_Duplicate(env, 1)
                                             : cJSON_CreateArray()) ||
        !cJSON_AddStringToObject(o, "workdir", cJSON_IsString(dir)
                                                   ? dir->valuestring
                                                   : "/") ||
        !cJSON_AddStringToObject(o, "policy", policy)) {
        if (cJSON_GetObjectItemCaseSensitive(o, "argv") == NULL)
            cJSON_Delete(argv);
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The waiting container's Entrypoint: the same launcher, waiting (the
 * policy comes with the order). */
static cJSON *
wait_entry(const char *nonce, unsigned seconds)
{
    char secs[16];
    const char *w[7] = {
        RC_LAUNCH_BIN,   "--wait", RC_ORDER_FILE,   "--order-nonce",
        nonce,           "--wait-seconds", secs,
    };

    snprintf(secs, sizeof(secs), "%u", seconds);
    return cJSON_CreateStringArray(w, 7);
}

/* Replace member k of body by v (NULL v: out of memory). */
static bool
replace(cJSON *body, const char *k, cJSON *v)
{
    return v != NULL && cJSON_ReplaceItemInObjectCaseSensitive(body, k, v);
}

int
rc_desired_wait(struct rc_desired *d, const char *nonce, unsigned seconds,
                struct err *e)
{
    cJSON *body = d->objects[RC_ROLE_AGENT].body;
    const cJSON *entry = cJSON_GetObjectItemCaseSensitive(body, "Entrypoint");
    cJSON *labels = cJSON_GetObjectItemCaseSensitive(body, "Labels");
    cJSON *order;
    int dashes = launcher_split(entry);

    if (d->order != NULL)
        return err_set(e, ERR_INVALID, "the agent waits already");
    if (dashes < 0 || labels == NULL ||
        d->objects[RC_ROLE_CONFIG].body == NULL || policy_text(d) == NULL)
        return err_set(e, ERR_INVALID,
                       "the agent does not start in agent-launch (a command "
                       "spec, or an attempt an older version captured): it "
                       "cannot wait for an order");
    if (!nonce_ok(nonce))
        return err_set(e, ERR_INVALID, "order nonce: expected %d-%d "
                       "lowercase hex digits", RC_ORDER_NONCE_MIN,
                       RC_ORDER_NONCE_MAX);
    if (seconds == 0 || seconds > RC_ORDER_WAIT_MAX)
        return err_set(e, ERR_INVALID, "wait: %u s is not 1-%u", seconds,
                       RC_ORDER_WAIT_MAX);
    if ((order = order_of(body, nonce, dashes, policy_text(d))) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (!replace(body, "Entrypoint", wait_entry(nonce, seconds)) ||
        !replace(body, "Env", cJSON_CreateArray()) ||
        !replace(body, "WorkingDir", cJSON_CreateString("/tmp")) ||
        !cJSON_AddStringToObject(labels, RC_LABEL_ORDER_NONCE, nonce)) {
        cJSON_Delete(order);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    d->order = order;
    /* the key, in env mode, is in the order now, not in the body */
    d->objects[RC_ROLE_AGENT].sensitive = false;
    return 0;
}
