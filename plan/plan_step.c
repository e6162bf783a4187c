/* plan_step.c - the ladder of an attempt's steps (plan_step.h): each rung
 * is "if this is not recorded yet, do it", in the order the box must be
 * built and torn down. */
#include "plan_step.h"

#define BIT(role) (1u << (role))

/* The next volume of bits in creation order (the role table's), or -1;
 * cleanup removes them in that order too. */
static int
first_volume(unsigned bits)
{
    const enum rc_role *order = rc_role_order(false);

    for (int i = 0; i < RC_ROLE_COUNT; i++)
        if (rc_role_kind(order[i]) == RC_KIND_VOLUME &&
            (bits & BIT(order[i])) != 0)
            return (int)order[i];
    return -1;
}

#define DONE(p) (1u << (p))

/* The progress the ladder's rungs record: what it reads to go on. */
#define LADDER_PROGRESS                                                        \
    (DONE(CTL_PROG_PROXY_CONNECTED) | DONE(CTL_PROG_PROXY_STARTED) |           \
     DONE(CTL_PROG_KEEPER_STARTED) | DONE(CTL_PROG_WORKSPACE_UPLOADED) |       \
     DONE(CTL_PROG_CONFIG_UPLOADED) | DONE(CTL_PROG_PROBE_STARTED) |           \
     DONE(CTL_PROG_BOUNDARY_VERIFIED) | DONE(CTL_PROG_GATEWAY_CONNECTED) |     \
     DONE(CTL_PROG_GATEWAY_STARTED) | DONE(CTL_PROG_KEY_UPLOADED) |            \
     DONE(CTL_PROG_EGRESS_READ) | DONE(CTL_PROG_CHANGES_READ))

bool
plan_box_begun(const struct plan_view *v)
{
    return v->recorded != 0 || (v->progress & LADDER_PROGRESS) != 0;
}

static struct plan_step
step(enum plan_action a, enum rc_role role)
{
    struct plan_step s = { a, role };

    return s;
}

static bool
recorded(const struct plan_view *v, enum rc_role role)
{
    return (v->recorded & BIT(role)) != 0;
}

static bool
done(const struct plan_view *v, enum ctl_progress p)
{
    return (v->progress & (1u << p)) != 0;
}

/* The boundary probe, between the agent's create and its start: create,
 * start, wait, read the verdict. PLAN_NONE once the verdict is recorded:
 * the exited probe (no endpoint left on the network) is removed after the
 * agent's start, off the path to it (controller/box/box_canary.c), or by
 * cleanup. */
static struct plan_step
probe_next(const struct plan_view *v)
{
    if (done(v, CTL_PROG_BOUNDARY_VERIFIED))
        return step(PLAN_NONE, 0);
    if (!v->probe_recorded)
        return step(PLAN_PROBE_CREATE, 0);
    if (!done(v, CTL_PROG_PROBE_STARTED))
        return step(PLAN_PROBE_START, 0);
    if (!v->probe_exited)
        return step(PLAN_PROBE_WAIT, 0);
    return step(PLAN_PROBE_READ, 0);
}

/* The network, then the proxy on it, connected to the egress network and
 * started: the agent's only way out exists before anything else. */
static struct plan_step
network_and_proxy_next(const struct plan_view *v)
{
    if (!v->egress_checked)
        return step(PLAN_CHECK_EGRESS, 0);
    if (!recorded(v, RC_ROLE_NETWORK) || v->network_sweep)
        return step(PLAN_FIND_NETWORK, RC_ROLE_NETWORK);
    if (!recorded(v, RC_ROLE_PROXY))
        return step(PLAN_CREATE, RC_ROLE_PROXY);
    if (!done(v, CTL_PROG_PROXY_CONNECTED))
        return step(PLAN_CONNECT_EGRESS, RC_ROLE_PROXY);
    if (!done(v, CTL_PROG_PROXY_STARTED))
        return step(PLAN_START, RC_ROLE_PROXY);
    return step(PLAN_NONE, 0);
}

/* The credential gateway (credentialMode gateway only): created on the
 * network once its key volume exists, joined to the egress network like
 * the proxy, and started once its key is in the key volume (it reads the
 * key at its start). PLAN_NONE when there is none, when it runs, and
 * while it waits for the key volume or the key. */
