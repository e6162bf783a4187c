/* rc_names.c - the small pure pieces around the desired state: role names
 * and order, per-invocation subnets carved from the pool, reading a body
 * by JSON pointer, golden checks of bodies, and redacting the credential
 * out of anything printed. */
#include "rc_desired.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const rc_role_suffixes[RC_ROLE_COUNT] = {
    [RC_ROLE_NETWORK] = "-net",     [RC_ROLE_PROXY] = "-proxy",
    [RC_ROLE_WORKSPACE] = "-ws",    [RC_ROLE_GIT] = "-git",
    [RC_ROLE_CONFIG] = "-cfg",      [RC_ROLE_SCRATCH] = "-scratch",
    [RC_ROLE_KEEPER] = "-keeper",   [RC_ROLE_AGENT] = "-agent",
    [RC_ROLE_GATEWAY] = "-gateway", [RC_ROLE_KEY] = "-gwkey",
};

/* Each object needs the ones before it: the proxy, gateway and agent
 * join the network, the keeper, gateway and agent mount the volumes, and
 * the agent comes last so it never runs without its proxy and storage. */
static const enum rc_role rc_create_order[RC_ROLE_COUNT] = {
    RC_ROLE_NETWORK, RC_ROLE_PROXY, RC_ROLE_WORKSPACE, RC_ROLE_GIT,
    RC_ROLE_CONFIG,  RC_ROLE_KEY,   RC_ROLE_SCRATCH,   RC_ROLE_KEEPER,
    RC_ROLE_GATEWAY, RC_ROLE_AGENT,
};

static const enum rc_role rc_delete_order[RC_ROLE_COUNT] = {
    RC_ROLE_AGENT, RC_ROLE_GATEWAY, RC_ROLE_KEEPER, RC_ROLE_SCRATCH,
    RC_ROLE_KEY,   RC_ROLE_CONFIG,  RC_ROLE_GIT,    RC_ROLE_WORKSPACE,
    RC_ROLE_PROXY, RC_ROLE_NETWORK,
};

enum rc_kind
rc_role_kind(enum rc_role role)
{
    if (role == RC_ROLE_NETWORK)
        return RC_KIND_NETWORK;
    if (role == RC_ROLE_PROXY || role == RC_ROLE_KEEPER ||
        role == RC_ROLE_AGENT || role == RC_ROLE_GATEWAY)
        return RC_KIND_CONTAINER;
    return RC_KIND_VOLUME;
}

const char *
rc_role_suffix(enum rc_role role)
{
    return (unsigned)role < RC_ROLE_COUNT ? rc_role_suffixes[role] : "-?";
}

const enum rc_role *
rc_role_order(bool deletion)
{
    return deletion ? rc_delete_order : rc_create_order;
}

/* ---- helper images ----------------------------------------------------- */

const char *
rc_helper_tag(const struct cfg *cfg, enum rc_helper h)
{
    switch (h) {
    case RC_HELPER_PROXY:
        return cfg->proxy_image;
    case RC_HELPER_KEEPER:
        return cfg->keeper_image;
    case RC_HELPER_PROBE:
        return cfg->probe_image;
    case RC_HELPER_GATEWAY:
        return cfg->gateway_image;
    }
    return NULL;
}

bool
rc_helper_needed(const struct cfg_vendor *v, enum rc_helper h)
{
    return h != RC_HELPER_GATEWAY ||
           (v != NULL && v->credential_mode == CFG_CREDENTIAL_GATEWAY);
}

int
rc_helper_of_role(enum rc_role role)
{
    if (role == RC_ROLE_PROXY)
        return RC_HELPER_PROXY;
    if (role == RC_ROLE_KEEPER)
        return RC_HELPER_KEEPER;
    if (role == RC_ROLE_GATEWAY)
        return RC_HELPER_GATEWAY;
    return -1;
}

/* ---- subnets ----------------------------------------------------------- */

unsigned
rc_subnet_count(const struct cfg *cfg)
{
    if (cfg->pool_prefix < 8 || cfg->pool_prefix > 24)
        return 0;
    return 1u << (24 - cfg->pool_prefix);
}

