/* rc_harden.c - Docker's default protections, written into the create
 * bodies (rc_harden.h). The lists are exactly what dockerd 20.10 fills in
 * when a body leaves them out (measured: docs/security-defaults.md), so a
 * container made from these bodies is the same as before; what changes is
 * that a drift rule now compares each one. */
#include "rc_harden.h"

#include <stdint.h>
#include <string.h>

static int
add_ulimit(cJSON *list, const char *name, double value)
{
    cJSON *u = cJSON_CreateObject();

    if (u == NULL || !cJSON_AddItemToArray(list, u) ||
        cJSON_AddStringToObject(u, "Name", name) == NULL ||
        cJSON_AddNumberToObject(u, "Soft", value) == NULL ||
        cJSON_AddNumberToObject(u, "Hard", value) == NULL)
        return -1;
    return 0;
}

/* IPv6 off inside the box: today only the network's EnableIPv6 false
 * keeps it off, and a link-local address would still come up. */
static int
add_sysctls(cJSON *hc)
{
    cJSON *s = cJSON_AddObjectToObject(hc, "Sysctls");

    if (s == NULL ||
        cJSON_AddStringToObject(s, "net.ipv6.conf.all.disable_ipv6", "1") ==
            NULL ||
        cJSON_AddStringToObject(s, "net.ipv6.conf.default.disable_ipv6", "1") ==
            NULL)
        return -1;
    return 0;
}

static int
add_apparmor(cJSON *hc)
{
    cJSON *opts = cJSON_GetObjectItemCaseSensitive(hc, "SecurityOpt");
    cJSON *o = cJSON_CreateString("apparmor=" RC_APPARMOR_PROFILE);

    if (!cJSON_IsArray(opts) || o == NULL || !cJSON_AddItemToArray(opts, o)) {
        cJSON_Delete(o);
        return -1;
    }
    return 0;
}

/* The proxy and the gateway sit on two networks: a namespace made by
 * dockerd inherits the host's net.ipv4.ip_forward=1, which would let them
 * route a packet from the internal network to the egress one. They
 * forward at the application layer only. */
static int
add_no_forwarding(cJSON *hc)
{
    cJSON *s = cJSON_AddObjectToObject(hc, "Sysctls");

    return s != NULL &&
                   cJSON_AddStringToObject(s, "net.ipv4.ip_forward", "0") !=
                       NULL
               ? 0
               : -1;
}

int
rc_harden_host_config(cJSON *hc, enum rc_role role, bool apparmor,
                      bool forwarding_unstated)
{
    cJSON *ul;
    double shm = (double)(role == RC_ROLE_AGENT ? RC_AGENT_SHM : RC_HELPER_SHM);

    if (!cJSON_AddItemToObject(hc, "MaskedPaths",
                               cJSON_Parse(RC_MASKED_PATHS_JSON)) ||
        !cJSON_AddItemToObject(hc, "ReadonlyPaths",
                               cJSON_Parse(RC_READONLY_PATHS_JSON)))
        return -1;
    ul = cJSON_AddArrayToObject(hc, "Ulimits");
    if (ul == NULL || add_ulimit(ul, "nofile", RC_NOFILE) == -1 ||
        add_ulimit(ul, "nproc", RC_NPROC) == -1 ||
        cJSON_AddNumberToObject(hc, "ShmSize", shm) == NULL)
        return -1;
    if (apparmor && add_apparmor(hc) == -1)
        return -1;
    if (role == RC_ROLE_AGENT && add_sysctls(hc) == -1)
        return -1;
    if ((role == RC_ROLE_PROXY || role == RC_ROLE_GATEWAY) &&
        cJSON_AddNumberToObject(hc, "NanoCpus", (double)RC_PROXY_NANOCPUS) ==
            NULL)
        return -1;
    if ((role == RC_ROLE_PROXY || role == RC_ROLE_GATEWAY) &&
        !forwarding_unstated && add_no_forwarding(hc) == -1)
        return -1;
    if (role == RC_ROLE_KEEPER &&
        cJSON_AddNumberToObject(hc, "NanoCpus", (double)RC_KEEPER_NANOCPUS) ==
            NULL)
        return -1;
    return 0;
}
