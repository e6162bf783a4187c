/* rec_roles.c - the names of the roles and helper images. */
#include "rec_roles.h"

#include <string.h>

static const char *const rc_role_names[RC_ROLE_COUNT] = {
    [RC_ROLE_NETWORK] = "network",     [RC_ROLE_PROXY] = "proxy",
    [RC_ROLE_WORKSPACE] = "workspace", [RC_ROLE_GIT] = "git",
    [RC_ROLE_CONFIG] = "config",       [RC_ROLE_SCRATCH] = "scratch",
    [RC_ROLE_KEEPER] = "keeper",       [RC_ROLE_AGENT] = "agent",
    [RC_ROLE_GATEWAY] = "gateway",     [RC_ROLE_KEY] = "gateway-key",
};

const char *
rc_role_name(enum rc_role role)
{
    return (unsigned)role < RC_ROLE_COUNT ? rc_role_names[role] : "?";
}

int
rc_role_by_name(const char *name)
{
    for (int r = 0; r < RC_ROLE_COUNT; r++)
        if (name != NULL && strcmp(rc_role_names[r], name) == 0)
            return r;
    return -1;
}

static const char *const rc_helper_names[RC_HELPER_COUNT] = {
    [RC_HELPER_PROXY] = "proxy",
    [RC_HELPER_KEEPER] = "keeper",
    [RC_HELPER_PROBE] = "probe",
    [RC_HELPER_GATEWAY] = "gateway",
};

const char *
rc_helper_name(enum rc_helper h)
{
    return (unsigned)h < RC_HELPER_COUNT ? rc_helper_names[h] : "?";
}
