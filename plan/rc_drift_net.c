/* rc_drift_net.c - the drift comparators for network topology (IPAM,
 * endpoints, attached networks, host ports, the internal address) and for
 * mounts, as declared and as really mounted. */
#include "rc_drift_int.h"

#include <stdio.h>
#include <string.h>

/* ---- network ------------------------------------------------------------ */

/* One IPAM.Config entry per body entry: same subnet, and the same gateway
 * where the body names one (Docker lists it only then). */
int
rc_drift__cmp_ipam(const struct rc_drift_ctx *c, const struct rc_drift_rule *r,
                   struct rc_drift_find *f)
{
    const cJSON *exp = rc_json_at(c->o->body, r->want);
    const cJSON *obs = rc_drift__get(c->inspect, r->path);
    int n = cJSON_GetArraySize(exp);
    bool same = n == cJSON_GetArraySize(obs);

    for (int i = 0; same && i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(exp, i);
        const cJSON *o = cJSON_GetArrayItem(obs, i);
        const cJSON *gw = cJSON_GetObjectItemCaseSensitive(e, "Gateway");

        same =
            rc_drift__equal(cJSON_GetObjectItemCaseSensitive(e, "Subnet"),
                            cJSON_GetObjectItemCaseSensitive(o, "Subnet")) &&
            (gw == NULL || rc_drift__equal(gw, cJSON_GetObjectItemCaseSensitive(
                                                   o, "Gateway")));
    }
    return same ? 0 : rc_drift__found(c, f, r->path, exp, obs);
}

static bool
dr_listed(const char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != NULL && strcmp(v[i], s) == 0)
            return true;
    return false;
}

