/* rec_roles.h - the objects of an attempt by role, and its helper images:
 * the indexes the attempt record (ctl_record.h) and the desired state
 * (plan/rc_desired.h) share. Here, below both, so that the record lives in
 * model/ where the planner and the CLI read it. */
#ifndef REC_ROLES_H
#define REC_ROLES_H

enum rc_role {
    RC_ROLE_NETWORK,   /* the invocation's own Internal bridge */
    RC_ROLE_PROXY,     /* egress-proxy: internal network + egress network */
    RC_ROLE_WORKSPACE, /* tmpfs volume for /work (spec.workspace only) */
    RC_ROLE_GIT,       /* tmpfs volume for /work/.git (a .git is there) */
    RC_ROLE_CONFIG,    /* tmpfs volume for the adapter's config files */
    RC_ROLE_SCRATCH,   /* tmpfs volume for /tmp (HOME) */
    RC_ROLE_KEEPER,    /* holds the volumes mounted for the attempt */
    RC_ROLE_AGENT,     /* the workload */
    /* credentialMode gateway only (after the others: role numbers are
     * bits in masks and tables, never written anywhere) */
    RC_ROLE_GATEWAY, /* agent-gateway: internal network + egress network */
    RC_ROLE_KEY,     /* tmpfs volume holding the gateway's key file */
};
#define RC_ROLE_COUNT 10

/* "network", "proxy", "workspace", "scratch", "keeper", "agent",
 * "gateway", "gateway-key": the value of the role label. */
const char *rc_role_name(enum rc_role role);
/* The role named name ("scratch"), or -1. */
int rc_role_by_name(const char *name);

/* The helper images an attempt pins at capture (status.helperImages). */
enum rc_helper {
    RC_HELPER_PROXY,   /* images.proxy: the egress proxy */
    RC_HELPER_KEEPER,  /* images.keeper: holds the volumes */
    RC_HELPER_PROBE,   /* images.probe: the boundary probe */
    RC_HELPER_GATEWAY, /* images.gateway: the credential gateway, pinned
                          only for a vendor in credentialMode gateway */
};
#define RC_HELPER_COUNT 4

/* "proxy", "keeper", "probe": the key in status.helperImages and in the
 * config's images mapping. */
const char *rc_helper_name(enum rc_helper h);

#endif
