/* ctl_plan.c - what the step planner (plan/plan_step.h) is told about an
 * invocation: the one place the record and the pass's memory are reduced
 * to the facts the next step depends on. The steps themselves run in
 * ctl_prepare.c, ctl_probe.c and ctl_cleanup.c. */
#include "ctl.h"

/* status.progress keys and the planner's bits for them. */
static const struct {
    enum plan_progress bit;
    const char *key;
} progress_keys[] = {
    { PLAN_PROXY_CONNECTED, "proxyConnected" },
    { PLAN_PROXY_STARTED, "proxyStarted" },
    { PLAN_KEEPER_STARTED, "keeperStarted" },
    { PLAN_WORKSPACE_UPLOADED, "workspaceUploaded" },
    { PLAN_CONFIG_UPLOADED, "configUploaded" },
    { PLAN_PROBE_STARTED, "probeStarted" },
    { PLAN_BOUNDARY_VERIFIED, "boundaryVerified" },
};

void
ctl_plan_view(const struct ctl_inv *inv, struct plan_view *v)
{
    *v = (struct plan_view){ 0 };
    for (unsigned r = 0; r < RC_ROLE_COUNT; r++) {
        if (rc_desired_object(inv->desired, r) != NULL)
            v->desired |= 1u << r;
        if (ctl_status_resource_id(inv, rc_role_name(r)) != NULL)
            v->recorded |= 1u << r;
    }
    for (size_t i = 0; i < sizeof(progress_keys) / sizeof(progress_keys[0]);
         i++)
        if (ctl_progress_done(inv, progress_keys[i].key))
            v->progress |= progress_keys[i].bit;
    v->probe_recorded = ctl_status_resource_id(inv, "probe") != NULL;
    v->probe_exited = inv->probe_exited;
    v->has_workspace = inv->captured != NULL && inv->captured->has_workspace;
    v->egress_checked = inv->egress_checked;
    v->network_sweep = inv->network_retry == CTL_NET_SWEEP;
    v->prestart_verified = inv->prestart_verified;
    ctl_git_digests(inv, &v->git_digest_before, &v->git_digest_after);
    v->unrecorded_swept = inv->cleanup_swept;
    v->has_uid = ctl_status_str(inv, "uid") != NULL;
    v->has_attempt = ctl_status_str(inv, "attempt") != NULL;
    v->terminal = ctl_phase_terminal(ctl_status_phase(inv->status));
    v->cleaned_up =
        cJSON_GetObjectItemCaseSensitive(inv->status, "cleanedUp") != NULL;
}