/* A JSON array of the first DR_SHORT_ID characters of each ID. */
static cJSON *
dr_short_ids(const char *const *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    char id[DR_SHORT_ID + 1];

    for (size_t i = 0; a != NULL && i < n; i++) {
        cJSON *s;

        snprintf(id, sizeof(id), "%s", v[i] ? v[i] : "");
        s = cJSON_CreateString(id);
        if (s == NULL || !cJSON_AddItemToArray(a, s)) {
            cJSON_Delete(s);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

/* A JSON array of the keys of obj, cut to `width` characters (IDs as
 * docker ps shows them); width 0 keeps them whole. */
static cJSON *
dr_keys(const cJSON *obj, int width)
{
    cJSON *a = cJSON_CreateArray();
    const cJSON *k;
    char key[RC_NAME_MAX];

    cJSON_ArrayForEach(k, obj)
    {
        cJSON *s;

        int n = width > 0 && width < RC_NAME_MAX - 1 ? width : RC_NAME_MAX - 1;

        snprintf(key, sizeof(key), "%.*s", n, k->string);
        s = cJSON_CreateString(key);
        if (s == NULL || a == NULL || !cJSON_AddItemToArray(a, s)) {
            cJSON_Delete(s);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

/* Report exp/seen (both owned here) or out of memory. */
static int
dr_found_owned(const struct rc_drift_ctx *c, struct rc_drift_find *f,
               const char *field, cJSON *exp, cJSON *seen)
{
    int rc = exp != NULL && seen != NULL
                 ? rc_drift__found(c, f, field, exp, seen)
                 : -1;

    cJSON_Delete(exp);
    cJSON_Delete(seen);
    return rc;
}

/* Docker lists an endpoint as "ep-<endpoint id>" when its container is
 * being torn down (an agent or probe that just exited): one of this
 * attempt's own containers on its way out, not a stranger attached. Names
 * are unique on a daemon, so the name says whose it is. */
static bool
dr_own_endpoint_going(const struct rc_drift_ctx *c, const char *key,
                      const char *name)
{
    char probe[RC_NAME_MAX + 8];

    if (strncmp(key, "ep-", 3) != 0 || name == NULL)
        return false;
    snprintf(probe, sizeof(probe), "%s-probe", c->d->prefix);
    return strcmp(name, c->d->objects[RC_ROLE_AGENT].name) == 0 ||
           strcmp(name, c->d->objects[RC_ROLE_PROXY].name) == 0 ||
           strcmp(name, c->d->objects[RC_ROLE_GATEWAY].name) == 0 ||
           strcmp(name, probe) == 0;
}

/* An endpoint not in x->allowed (extra), or a required one not listed
 * (missing; Containers lists running endpoints only). */
int
rc_drift__cmp_endpoints(const struct rc_drift_ctx *c,
                        const struct rc_drift_rule *r, struct rc_drift_find *f)
{
    const cJSON *obs = rc_drift__get(c->inspect, r->path), *k;
    const struct rc_drift_expect *x = c->x;
    char id[DR_SHORT_ID + 1];
    cJSON *seen;
    size_t i;

    if (r->cmp == RC_CMP_ENDPOINTS_MISSING) {
        for (i = 0; i < x->n_required; i++)
            if (cJSON_GetObjectItemCaseSensitive(obs, x->required[i]) == NULL)
                break;
        if (i == x->n_required)
            return 0;
        snprintf(id, sizeof(id), "%s", x->required[i]);
        rc_drift__detail(f, "Containers lacks required endpoint %s", id);
        return dr_found_owned(c, f, r->path,
                              dr_short_ids(x->required, x->n_required),
                              dr_keys(obs, DR_SHORT_ID));
    }
    cJSON_ArrayForEach(k, obs)
    {
        if (!dr_listed(x->allowed, x->n_allowed, k->string)) {
            const char *name =
                rc_drift__str(cJSON_GetObjectItemCaseSensitive(k, "Name"));

            if (dr_own_endpoint_going(c, k->string, name))
                continue;
            snprintf(id, sizeof(id), "%s", k->string);
            rc_drift__detail(f, "Containers has extra endpoint %s (%s)", id,
                             name ? name : "?");
            seen = cJSON_CreateObject();
            if (seen != NULL &&
                cJSON_AddStringToObject(seen, id, name ? name : "") == NULL) {
                cJSON_Delete(seen);
                seen = NULL;
            }
            return dr_found_owned(c, f, r->path,
                                  dr_short_ids(x->allowed, x->n_allowed), seen);
        }
    }
    return 0;
}

/* ---- container networks, ports, addresses -------------------------------- */

/* The networks a role is attached to when x does not say. */
static size_t
dr_default_networks(const struct rc_drift_ctx *c, const char *v[2])
{
    switch (c->o->role) {
    case RC_ROLE_PROXY:
    case RC_ROLE_GATEWAY:
        v[0] = c->d->objects[RC_ROLE_NETWORK].name;
        v[1] = c->d->egress_network;
        return 2;
    case RC_ROLE_AGENT:
        v[0] = c->d->objects[RC_ROLE_NETWORK].name;
        return 1;
    default:
        v[0] = "none";
        return 1;
    }
}

int
rc_drift__cmp_networks(const struct rc_drift_ctx *c,
                       const struct rc_drift_rule *r, struct rc_drift_find *f)
{
    const cJSON *obs = rc_drift__get(c->inspect, r->path), *k;
    const char *def[2];
    const char *const *v = c->x->networks;
    size_t n = c->x->n_networks, seen = 0;

    if (n == 0) {
        n = dr_default_networks(c, def);
        v = def;
    }
    cJSON_ArrayForEach(k, obs)
    {
        if (!dr_listed(v, n, k->string))
            break;
        seen++;
    }
    if (k == NULL && seen == n)
        return 0;
    return dr_found_owned(c, f, r->path, cJSON_CreateStringArray(v, (int)n),
                          dr_keys(obs, 0));
}

/* EXPOSE shows as "3128/tcp": null; a binding (even to 127.0.0.1) is a
 * port on the host. */
int
rc_drift__cmp_ports_live(const struct rc_drift_ctx *c,
                         const struct rc_drift_rule *r, struct rc_drift_find *f)
{
    const cJSON *obs = rc_drift__get(c->inspect, r->path), *k;
    char field[RC_DRIFT_FIELD_MAX];

    cJSON_ArrayForEach(k, obs)
    {
        if (rc_drift__empty(k))
            continue;
        snprintf(field, sizeof(field), "%s.%s", r->path, k->string);
        return rc_drift__found(c, f, field, NULL, k);
    }
    return 0;
}

/* IPAMConfig.IPv4Address always; IPAddress once it has one, and it must
 * have one while the container runs. */
int
rc_drift__cmp_internal_ip(const struct rc_drift_ctx *c,
                          const struct rc_drift_rule *r,
                          struct rc_drift_find *f)
{
    const char *net = c->d->objects[RC_ROLE_NETWORK].name;
    const char *want = c->x->internal_ip;
    const cJSON *ep, *ip;
    bool running = cJSON_IsTrue(rc_drift__get(c->inspect, "State.Running"));
    char path[RC_DRIFT_FIELD_MAX];

    if (want == NULL)
        want = c->o->role == RC_ROLE_PROXY     ? c->d->proxy_ip
               : c->o->role == RC_ROLE_GATEWAY ? c->d->gateway_ip
                                               : c->d->agent_ip;
    ep = cJSON_GetObjectItemCaseSensitive(rc_drift__get(c->inspect, r->path),
                                          net);
    snprintf(path, sizeof(path), "%s.%s.IPAMConfig.IPv4Address", r->path, net);
    ip = rc_drift__get(rc_drift__get(ep, "IPAMConfig"), "IPv4Address");
    if (rc_drift__str(ip) == NULL || strcmp(rc_drift__str(ip), want) != 0)
        return rc_drift__cmp_str_at(c, path, ip, want, f);
    snprintf(path, sizeof(path), "%s.%s.IPAddress", r->path, net);
    ip = cJSON_GetObjectItemCaseSensitive(ep, "IPAddress");
    if (!running && rc_drift__str(ip) != NULL && rc_drift__str(ip)[0] == '\0')
        return 0;
    return rc_drift__cmp_str_at(c, path, ip, want, f);
}

/* ---- mounts ------------------------------------------------------------- */

/* A copy of a Mounts array without "ReadOnly": false (inspect leaves it
 * out). NULL for an empty list or out of memory (*nomem set). */
static cJSON *
dr_mounts_norm(const cJSON *m, bool *nomem)
{
    cJSON *copy, *e;

    if (rc_drift__empty(m))
        return NULL;
    copy = cJSON_Duplicate(m, true);
    if (copy == NULL)
        *nomem = true;
    cJSON_ArrayForEach(e, copy)
    {
        if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(e, "ReadOnly")))
            cJSON_DeleteItemFromObjectCaseSensitive(e, "ReadOnly");
    }
    return copy;
}

int
rc_drift__cmp_mounts(const struct rc_drift_ctx *c,
                     const struct rc_drift_rule *r, struct rc_drift_find *f)
{
    bool nomem = false;
    cJSON *exp = dr_mounts_norm(rc_json_at(c->o->body, r->want), &nomem);
    cJSON *obs = dr_mounts_norm(rc_drift__get(c->inspect, r->path), &nomem);
    int rc = nomem ? -1 : 0;

    if (rc == 0 && !rc_drift__equal(exp, obs))
        rc = rc_drift__found(c, f, r->path, exp, obs);
    cJSON_Delete(exp);
    cJSON_Delete(obs);
    return rc;
}

/* One mount as {Type, Name|Source, Destination, RW}: from the body
 * (Target, ReadOnly) or from inspect's .Mounts[] (Destination, RW). */
static cJSON *
dr_mount_key(const cJSON *m, bool from_body)
{
    const char *type =
        rc_drift__str(cJSON_GetObjectItemCaseSensitive(m, "Type"));
    bool vol = type != NULL && strcmp(type, "volume") == 0;
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(
        m, vol && !from_body ? "Name" : "Source");
    const cJSON *dst = cJSON_GetObjectItemCaseSensitive(
        m, from_body ? "Target" : "Destination");
    bool rw =
        from_body
            ? !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "ReadOnly"))
            : cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "RW"));
    cJSON *k = cJSON_CreateObject();

    if (k == NULL ||
        cJSON_AddStringToObject(k, "Type", type ? type : "") == NULL ||
        cJSON_AddStringToObject(k, vol ? "Name" : "Source",
                                rc_drift__str(src) ? rc_drift__str(src) : "") ==
            NULL ||
        cJSON_AddStringToObject(k, "Destination",
                                rc_drift__str(dst) ? rc_drift__str(dst) : "") ==
            NULL ||
        cJSON_AddBoolToObject(k, "RW", rw) == NULL) {
        cJSON_Delete(k);
        return NULL;
    }
    return k;
}