static void
rc_ip_text(uint32_t ip, char out[RC_IP_MAX])
{
    snprintf(out, RC_IP_MAX, "%u.%u.%u.%u", (ip >> 24) & 0xffu,
             (ip >> 16) & 0xffu, (ip >> 8) & 0xffu, ip & 0xffu);
}

int
rc_subnet_for(const struct cfg *cfg, unsigned index,
              char cidr[RC_CIDR_MAX], char gateway[RC_IP_MAX],
              char proxy_ip[RC_IP_MAX], char agent_ip[RC_IP_MAX], struct err *e)
{
    unsigned count = rc_subnet_count(cfg);
    uint32_t net;
    char ip[RC_IP_MAX];

    if (index >= count)
        return err_set(e, ERR_LIMIT,
                       "subnet index %u is outside subnetPool %s (it holds "
                       "%u /24 subnets)",
                       index, cfg->subnet_pool ? cfg->subnet_pool : "?", count);
    net = cfg->pool_addr + ((uint32_t)index << 8);
    rc_ip_text(net, ip);
    snprintf(cidr, RC_CIDR_MAX, "%s/24", ip);
    rc_ip_text(net + 1, gateway);
    rc_ip_text(net + 2, proxy_ip);
    rc_ip_text(net + 3, agent_ip);
    return 0;
}

int
rc_agent_user_for(const struct cfg *cfg, unsigned index,
                  char out[RC_USER_MAX], struct err *e)
{
    uint32_t uid;

    if (index >= rc_subnet_count(cfg))
        return err_set(e, ERR_LIMIT, "subnet index %u is outside subnetPool",
                       index);
    if (cfg->agent_user_fixed) {
        snprintf(out, RC_USER_MAX, "%s", cfg->agent_user);
        return 0;
    }
    /* the /24's own number: no two live networks share it */
    uid = cfg->agent_uid_base +
          (((cfg->pool_addr + ((uint32_t)index << 8)) >> 8) & 0xffffffu);
    snprintf(out, RC_USER_MAX, "%u:%u", (unsigned)uid, (unsigned)uid);
    return 0;
}

int
rc_subnet_host(const struct rc_desired *d, unsigned octet, char ip[RC_IP_MAX])
{
    unsigned a, b, c, z;
    char tail[4];

    /* d->subnet is the "a.b.c.0/24" rc_subnet_for() wrote */
    if (octet == 0 || octet > 254 ||
        sscanf(d->subnet, "%u.%u.%u.%u/%3s", &a, &b, &c, &z, tail) != 5 ||
        strcmp(tail, "24") != 0 || a > 255 || b > 255 || c > 255 || z != 0)
        return -1;
    rc_ip_text((a << 24) | (b << 16) | (c << 8) | octet, ip);
    return 0;
}

/* ---- JSON pointer and golden checks -------------------------------------- */

/* Copy the next reference token of p (up to '/' or the end) into tok with
 * ~1 -> '/' and ~0 -> '~'. Returns the rest, or NULL when malformed. */
static const char *
rc_pointer_token(const char *p, char *tok, size_t size)
{
    size_t n = 0;

    for (; *p != '\0' && *p != '/'; p++) {
        char c = *p;

        if (c == '~') {
            if (p[1] != '0' && p[1] != '1')
                return NULL;
            c = p[1] == '0' ? '~' : '/';
            p++;
        }
        if (n + 1 >= size)
            return NULL;
        tok[n++] = c;
    }
    tok[n] = '\0';
    return p;
}

const cJSON *
rc_json_at(const cJSON *root, const char *pointer)
{
    const cJSON *at = root;
    char tok[256];

    if (pointer == NULL)
        return NULL;
    while (at != NULL && *pointer != '\0') {
        char *end;
        long idx;

        if (*pointer != '/')
            return NULL;
        pointer = rc_pointer_token(pointer + 1, tok, sizeof(tok));
        if (pointer == NULL)
            return NULL;
        if (cJSON_IsArray(at)) {
            idx = strtol(tok, &end, 10);
            if (tok[0] == '\0' || *end != '\0' || idx < 0 ||
                (tok[0] == '0' && tok[1] != '\0'))
                return NULL;
            at = cJSON_GetArrayItem(at, (int)idx);
        } else if (cJSON_IsObject(at)) {
            at = cJSON_GetObjectItemCaseSensitive(at, tok);
        } else {
            return NULL;
        }
    }
    return at;
}