static struct plan_step
gateway_next(const struct plan_view *v)
{
    if ((v->desired & BIT(RC_ROLE_GATEWAY)) == 0)
        return step(PLAN_NONE, 0);
    /* Its mount names the key volume: created before it exists, Docker
     * would make an unlabelled disk volume of that name. */
    if (!recorded(v, RC_ROLE_GATEWAY) && !recorded(v, RC_ROLE_KEY))
        return step(PLAN_NONE, 0);
    if (!recorded(v, RC_ROLE_GATEWAY))
        return step(PLAN_CREATE, RC_ROLE_GATEWAY);
    if (!done(v, CTL_PROG_GATEWAY_CONNECTED))
        return step(PLAN_CONNECT_EGRESS, RC_ROLE_GATEWAY);
    if (!done(v, CTL_PROG_GATEWAY_STARTED) && done(v, CTL_PROG_KEY_UPLOADED))
        return step(PLAN_START, RC_ROLE_GATEWAY);
    return step(PLAN_NONE, 0);
}

/* The gateway is up, or the attempt has none: the probe may check it. */
static bool
gateway_ready(const struct plan_view *v)
{
    return (v->desired & BIT(RC_ROLE_GATEWAY)) == 0 ||
           done(v, CTL_PROG_GATEWAY_STARTED);
}

/* The volumes the desired state has, the keeper that holds them mounted,
 * and what is copied into them (the gateway's key first: the gateway
 * waits for it). */
static struct plan_step
storage_next(const struct plan_view *v)
{
    int vol = first_volume(v->desired & ~v->recorded);

    if (vol >= 0)
        return step(PLAN_CREATE, (enum rc_role)vol);
    /* A volume's identity is its CreatedAt, which moves once a container
     * mounts it: the volumes are inspected before the keeper, the first
     * to mount them, is created (a round before the start is too late). */
    if (!recorded(v, RC_ROLE_KEEPER) && !v->storage_verified)
        return step(PLAN_VERIFY_STORAGE, 0);
    if (!recorded(v, RC_ROLE_KEEPER))
        return step(PLAN_CREATE, RC_ROLE_KEEPER);
    if (!done(v, CTL_PROG_KEEPER_STARTED))
        return step(PLAN_START, RC_ROLE_KEEPER);
    if ((v->desired & BIT(RC_ROLE_KEY)) != 0 && !done(v, CTL_PROG_KEY_UPLOADED))
        return step(PLAN_UPLOAD_KEY, RC_ROLE_KEEPER);
    if (v->has_workspace && !done(v, CTL_PROG_WORKSPACE_UPLOADED))
        return step(PLAN_UPLOAD_WORKSPACE, RC_ROLE_KEEPER);
    if ((v->desired & BIT(RC_ROLE_CONFIG)) != 0 &&
        !done(v, CTL_PROG_CONFIG_UPLOADED))
        return step(PLAN_UPLOAD_CONFIG, RC_ROLE_KEEPER);
    return step(PLAN_NONE, 0);
}

struct plan_step
plan_prepare_next(const struct plan_view *v)
{
    struct plan_step s = network_and_proxy_next(v);

    if (s.action != PLAN_NONE)
        return s;
    s = storage_next(v);
    if (s.action != PLAN_NONE)
        return s;
    s = gateway_next(v);
    if (s.action != PLAN_NONE)
        return s;
    if (!recorded(v, RC_ROLE_AGENT))
        return step(PLAN_CREATE, RC_ROLE_AGENT);
    s = probe_next(v);
    if (s.action != PLAN_NONE)
        return s;
    /* the whole box, the agent container included, is inspected once
     * more right before the start */
    if (!v->prestart_verified)
        return step(PLAN_REVALIDATE, 0);
    return step(PLAN_START_AGENT, RC_ROLE_AGENT);
}

struct plan_step
plan_prepare_storage(const struct plan_view *v)
{
    struct plan_step s;

    if (!v->egress_checked || !recorded(v, RC_ROLE_NETWORK) || v->network_sweep)
        return step(PLAN_NONE, 0);
    s = storage_next(v);
    if (s.action != PLAN_NONE)
        return s;
    if (!recorded(v, RC_ROLE_AGENT))
        return step(PLAN_CREATE, RC_ROLE_AGENT);
    return step(PLAN_NONE, 0);
}

struct plan_step
plan_prepare_main(const struct plan_view *v)
{
    struct plan_step s = network_and_proxy_next(v);

    if (s.action != PLAN_NONE)
        return s;
    s = gateway_next(v);
    if (s.action != PLAN_NONE)
        return s;
    if (!gateway_ready(v))
        return step(PLAN_NONE, 0); /* its key volume or key is not there */
    s = probe_next(v);
    if (s.action != PLAN_NONE)
        return s;
    if (plan_prepare_storage(v).action != PLAN_NONE)
        return step(PLAN_NONE, 0); /* the storage lane is not done */
    if (!v->prestart_verified)
        return step(PLAN_REVALIDATE, 0);
    return step(PLAN_START_AGENT, RC_ROLE_AGENT);
}