static cJSON *
dr_mount_keys(const cJSON *list, bool from_body)
{
    cJSON *a = cJSON_CreateArray(), *e;

    cJSON_ArrayForEach(e, list)
    {
        cJSON *k = dr_mount_key(e, from_body);

        if (k == NULL || a == NULL || !cJSON_AddItemToArray(a, k)) {
            cJSON_Delete(k);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

/* Same mounts in any order: each expected one matches a distinct
 * observed one and there are no others. */
static bool
dr_same_set(const cJSON *exp, const cJSON *obs)
{
    int n = cJSON_GetArraySize(exp);
    unsigned char used[128] = { 0 };
    const cJSON *e;

    if (n != cJSON_GetArraySize(obs) || n > (int)sizeof(used))
        return false;
    cJSON_ArrayForEach(e, exp)
    {
        int i = 0, hit = -1;
        const cJSON *o;

        cJSON_ArrayForEach(o, obs)
        {
            if (hit < 0 && !used[i] && cJSON_Compare(e, o, true))
                hit = i;
            i++;
        }
        if (hit < 0)
            return false;
        used[hit] = 1;
    }
    return true;
}

int
rc_drift__cmp_live_mounts(const struct rc_drift_ctx *c,
                          const struct rc_drift_rule *r,
                          struct rc_drift_find *f)
{
    cJSON *exp = dr_mount_keys(rc_json_at(c->o->body, r->want), true);
    cJSON *obs = dr_mount_keys(rc_drift__get(c->inspect, r->path), false);
    int rc = exp == NULL || obs == NULL ? -1 : 0;

    if (rc == 0 && !dr_same_set(exp, obs))
        rc = rc_drift__found(c, f, r->path, exp, obs);
    cJSON_Delete(exp);
    cJSON_Delete(obs);
    return rc;
}