static bool
rc_golden_holds(const struct rc_golden *g, const cJSON *body, char *why,
                size_t why_size)
{
    const cJSON *have = rc_json_at(body, g->pointer);
    cJSON *want;
    char *text;
    bool ok;

    if (g->json == NULL) {
        if (have == NULL)
            return true;
        text = cJSON_PrintUnformatted(have);
        snprintf(why, why_size, "%s %s: expected absent, have %s",
                 rc_role_name(g->role), g->pointer, text ? text : "?");
        free(text);
        return false;
    }
    want = cJSON_Parse(g->json);
    ok = want != NULL && have != NULL && cJSON_Compare(want, have, true);
    if (!ok) {
        text = have ? cJSON_PrintUnformatted(have) : NULL;
        snprintf(why, why_size, "%s %s: expected %s, have %s",
                 rc_role_name(g->role), g->pointer, g->json,
                 have == NULL ? "nothing"
                 : text       ? text
                              : "?");
        free(text);
    }
    cJSON_Delete(want);
    return ok;
}

const struct rc_golden *
rc_golden_check(enum rc_role role, const cJSON *body,
                const struct rc_golden *table, size_t n, char *why,
                size_t why_size)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].role == role &&
            !rc_golden_holds(&table[i], body, why, why_size))
            return &table[i];
    return NULL;
}

const struct rc_golden *
rc_desired_check_golden(const struct rc_desired *d,
                        const struct rc_golden *table, size_t n, char *why,
                        size_t why_size)
{
    for (size_t i = 0; i < n; i++) {
        const struct rc_object *o = rc_desired_object(d, table[i].role);

        if (o == NULL) {
            snprintf(why, why_size, "%s: no such object",
                     rc_role_name(table[i].role));
            return &table[i];
        }
        if (!rc_golden_holds(&table[i], o->body, why, why_size))
            return &table[i];
    }
    return NULL;
}

/* ---- redaction ------------------------------------------------------------
 */

/* Replace every string that holds secret; "KEY=...secret..." keeps KEY so
 * a reader still sees which variable was set. Returns -1 when out of
 * memory. */
static int
rc_redact_walk(cJSON *j, const char *secret)
{
    for (cJSON *c = j; c != NULL; c = c->next) {
        if (cJSON_IsString(c) && c->valuestring != NULL &&
            strstr(c->valuestring, secret) != NULL) {
            const char *hit = strstr(c->valuestring, secret);
            const char *eq = strchr(c->valuestring, '=');
            char repl[300];

            if (eq != NULL && eq < hit &&
                (size_t)(eq - c->valuestring) < sizeof(repl) - 12)
                snprintf(repl, sizeof(repl), "%.*s=<redacted>",
                         (int)(eq - c->valuestring), c->valuestring);
            else
                snprintf(repl, sizeof(repl), "<redacted>");
            if (cJSON_SetValuestring(c, repl) == NULL)
                return -1;
        }
        if (c->child != NULL && rc_redact_walk(c->child, secret) == -1)
            return -1;
    }
    return 0;
}

char *
rc_desired_redact(const struct rc_desired *d, const cJSON *json)
{
    cJSON *copy;
    char *text = NULL;

    if (json == NULL)
        return NULL;
    copy = cJSON_Duplicate(json, true);
    if (copy == NULL)
        return NULL;
    if (d->secret == NULL || d->secret[0] == '\0' ||
        rc_redact_walk(copy, d->secret) == 0)
        text = cJSON_PrintUnformatted(copy);
    cJSON_Delete(copy);
    return text;
}

char *
rc_desired_redacted_json(const struct rc_desired *d, enum rc_role role)
{
    const struct rc_object *o = rc_desired_object(d, role);

    return o == NULL ? NULL : rc_desired_redact(d, o->body);
}
