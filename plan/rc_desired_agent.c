/* rc_desired_agent.c - the agent container's create body: the adapter's
 * argv, env and config files for the phase, the environment the controller
 * sets, the agent's user and its HostConfig. Pure, as rc_desired.c is (its
 * shared builders are in rc_desired_int.h). Split out of rc_desired.c.
 */
#include "rc_desired.h"
#include "rc_desired_int.h"
#include "rc_adapter.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RC_ENV_MAX   160          /* spec env (<= 128) + ours */

/* A prompt spec: the vendor's adapter builds the argv, env and config files
 * for the phase (rc_adapter.h); a spec may not set the adapter's variables. */
int
rc_adapt(struct rc_build *b, struct err *e)
{
    const struct spec_invocation *inv = b->inv;
    const struct rc_adapter_box box = {
        .gateway_url = b->d->gateway_url[0] ? b->d->gateway_url : NULL,
        .proxy_port = b->cfg->proxy_port,
        .gateway_port = b->d->gateway_url[0] ? RC_GATEWAY_PORT : 0,
        .landlock_optional = b->cfg->landlock_optional,
        .runner_timeout = b->cfg->limits.max_runner_seconds,
        .runner_max_bytes = b->cfg->limits.max_runner_output_bytes,
        .runner_dir = inv->has_workspace ? "/work" : "/tmp",
        .unlaunched = b->in->unlaunched, .result_unread = b->in->result_unread,
        .output_schema = inv->output_schema,
        /* in env mode the key is in the CLI's environment; the runner (the
         * repository's command) does not need it */
        .credential_env = b->vendor != NULL && !rc_gateway_mode(b) &&
                                  b->in->credential != NULL
                              ? b->vendor->credential_env
                              : NULL,
    };
    struct rc_adapter_out *a;

    if (inv->prompt == NULL)
        return 0;
    a = rc_adapter_build(inv->vendor, rc_adapter_for_vendor(inv->vendor),
                         inv->phase, inv->prompt, &inv->runner, &box, e);
    if (a == NULL) {
        if (e != NULL && e->file[0] == '\0' && inv->file != NULL) {
            snprintf(e->file, sizeof(e->file), "%s", inv->file);
            e->line = inv->line;
        }
        return -1;
    }
    b->d->adapter = a;
    for (size_t i = 0; i < a->n_env; i++) {
        size_t klen = strcspn(a->env[i], "=");

        for (size_t j = 0; j < inv->env.n; j++)
            if (strlen(inv->env.items[j].key) == klen &&
                strncmp(inv->env.items[j].key, a->env[i], klen) == 0)
                return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0,
                                  "spec.env",
                                  "%.*s is set by the %s adapter", (int)klen,
                                  a->env[i], a->adapter);
    }
    return 0;
}

static int
rc_env_cmp(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t kx = strcspn(x, "="), ky = strcspn(y, "=");
    int c = memcmp(x, y, kx < ky ? kx : ky);

    if (c != 0)
        return c;
    return kx < ky ? -1 : kx > ky;
}

static char *
rc_env_entry(const char *k, const char *v)
{
    size_t n = strlen(k) + strlen(v) + 2;
    char *s = malloc(n);

    if (s != NULL)
        snprintf(s, n, "%s=%s", k, v);
    return s;
}

/* Env, sorted by name: the spec's variables plus the ones the controller
 * sets (admission has refused a spec that sets any of those). */
static void
rc_agent_env(struct rc_build *b, cJSON *c)
{
    const struct spec_invocation *inv = b->inv;
    char *env[RC_ENV_MAX];
    size_t n = 0;

    const struct rc_adapter_out *a = b->d->adapter;

    if (inv->env.n + (a ? a->n_env : 0) > RC_ENV_MAX - 9) {
        b->nomem = 1;
        return;
    }
    for (size_t i = 0; i < inv->env.n; i++)
        env[n++] = rc_env_entry(inv->env.items[i].key, inv->env.items[i].value);
    env[n++] = rc_env_entry("HTTPS_PROXY", b->d->proxy_url);
    env[n++] = rc_env_entry("https_proxy", b->d->proxy_url);
    env[n++] = rc_env_entry("AGENT_PHASE", spec_phase_name(inv->phase));
    env[n++] = rc_env_entry("HOME", "/tmp"); /* the scratch volume */
    for (size_t i = 0; a != NULL && i < a->n_env; i++)
        env[n++] = strdup(a->env[i]);
    if (rc_gateway_mode(b)) {
        /* The CLI is pointed at the gateway and sees a placeholder where
         * it insists on a key; the gateway's address skips the proxy. */
        if (b->vendor->credential_env != NULL)
            env[n++] =
                rc_env_entry(b->vendor->credential_env, RC_GATEWAY_PLACEHOLDER);
        if (b->vendor->gateway_base_url_env != NULL)
            env[n++] = rc_env_entry(b->vendor->gateway_base_url_env,
                                    b->d->gateway_url);
        env[n++] = rc_env_entry("NO_PROXY", b->d->gateway_ip);
        env[n++] = rc_env_entry("no_proxy", b->d->gateway_ip);
    } else if (b->in->credential != NULL) {
        env[n++] = rc_env_entry(b->vendor->credential_env, b->in->credential);
    }
    for (size_t i = 0; i < n; i++)
        rc_ok(b, env[i]);
    if (!b->nomem) {
        qsort(env, n, sizeof(env[0]), rc_env_cmp);
        rc_strs(b, c, "Env", (const char *const *)env, n);
    }
    for (size_t i = 0; i < n; i++) {
        if (env[i] != NULL)
            explicit_bzero(env[i], strlen(env[i])); /* may hold the secret */
        free(env[i]);
    }
}