struct plan_step
plan_cleanup_next(const struct plan_view *v)
{
    /* containers first (force: a running one is killed), so that no
     * volume is held and the network has no endpoint left: the probe and
     * the agent, then the gateway, the first thing after the audit is
     * read, so that its key is unusable at once */
    if (v->probe_recorded)
        return step(PLAN_REMOVE_PROBE, 0);
    if (recorded(v, RC_ROLE_AGENT))
        return step(PLAN_REMOVE, RC_ROLE_AGENT);
    /* with no client left, what the gateway and proxy saw is read before
     * they go (a final attempt only: a repair rebuilds the same attempt) */
    if (v->terminal && !done(v, CTL_PROG_EGRESS_READ) &&
        (recorded(v, RC_ROLE_GATEWAY) || recorded(v, RC_ROLE_PROXY)))
        return step(PLAN_READ_EGRESS, 0);
    if (recorded(v, RC_ROLE_GATEWAY))
        return step(PLAN_REMOVE, RC_ROLE_GATEWAY);
    /* with the agent gone, read the git metadata back before the keeper
     * that holds its volume goes */
    if (v->git_digest_before && !v->git_digest_after &&
        recorded(v, RC_ROLE_KEEPER))
        return step(PLAN_READ_GIT, RC_ROLE_KEEPER);
    /* and the agent's work, a final attempt's (a repair rebuilds the
     * same attempt from the same workspace) */
    if (v->terminal && v->changes_wanted && !done(v, CTL_PROG_CHANGES_READ) &&
        recorded(v, RC_ROLE_KEEPER))
        return step(PLAN_READ_CHANGES, RC_ROLE_KEEPER);
    if (recorded(v, RC_ROLE_KEEPER))
        return step(PLAN_REMOVE, RC_ROLE_KEEPER);
    if (recorded(v, RC_ROLE_PROXY))
        return step(PLAN_REMOVE, RC_ROLE_PROXY);
    if (!v->unrecorded_swept && v->has_uid)
        return step(PLAN_SWEEP_UNRECORDED, 0);
    if (first_volume(v->named) >= 0)
        return step(PLAN_REMOVE, (enum rc_role)first_volume(v->named));
    if (recorded(v, RC_ROLE_NETWORK))
        return step(PLAN_REMOVE, RC_ROLE_NETWORK);
    if (!v->cleaned_up && v->has_attempt && v->terminal)
        return step(PLAN_MARK_CLEANED, 0);
    return step(PLAN_NONE, 0);
}

const char *
plan_action_name(enum plan_action a)
{
    static const char *const names[] = {
        [PLAN_NONE] = "none",
        [PLAN_CHECK_EGRESS] = "check-egress",
        [PLAN_FIND_NETWORK] = "find-network",
        [PLAN_CREATE] = "create",
        [PLAN_CONNECT_EGRESS] = "connect-egress",
        [PLAN_START] = "start",
        [PLAN_UPLOAD_WORKSPACE] = "upload-workspace",
        [PLAN_UPLOAD_CONFIG] = "upload-config",
        [PLAN_UPLOAD_KEY] = "upload-key",
        [PLAN_VERIFY_STORAGE] = "verify-storage",
        [PLAN_PROBE_CREATE] = "probe-create",
        [PLAN_PROBE_START] = "probe-start",
        [PLAN_PROBE_WAIT] = "probe-wait",
        [PLAN_PROBE_READ] = "probe-read",
        [PLAN_PROBE_DISCARD] = "probe-discard",
        [PLAN_REVALIDATE] = "revalidate",
        [PLAN_START_AGENT] = "start-agent",
        [PLAN_READ_GIT] = "read-git",
        [PLAN_READ_CHANGES] = "read-changes",
        [PLAN_READ_EGRESS] = "read-egress",
        [PLAN_REMOVE] = "remove",
        [PLAN_REMOVE_PROBE] = "remove-probe",
        [PLAN_SWEEP_UNRECORDED] = "sweep-unrecorded",
        [PLAN_MARK_CLEANED] = "mark-cleaned",
    };

    return (unsigned)a < sizeof(names) / sizeof(names[0]) && names[a] ? names[a]
                                                                      : "?";
}
