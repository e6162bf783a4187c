/* rc_desired_gateway.c - the credential gateway's create body
 * (docs/gateway.md): its flags from the vendor profile, the spec's and
 * the config's budgets, on the box's internal network with the key
 * volume as its only storage. Part of rc_desired.c's builder
 * (rc_desired_int.h). */
#include "rc_desired.h"
#include "rc_desired_int.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Append one string to a JSON array. */
static void
rc_push(struct rc_build *b, cJSON *a, const char *v)
{
    cJSON *s = cJSON_CreateString(v);

    rc_ok(b, s);
    if (s != NULL && a != NULL)
        cJSON_AddItemToArray(a, s);
    else
        cJSON_Delete(s);
}

/* FLAG and the count n, when n is not 0 (0: no such limit). */
static void
rc_push_count(struct rc_build *b, cJSON *a, const char *flag, uint64_t n)
{
    char num[32];

    if (n == 0)
        return;
    snprintf(num, sizeof(num), "%llu", (unsigned long long)n);
    rc_push(b, a, flag);
    rc_push(b, a, num);
}

/* A budget part: the spec's value, else the config's limit (0: none). */
static uint64_t
rc_budget(uint64_t spec, uint64_t limit)
{
    return spec != 0 ? spec : limit;
}

/* The request policy of the model endpoints (docs/gateway.md "Request
 * policy"): the API's lists, widened by the profile on purpose. */
static void
rc_gateway_body_policy(struct rc_build *b, cJSON *cmd)
{
    const struct cfg_vendor *v = b->vendor;
    static const char *const flags[] = { "--allow-field", "--allow-tool-type",
                                         "--allow-beta" };
    const struct cfg_names *lists[] = { &v->gateway_allow_fields,
                                        &v->gateway_allow_tools,
                                        &v->gateway_allow_betas };

    if (v->gateway_body_policy == NULL ||
        strcmp(v->gateway_body_policy, "off") == 0)
        return;
    rc_push(b, cmd, "--body-policy");
    rc_push(b, cmd, v->gateway_body_policy);
    for (size_t l = 0; l < 3; l++)
        for (size_t i = 0; i < lists[l]->n; i++) {
            rc_push(b, cmd, flags[l]);
            rc_push(b, cmd, lists[l]->v[i]);
        }
}

/* agent-gateway's flags (docs/gateway.md "Flags"): it listens on its
 * internal address only (the egress bridge is shared by every
 * invocation's gateway), forwards to the vendor's one host with the key
 * from the read-only key volume, and admits the profile's rules within
 * the attempt's budget. */
static void
rc_gateway_cmd(struct rc_build *b, cJSON *c)
{
    const struct cfg_vendor *v = b->vendor;
    cJSON *cmd = cJSON_AddArrayToObject(c, "Cmd");
    char listen[RC_IP_MAX + 8];
    uint64_t requests =
        rc_budget(b->inv->vendor_requests, b->cfg->limits.max_vendor_requests);
    uint64_t bytes =
        rc_budget(b->inv->vendor_bytes, b->cfg->limits.max_vendor_bytes);
    uint64_t tokens =
        rc_budget(b->inv->vendor_tokens, b->cfg->limits.max_vendor_tokens);

    rc_ok(b, cmd);
    snprintf(listen, sizeof(listen), "%s:%u", b->d->gateway_ip,
             (unsigned)RC_GATEWAY_PORT);
    rc_push(b, cmd, "--listen");
    rc_push(b, cmd, listen);
    rc_push(b, cmd, "--upstream");
    rc_push(b, cmd, v->hosts[0]);
    if (b->in->credential != NULL) {
        rc_push(b, cmd, "--key-file");
        rc_push(b, cmd, RC_GATEWAY_KEY_DIR "/" RC_GATEWAY_KEY_FILE);
        rc_push(b, cmd, "--auth-header");
        rc_push(b, cmd,
                v->gateway_auth_header ? v->gateway_auth_header : "x-api-key");
    } else {
        /* no key to add; every credential the agent sends is dropped */
        rc_push(b, cmd, "--no-credential");
    }
    /* the operator's OpenAI organization and project, only when set (a
     * gateway without them keeps the command an older version gave it) */
    if (v->gateway_organization != NULL) {
        rc_push(b, cmd, "--organization");
        rc_push(b, cmd, v->gateway_organization);
    }
    if (v->gateway_project != NULL) {
        rc_push(b, cmd, "--project");
        rc_push(b, cmd, v->gateway_project);
    }
    if (v->gateway_ca_pem != NULL) { /* a private vendor's CA, beside the key */
        rc_push(b, cmd, "--ca-file");
        rc_push(b, cmd, RC_GATEWAY_KEY_DIR "/" RC_GATEWAY_CA_FILE);
    }
    for (size_t i = 0; i < v->n_gateway_allow; i++) {
        rc_push(b, cmd, "--allow");
        rc_push(b, cmd, v->gateway_allow[i]);
    }
    rc_push_count(b, cmd, "--max-requests", requests);
    rc_push_count(b, cmd, "--max-bytes", bytes);
    /* only when set: a gateway without a token budget keeps the command
     * an older version gave it (the drift rules compare it) */
    rc_push_count(b, cmd, "--max-tokens", tokens);
    if (v->allow_private)
        rc_push(b, cmd, "--allow-private");
    rc_gateway_body_policy(b, cmd);
}

/* The credential gateway: the proxy's hardening and limits, on the
 * internal network at .5 (joined to the egress network after create, like
 * the proxy), with the key volume read-only as its only storage. */
cJSON *
rc_gateway_body(struct rc_build *b)
{
    cJSON *c = cJSON_CreateObject(), *hc, *mounts;

    rc_ok(b, c);
    rc_str(b, c, "Image", b->d->helper_images[RC_HELPER_GATEWAY]);
    rc_gateway_cmd(b, c);
    rc_str(b, c, "User", RC_PROXY_USER); /* the key's owner, nobody else */
    rc_container_config(b, c, RC_ROLE_GATEWAY);
    hc = rc_host_config(b, c, RC_ROLE_GATEWAY,
                        b->d->objects[RC_ROLE_NETWORK].name, RC_PROXY_MEMORY,
                        RC_PROXY_PIDS, "10m", "2");
    mounts = cJSON_AddArrayToObject(hc, "Mounts");
    rc_ok(b, mounts);
    rc_mount(b, mounts, RC_ROLE_KEY, RC_GATEWAY_KEY_DIR, true);
    rc_one_endpoint(b, c, b->d->gateway_ip);
    return c;
}