/* The log driver keeps what the controller has not read yet: room for the
 * output bound several times over (JSON framing adds to every line), so
 * the controller's own maxBytes check fires first; never less than 1 MiB. */
static void
rc_agent_log_size(const struct spec_invocation *inv, char out[32])
{
    uint64_t k = (inv->output_max_bytes * 4 + 1023) / 1024;

    snprintf(out, 32, "%lluk", (unsigned long long)(k < 1024 ? 1024 : k));
}

static void
rc_agent_host_config(struct rc_build *b, cJSON *c)
{
    static const char *const dns[] = { "0.0.0.0" };
    static const char *const dns_opt[] = { "timeout:1", "attempts:1" };
    const struct spec_invocation *inv = b->inv;
    char log_size[32];
    cJSON *hc, *mounts;

    rc_agent_log_size(inv, log_size);
    hc = rc_host_config(b, c, RC_ROLE_AGENT,
                        b->d->objects[RC_ROLE_NETWORK].name, inv->memory_bytes,
                        inv->pids, log_size, "2");
    rc_num(b, hc, "NanoCpus", inv->millicpus * 1000000);
    /* No external names: the embedded resolver forwards to 0.0.0.0, which
     * answers nothing, fast (docs/docker-notes.md section 4); the proxy is
     * reached by IP. Both are create-time only, so drift shows as a new
     * container. */
    rc_strs(b, hc, "Dns", dns, 1);
    rc_strs(b, hc, "DnsOptions", dns_opt, 2);
    rc_strs(b, hc, "DnsSearch", NULL, 0);
    rc_strs(b, hc, "ExtraHosts", NULL, 0); /* no /etc/hosts shortcuts */
    rc_str(b, hc, "PidMode", ""); /* own PID namespace, not the host's */
    /* Volumes only: no host paths at all. */
    mounts = cJSON_AddArrayToObject(hc, "Mounts");
    rc_ok(b, mounts);
    rc_storage_mounts(b, mounts, true);
}

cJSON *
rc_agent_body(struct rc_build *b)
{
    const struct rc_adapter_out *a = b->d->adapter;
    cJSON *c = cJSON_CreateObject();

    rc_ok(b, c);
    /* The ID captured with the attempt, never the tag. */
    rc_str(b, c, "Image", b->in->image_id);
    /* argv exactly as written, or as the adapter built it (no shell, no
     * image ENTRYPOINT before it). */
    if (a != NULL)
        rc_strs(b, c, "Entrypoint", (const char *const *)a->argv, a->argc);
    else
        rc_strs(b, c, "Entrypoint", (const char *const *)b->inv->command.argv,
                b->inv->command.n);
    rc_str(b, c, "User", b->d->agent_user); /* numeric, never root */
    rc_agent_env(b, c);
    rc_str(b, c, "WorkingDir", b->inv->has_workspace ? "/work" : "/tmp");
    rc_container_config(b, c, RC_ROLE_AGENT);
    rc_agent_host_config(b, c);
    rc_one_endpoint(b, c, b->d->agent_ip); /* the internal network only */
    return c;
}

/* The agent's user: the one recorded at capture, or the config's for an
 * attempt that has none (numeric "uid:gid", neither 0: never root). */
int
rc_agent_user(struct rc_build *b, struct err *e)
{
    struct rc_desired *d = b->d;
    const char *u = b->in->agent_user ? b->in->agent_user : b->cfg->agent_user;
    unsigned long uid, gid;
    char *end;

    errno = 0;
    uid = strtoul(u, &end, 10);
    gid = *end == ':' ? strtoul(end + 1, &end, 10) : 0;
    if (errno != 0 || *end != '\0' || uid == 0 || gid == 0 ||
        uid > 0xfffffffeul || gid > 0xfffffffeul || u[0] < '0' || u[0] > '9' ||
        strlen(u) >= sizeof(d->agent_user))
        return err_set(e, ERR_INVALID,
                       "agent user \"%s\" is not a numeric uid:gid other "
                       "than root's",
                       u);
    snprintf(d->agent_user, sizeof(d->agent_user), "%s", u);
    d->agent_uid = (uint32_t)uid;
    d->agent_gid = (uint32_t)gid;
    return 0;
}
